/**
 * Every call the tests make to the docker CLI, each with a time limit. An engine that stops
 * answering (dockerd with the vfs driver has been seen to hang on one call while it answers others)
 * then fails the test that asked, naming the call, instead of blocking its worker: a synchronous call
 * with no limit holds the worker's event loop, where vitest's test timeout cannot reach it, and the
 * whole run waits for good. hydra's own calls have their limits in src/engine/container/docker.ts.
 */
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';

/** Longer than any call the tests make takes here (a `docker import` of the test image: ~10 s). */
export const DOCKER_CALL_MS = 120_000;

export interface DockerCall {
  status: number;
  stdout: string;
  stderr: string;
}

/** `docker <args>`, synchronous, killed at `timeoutMs`; throws, naming the call, when it ran out of time. */
export function dockerSync(
  args: readonly string[],
  options: { input?: string | Buffer; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): DockerCall {
  const timeoutMs = options.timeoutMs ?? DOCKER_CALL_MS;
  const result = spawnSync('docker', args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 256 * 1024 * 1024,
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT')
    throw new Error(
      `\`docker ${args.slice(0, 3).join(' ')}\` did not answer within ${timeoutMs / 1000} s: the engine hangs`,
    );
  return {
    status: result.status ?? 1,
    stdout: result.stdout ?? '',
    stderr: result.stderr ?? String(result.error ?? ''),
  };
}

/**
 * `docker <args>`, asynchronous, with the same limit: throws naming the call when it ran out of time,
 * and, unless `reject` is false, when it failed.
 */
export async function dockerAsync(
  args: readonly string[],
  options: { input?: string; reject?: boolean; timeoutMs?: number; stripFinalNewline?: boolean } = {},
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const timeoutMs = options.timeoutMs ?? DOCKER_CALL_MS;
  const result = await execa('docker', args, {
    reject: false,
    timeout: timeoutMs,
    stripFinalNewline: options.stripFinalNewline ?? true,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  const call = `docker ${args.slice(0, 3).join(' ')}`;
  if (result.timedOut)
    throw new Error(`\`${call}\` did not answer within ${timeoutMs / 1000} s: the engine hangs`);
  const exitCode = result.exitCode ?? 1;
  if (options.reject !== false && exitCode !== 0)
    throw new Error(`\`${call}\` failed (exit ${exitCode}): ${String(result.stderr).trim()}`);
  return { exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}
