/**
 * The portable code paths, forced on Linux (HYDRA_PORTABLE=1, ps-table.ts): the process table
 * read from `ps` as macOS prints it (bsd-ps/ps, a shim first on PATH that appends each process's
 * environment, as macOS's `ps -E` does), and agents contained by process groups, the run marker,
 * the watchdog and the sweep, with no PID namespace. `HYDRA_PORTABLE=1 npx vitest run <files>`
 * runs any CLI suite that way (createSandbox passes it on); the fault suites run their essential
 * cases both ways (WAYS).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory of the ps shim. */
export const BSD_PS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bsd-ps');

/** `env` with the portable paths forced: HYDRA_PORTABLE=1 and the ps shim first on PATH. */
export const portableEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...env,
  HYDRA_PORTABLE: '1',
  PATH: `${BSD_PS_DIR}${path.delimiter}${env.PATH ?? ''}`,
});

/** Whether this test process was asked to run everything the portable way. */
export const portableRun = (): boolean => process.env.HYDRA_PORTABLE === '1';

/** The two ways a fault case runs: Linux's own (/proc, PID namespaces), then the portable one. */
export const WAYS = [
  { way: 'linux', env: (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => env },
  { way: 'portable', env: portableEnv },
] as const;
