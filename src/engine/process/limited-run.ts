/**
 * A supervised command with a time limit and a cancel signal, its output kept as a bounded tail:
 * what checks (checks/runner.ts) and setup commands (setup/run.ts) share. The limit or the signal
 * sends SIGTERM, then SIGKILL after the grace.
 */
import { spawnSupervised } from './supervisor.js';
import type { ProcessExit, SpawnSpec, Supervised, SupervisorCallbacks } from './supervisor.js';
import type { ProcessRegistry } from './process-registry.js';

/**
 * What starts the command: spawnSupervised (on this machine), or another starter giving the same
 * handle (a container of an agent's image: container/exec.ts).
 */
export type StartProcess = (
  spec: SpawnSpec,
  callbacks: SupervisorCallbacks,
  processes: ProcessRegistry,
) => Supervised;

export interface LimitedRun {
  exit: ProcessExit;
  timedOut: boolean;
  /** The last `outputBytes` of stdout's lines, then stderr's tail. */
  output: string;
}

/** Keeps the last `maxBytes` of lines. */
const lineTail = (maxBytes: number): { push(line: string): void; text(): string } => {
  const lines: string[] = [];
  let bytes = 0;
  return {
    push(line) {
      lines.push(line);
      bytes += line.length + 1;
      while (bytes > maxBytes && lines.length > 1) bytes -= (lines.shift() ?? '').length + 1;
    },
    text: () => lines.join('\n'),
  };
};

export async function runLimited(
  spec: SpawnSpec,
  processes: ProcessRegistry,
  limits: { timeoutMs: number; graceMs: number; outputBytes: number; signal?: AbortSignal },
  start: StartProcess = spawnSupervised,
): Promise<LimitedRun> {
  const output = lineTail(limits.outputBytes);
  const supervised = start(
    spec,
    { onSpawn: () => undefined, onLine: (line) => output.push(line), onOversizeLine: () => undefined },
    processes,
  );
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    supervised.terminate();
    killTimer ??= setTimeout(() => supervised.kill(), limits.graceMs);
  };
  const limitTimer =
    limits.timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          stop();
        }, limits.timeoutMs)
      : undefined;
  limits.signal?.addEventListener('abort', stop, { once: true });
  if (limits.signal?.aborted === true) stop();
  const exit = await supervised.exited;
  clearTimeout(limitTimer);
  clearTimeout(killTimer);
  limits.signal?.removeEventListener('abort', stop);
  return {
    exit,
    timedOut,
    output: [output.text(), exit.stderrTail].filter((part) => part !== '').join('\n'),
  };
}
