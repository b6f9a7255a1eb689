/**
 * Start-up tracing: with HYDRA_TRACE=1, each call of `trace` prints one line to stderr,
 * `hydra trace <ms since this process started> <phase>`, so `HYDRA_TRACE=1 hydra race ...` shows
 * where the time before the first agent goes (the bench reads the same lines). Off, it costs one
 * comparison. Outside the layers (no imports of hydra's own) so the CLI, the engine and the
 * dashboard can all mark their phases.
 */
import { performance } from 'node:perf_hooks';

const enabled = process.env.HYDRA_TRACE === '1';

/** Marks a phase: the time is read now, from the process's own start (performance.timeOrigin). */
export const trace = (phase: string): void => {
  if (!enabled) return;
  process.stderr.write(`hydra trace ${performance.now().toFixed(1)} ${phase}\n`);
};
