/**
 * The process runner an adapter's probe runs its commands with (`--version`, `--help`): a time
 * limit, its own process group, and nothing left running afterwards.
 */
import type { ProbeOutput, ProbeRunner } from '../../adapters/types.js';
import { createProcessRegistry, PROBE_OWNER, signalGroup, startChild } from '../process/index.js';
import type { ProcessRegistry } from '../process/index.js';

/** Probe output beyond this is cut (help texts are a few KiB). */
const PROBE_MAX_BUFFER = 1024 * 1024;
/** After the time limit's SIGTERM, SIGKILL follows this much later. */
const PROBE_FORCE_KILL_MS = 2000;

/**
 * A probe runner using the given environment (the CLI's own `#!/usr/bin/env node` needs PATH).
 * The probe runs as the leader of its own process group, like an agent: on its time limit the
 * whole group gets SIGTERM then SIGKILL, once its main process exits whatever it left behind is
 * killed (a child holding stdout open would otherwise keep the probe waiting), and if hydra exits
 * or is interrupted meanwhile the group is killed with the agents': `processes` is the race's
 * registry; without one (hydra doctor), the probes share one registry, so however many run at once
 * hydra listens for its exit once (a registry per probe added an `exit` listener each: Node warned
 * of a listener leak past ten).
 */
let standalone: ProcessRegistry | undefined;
/** The registry of probes outside a race; its handlers are installed only while a probe runs. */
const standaloneRegistry = (): ProcessRegistry => (standalone ??= createProcessRegistry());

export const createProbeRunner =
  (env: NodeJS.ProcessEnv = process.env, processes?: ProcessRegistry): ProbeRunner =>
  async (file, args, { timeoutMs }) => {
    try {
      const child = startChild(file, args, { env, detached: true, maxBuffer: PROBE_MAX_BUFFER });
      const subprocess = child.process;
      const pgid = child.pid;
      const registry = processes ?? standaloneRegistry();
      if (pgid !== undefined) registry.registerGroup(pgid, { runId: PROBE_OWNER });
      let timedOut = false;
      let forceKill: NodeJS.Timeout | undefined;
      const limit = setTimeout(
        () => {
          timedOut = true;
          if (pgid === undefined) return;
          signalGroup(pgid, 'SIGTERM');
          forceKill = setTimeout(() => signalGroup(pgid, 'SIGKILL'), PROBE_FORCE_KILL_MS);
        },
        Math.min(timeoutMs, 2 ** 31 - 1),
      );
      subprocess.once('exit', () => {
        if (pgid !== undefined) signalGroup(pgid, 'SIGKILL');
      });
      const result = await child.result.finally(() => {
        clearTimeout(limit);
        clearTimeout(forceKill);
        if (pgid !== undefined) {
          signalGroup(pgid, 'SIGKILL');
          registry.unregisterGroup(pgid);
        }
      });
      const output: ProbeOutput = {
        exitCode: result.exitCode ?? null,
        stdout: result.stdout,
        stderr: result.stderr,
        timedOut,
      };
      if (result.spawnError !== undefined && !timedOut)
        output.spawnError = `${result.spawnError.code}: ${result.spawnError.message}`;
      return output;
    } catch (error) {
      return {
        exitCode: null,
        stdout: '',
        stderr: '',
        timedOut: false,
        spawnError: error instanceof Error ? error.message : String(error),
      };
    }
  };

/** Runs probe commands with hydra's environment, stdin ignored, a time limit and a kill on timeout. */
export const realProbeRunner: ProbeRunner = createProbeRunner(process.env);
