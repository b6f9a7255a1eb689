/**
 * The Supervised handle of a command in a container, whose child is an attached docker CLI call
 * (`docker run`, `docker start -a`): what an agent's container (container-process.ts) and a setup
 * command's or check's (exec.ts) share. Its stdout is split into the same bounded lines as a local
 * process's, its stderr kept as a tail; `terminate` is `docker stop -t <grace>` (SIGTERM, SIGKILL
 * after the grace) and `kill` is `docker kill`, of the container by name, once the CLI has started
 * (a stop asked before is done as soon as it starts; one asked while it is being prepared removes
 * the container instead of starting it), and asked again every STOP_AGAIN_MS until the CLI ends
 * (the container may not have been made or started yet when the first came). The CLI is a process group of the race's registry, so
 * hydra exiting kills it as it kills an agent.
 */
import type { ProcessExit, ProcessRegistry, Supervised, SupervisorCallbacks } from '../process/index.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, startChild, TailBuffer } from '../process/index.js';
import { trace } from '../../trace.js';
import { docker, dockerBinary, dockerEnv, engineConnection } from './docker.js';

/** How long a stop waits for the CLI to end before it is asked again (stop). */
const STOP_AGAIN_MS = 2_000;

/** The attached docker CLI call: its arguments, and the values of the variables it passes in (`-e NAME`). */
export interface Attached {
  args: string[];
  env: Record<string, string>;
}

/** How the docker CLI ended (startChild's result). */
export type CliResult = Awaited<ReturnType<typeof startChild>['result']>;

export interface ContainerCommand<P extends Attached> {
  host: string;
  /** The container's name, which stop and kill address. */
  name: string;
  graceMs: number;
  /** Whose process group the CLI is (the race's registry). */
  owner: Parameters<ProcessRegistry['registerGroup']>[1];
  callbacks: SupervisorCallbacks;
  processes: ProcessRegistry;
  maxLineBytes?: number;
  stderrTailBytes?: number;
  /** A file the CLI reads as its stdin (the container's, with `-i`). */
  stdinFile?: string;
  /** Makes the container ready (volumes, a created container...); what it throws is the command's spawn error. */
  prepare: () => Promise<P>;
  /** The trace line when the CLI starts. */
  startTrace: (prepared: P) => string;
  /** The trace line at its first output, if any. */
  firstOutputTrace?: string;
  /**
   * What its end means, once the CLI ended and its output is read (`stderr`: its tail; `stopped`:
   * terminate or kill was asked).
   */
  finish: (ended: {
    result: CliResult;
    prepared: P;
    stderr: string;
    stopped: boolean;
  }) => Promise<ProcessExit>;
  /** Once it ended, however it ended. */
  onExited?: () => void;
}

/** The CLI itself could not be started: what it says, with what to do (or null). */
export const cliFailure = (result: CliResult): { spawnError: string; spawnHint: string } | null =>
  result.spawnError === undefined
    ? null
    : {
        spawnError: `the docker CLI could not be started: ${result.spawnError.message}`,
        spawnHint:
          'Install the docker CLI (Debian: `apt-get install docker.io`), or set HYDRA_DOCKER to its path.',
      };

/** Starts `command`'s container by its attached docker CLI call: the handle spawnSupervised gives. */
export function supervisedContainer<P extends Attached>(command: ContainerCommand<P>): Supervised {
  const { host, name, callbacks, processes } = command;
  const graceS = Math.max(1, Math.ceil(command.graceMs / 1000));
  const stderr = new TailBuffer(command.stderrTailBytes ?? 8 * 1024);
  const splitter = new LineSplitter(
    {
      line: (text) => callbacks.onLine(text),
      oversize: (bytes, head) => callbacks.onOversizeLine(bytes, head),
    },
    command.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
  );
  let stopRequested: 'terminate' | 'kill' | null = null;
  let started = false;
  let exited = false;
  let pid: number | undefined;
  /** The CLI's end, once it started; `cliEnded` once it came. */
  let cliEnd: Promise<void> = Promise.resolve();
  let cliEnded = false;
  let stopping: Promise<void> | null = null;
  const stopCall = (how: 'terminate' | 'kill'): Promise<void> => {
    const args = how === 'terminate' ? ['stop', '-t', String(graceS), name] : ['kill', name];
    return docker(host, args, { okExitCodes: [1] }).then(
      () => undefined,
      () => undefined,
    );
  };
  /**
   * Stops the container now, and again while its CLI runs: a stop that comes before the engine has
   * created the container (`No such container`) or started it (a created container's `stop` does
   * nothing, its `kill` fails) is otherwise lost, and the CLI runs the command to its end.
   */
  const stop = (how: 'terminate' | 'kill'): void => {
    const first = stopCall(how);
    stopping ??= (async () => {
      await first;
      while (!cliEnded) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, STOP_AGAIN_MS))), cliEnd]);
        clearTimeout(timer);
        if (cliEnded) return;
        trace(`docker ${stopRequested ?? how} of ${name} again: its CLI still runs`);
        await stopCall(stopRequested ?? how);
      }
    })();
  };

  const run = async (): Promise<ProcessExit> => {
    let prepared: P;
    try {
      prepared = await command.prepare();
    } catch (error) {
      const info = error as { message?: string; hint?: string };
      return {
        exitCode: null,
        signal: null,
        stderrTail: '',
        spawnError: info.message ?? String(error),
        ...(info.hint === undefined ? {} : { spawnHint: info.hint }),
      };
    }
    // Over hydra's one connection to an ssh:// engine (opened by the calls before this one).
    await engineConnection(host);
    if (stopRequested !== null) {
      await docker(host, ['rm', '-f', '-v', name], { okExitCodes: [1] }).catch(() => undefined);
      return { exitCode: null, signal: 'SIGTERM', stderrTail: '' };
    }
    trace(command.startTrace(prepared));
    const child = startChild(dockerBinary(), prepared.args, {
      env: dockerEnv(host, prepared.env),
      stdin: command.stdinFile === undefined ? 'ignore' : { file: command.stdinFile },
      capture: false,
      detached: true,
    });
    pid = child.pid;
    started = true;
    cliEnd = child.result.then(() => {
      cliEnded = true;
    });
    if (pid !== undefined) processes.registerGroup(pid, command.owner);
    child.process.once('spawn', () => {
      if (pid !== undefined) callbacks.onSpawn(pid);
      if (stopRequested !== null) stop(stopRequested);
    });
    let firstOutput = command.firstOutputTrace;
    child.process.stdout?.on('data', (chunk: Buffer) => {
      if (firstOutput !== undefined) trace(firstOutput);
      firstOutput = undefined;
      splitter.push(chunk);
    });
    child.process.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    const result = await child.result;
    splitter.end();
    if (pid !== undefined) processes.unregisterGroup(pid);
    return command.finish({ result, prepared, stderr: stderr.text(), stopped: stopRequested !== null });
  };

  const done = run().finally(() => {
    exited = true;
    command.onExited?.();
  });
  return {
    get pid() {
      return pid;
    },
    terminate: () => {
      stopRequested ??= 'terminate';
      if (started && !exited) stop('terminate');
    },
    kill: () => {
      stopRequested = 'kill';
      if (started && !exited) stop('kill');
    },
    hasExited: () => exited,
    exited: done,
  };
}
