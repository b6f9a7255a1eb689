/**
 * Starting a child process with node:child_process: an argument array (never a shell), stdin
 * ignored, given as a string or read from a file, stdout and stderr captured (bounded) or left to
 * the caller as streams. Replaces execa, whose import alone cost about 80 ms of every start-up.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

export interface ChildOptions {
  cwd?: string;
  /** The child's whole environment (merge process.env in first when it should be inherited). */
  env: NodeJS.ProcessEnv;
  /** A new process group with the child as its leader. */
  detached?: boolean;
  /** Default: ignored. */
  stdin?: 'ignore' | { input: string } | { file: string };
  /** Collect stdout and stderr as text (default); false leaves them to the caller as streams. */
  capture?: boolean;
  /** Captured output beyond this many characters per stream is dropped. Default 256 MiB. */
  maxBuffer?: number;
  /**
   * A pipe as the child's fd 3 that hydra never writes to and keeps open until the child ends: the
   * child reads end of file from it only once hydra is gone (the namespace init's watchdog).
   */
  lifeline?: boolean;
}

export interface ChildResult {
  /** Captured text ('' when not captured). */
  stdout: string;
  stderr: string;
  /** Undefined when the process never ran or died of a signal. */
  exitCode: number | undefined;
  signal: NodeJS.Signals | undefined;
  /** Set when the process could not be started (ENOENT, EACCES...): the error code and message. */
  spawnError?: { code: string; message: string };
}

export interface Child {
  readonly process: ChildProcess;
  readonly pid: number | undefined;
  /** Settles once the process has exited and its stdout and stderr are closed. Never rejects. */
  readonly result: Promise<ChildResult>;
}

const DEFAULT_MAX_BUFFER = 256 * 1024 * 1024;

/** Opens the stdin file, or says why not (reported like a spawn failure). */
const stdinFd = (file: string): number | Error => {
  try {
    return openSync(file, 'r');
  } catch (error) {
    return error as Error;
  }
};

export function startChild(file: string, args: readonly string[], options: ChildOptions): Child {
  const stdin = options.stdin ?? 'ignore';
  const fd = typeof stdin === 'object' && 'file' in stdin ? stdinFd(stdin.file) : null;
  const child = spawn(file, [...args], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: options.env,
    detached: options.detached ?? false,
    stdio: [
      typeof fd === 'number' ? fd : stdin === 'ignore' || fd !== null ? 'ignore' : 'pipe',
      'pipe',
      'pipe',
      ...(options.lifeline === true ? (['pipe'] as const) : []),
    ],
    windowsHide: true,
  });
  if (typeof fd === 'number') closeSync(fd);
  // Read (nothing comes) so its end is seen and the child's 'close' is not held up by it.
  if (options.lifeline === true) (child.stdio[3] as NodeJS.ReadableStream | null | undefined)?.resume();
  // An unreadable stdin file: the command must not run without its input; reported as not started.
  if (fd instanceof Error) child.kill('SIGKILL');
  if (typeof stdin === 'object' && 'input' in stdin && child.stdin !== null) {
    // A child that exits without reading its input: the EPIPE is not an error of ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin.input);
  }
  const capture = options.capture ?? true;
  const limit = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
  const out = { stdout: '', stderr: '' };
  if (capture) {
    for (const name of ['stdout', 'stderr'] as const) {
      const stream = child[name];
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        if (out[name].length < limit) out[name] += chunk.slice(0, limit - out[name].length);
      });
    }
  }
  const result = new Promise<ChildResult>((resolve) => {
    let spawnError: ChildResult['spawnError'];
    if (fd instanceof Error) {
      spawnError = { code: (fd as NodeJS.ErrnoException).code ?? 'EIO', message: fd.message };
    }
    child.once('error', (error: NodeJS.ErrnoException) => {
      // Only a failed start has no pid; a failed kill of a live child is not its end.
      if (child.pid !== undefined) return;
      spawnError = { code: error.code ?? 'ESPAWN', message: error.message };
      resolve({ ...out, exitCode: undefined, signal: undefined, spawnError });
    });
    child.once('close', (code, signal) => {
      resolve(
        spawnError === undefined
          ? { ...out, exitCode: code ?? undefined, signal: signal ?? undefined }
          : { ...out, exitCode: undefined, signal: undefined, spawnError },
      );
    });
  });
  return { process: child, pid: child.pid, result };
}
