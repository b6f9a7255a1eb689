/**
 * Where hydra runs: Linux, macOS and the other POSIX systems (a Linux in WSL2 is Linux). Native
 * Windows is refused before any command runs: hydra's process layer (process groups and their
 * signals, a /bin/sh watchdog and namespace init, `ps` or /proc) has no Windows counterpart, and a
 * race there would leave agents running with no word. README.md's platform table says what each
 * system guarantees.
 */
import { CommandError } from './errors.js';

/** The refusal for a platform hydra does not run on; null where it runs. */
export const unsupportedPlatform = (platform: NodeJS.Platform): CommandError | null =>
  platform === 'win32'
    ? new CommandError({
        message:
          'hydra does not run on native Windows: it needs a POSIX system to start, contain and stop the agents (process groups, /bin/sh, ps)',
        hint: 'Run hydra in WSL2 (`wsl --install`, then install Node 20+, git and hydra inside it and race from the Linux shell); there it has everything it has on Linux.',
      })
    : null;
