/**
 * Start-up tracing: with HYDRA_TRACE=1, each call of `trace` prints one line to stderr,
 * `hydra trace <ms since this process started> <phase>`, so `HYDRA_TRACE=1 hydra race ...` shows
 * where the time before the first agent goes (the bench reads the same lines). HYDRA_TRACE=cpu
 * also gives the CPU this process has used by then, `hydra trace <ms> cpu=<ms> <phase>`: on a
 * shared machine, what a phase costs hydra itself, whatever the wait for a CPU. Off, it costs one
 * comparison. Outside the layers (no imports of hydra's own) so the CLI, the engine and the
 * dashboard can all mark their phases.
 */
import { performance } from 'node:perf_hooks';

const mode = process.env.HYDRA_TRACE;
const enabled = mode === '1' || mode === 'cpu';

const cpuMs = (): string => {
  const { user, system } = process.cpuUsage();
  return ` cpu=${((user + system) / 1000).toFixed(0)}`;
};

/** Marks a phase: the time is read now, from the process's own start (performance.timeOrigin). */
export const trace = (phase: string): void => {
  if (!enabled) return;
  process.stderr.write(
    `hydra trace ${performance.now().toFixed(1)}${mode === 'cpu' ? cpuMs() : ''} ${phase}\n`,
  );
};
