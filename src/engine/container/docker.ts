/**
 * Every call hydra makes to a container engine: the docker CLI (a Docker or Podman engine, local
 * or reached as `unix://`, `tcp://` or `ssh://`), spawned with an argument array and a time limit.
 * The CLI, not the engine's HTTP API: it reads DOCKER_HOST and the current Docker context as the
 * user's own commands do, speaks ssh:// itself, costs no dependency, and the shell watchdog can run
 * it after hydra is gone (ARCHITECTURE.md, "Runners", has the measured cost of a call).
 */
import { performance } from 'node:perf_hooks';
import {
  dockerContextHost,
  dockerContextName,
  environmentEngineAddress,
  forwardedSocket,
  openSshConnection,
  sshTarget,
  startChild,
} from '../process/index.js';
import { EngineError } from '../errors.js';
import { DEFAULT_HOST } from './settings.js';
import { trace } from '../../trace.js';

/** The docker CLI's name, or HYDRA_DOCKER (a path, for a machine where it is elsewhere). */
export const dockerBinary = (env: NodeJS.ProcessEnv = process.env): string => env['HYDRA_DOCKER'] ?? 'docker';

/** A control call (ps, inspect, cp, volume create...) that takes longer than this is given up. */
const DOCKER_CALL_TIMEOUT_MS = 60_000;

export interface DockerResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface DockerOptions {
  timeoutMs?: number;
  /** Written to the CLI's stdin (`docker cp -` takes a tar there). */
  input?: string;
  /** Variables the CLI passes on to the container with `-e NAME` (API keys never go on its command line). */
  env?: Record<string, string>;
  /** Exit codes that are not failures (default: only 0). */
  okExitCodes?: readonly number[];
}

/** The engine's address: `host`, or for the default engine DOCKER_HOST, else the Docker context's endpoint (undefined: the local socket). */
const engineAddress = (host: string, env: NodeJS.ProcessEnv = process.env): string | undefined =>
  host === DEFAULT_HOST ? environmentEngineAddress(env) : host;

/**
 * The environment the CLI runs in: the user's, pointed at `host` unless it is the default engine,
 * and at the socket forwarded over hydra's one connection to an `ssh://` engine once that is open
 * (process/ssh-connection.ts).
 */
export const dockerEnv = (host: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  const address = forwardedSocket(engineAddress(host)) ?? (host === DEFAULT_HOST ? undefined : host);
  if (address !== undefined) {
    env['DOCKER_HOST'] = address;
    // A context would take precedence over nothing but DOCKER_HOST; unset it so the host is the one used.
    delete env['DOCKER_CONTEXT'];
  }
  return env;
};

/** Opens hydra's one connection to `host` if it is an `ssh://` engine (once; never throws). */
export const engineConnection = (host: string): Promise<void> => openSshConnection(engineAddress(host));

/**
 * The host as the user reads it in a message, after "at" or "on" (hydra clean's too): the default
 * engine is DOCKER_HOST's, else the Docker context's (DOCKER_CONTEXT, else `docker context use`),
 * which may be another machine.
 */
export const hostLabel = (host: string, env: NodeJS.ProcessEnv = process.env): string => {
  if (host !== DEFAULT_HOST) return host;
  const fromEnv = env['DOCKER_HOST'];
  if (fromEnv !== undefined && fromEnv !== '') return `${fromEnv} (DOCKER_HOST)`;
  const context = env['DOCKER_CONTEXT'];
  if (context !== undefined && context !== '') return `the Docker context ${context} (DOCKER_CONTEXT)`;
  const current = dockerContextName(env);
  const endpoint = dockerContextHost(env);
  return current === undefined
    ? 'the current Docker context (DOCKER_HOST unset)'
    : `the Docker context ${current}${endpoint === undefined ? '' : ` (${endpoint})`}`;
};

const UNREACHABLE =
  /Cannot connect to the Docker daemon|connection refused|no such host|i\/o timeout|error during connect|dial (tcp|unix)|connect: no such file|ssh: /i;

/** Whether the CLI's error says the engine could not be reached (as opposed to refusing the call). */
const isUnreachable = (stderr: string): boolean => UNREACHABLE.test(stderr);

/** The error for an engine that cannot be reached: names the host and what to do. */
const unreachableError = (host: string, detail: string): EngineError =>
  new EngineError({
    kind: 'SpawnFailed',
    message: `The container engine at ${hostLabel(host)} cannot be reached: ${detail.trim().split('\n')[0] ?? detail}`,
    hint:
      host === DEFAULT_HOST
        ? 'Start Docker (or Podman with its Docker socket) on this machine, or set DOCKER_HOST or [container] hosts to an engine that runs; `docker version` shows whether it answers.'
        : `Check that the engine at ${host} runs and that this machine can reach it (\`DOCKER_HOST=${host} docker version\`${sshCheck(host)}), or remove it from [container] hosts.`,
  });

/** For an `ssh://` engine, the login the docker CLI makes, to try by hand (the user's ssh, keys and known_hosts). */
const sshCheck = (host: string): string => {
  const target = sshTarget(host);
  if (target === null) return '';
  const login = `${target.user === undefined ? '' : `${target.user}@`}${target.host}`;
  return `; for ssh://, \`ssh${target.port === undefined ? '' : ` -p ${target.port}`} ${login} docker version\` must work without a prompt: a key in your agent or ~/.ssh, the host in known_hosts`;
};

/**
 * Runs `docker <args>` against `host`: its exit code, stdout and stderr. Never hangs (a time limit
 * kills the CLI) and never rejects for an exit code; a CLI that cannot start, an engine that cannot
 * be reached or a call that ran out of time is an EngineError (SpawnFailed) naming the host.
 */
export async function docker(
  host: string,
  args: readonly string[],
  options: DockerOptions = {},
): Promise<DockerResult> {
  await engineConnection(host);
  const child = startChild(dockerBinary(), args, {
    env: dockerEnv(host, options.env),
    ...(options.input === undefined ? {} : { stdin: { input: options.input } }),
  });
  const limit = options.timeoutMs ?? DOCKER_CALL_TIMEOUT_MS;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.process.kill('SIGKILL');
  }, limit);
  const started = performance.now();
  const result = await child.result.finally(() => clearTimeout(timer));
  trace(`docker ${args.slice(0, 2).join(' ')}: ${Math.round(performance.now() - started)} ms`);
  if (result.spawnError !== undefined) {
    throw new EngineError({
      kind: 'SpawnFailed',
      message: `The docker CLI could not be started for ${hostLabel(host)}: ${result.spawnError.message}`,
      hint: 'Install the docker CLI (Debian: `apt-get install docker.io`; it also drives Podman through its Docker socket), or set HYDRA_DOCKER to its path.',
    });
  }
  if (timedOut) {
    throw unreachableError(
      host,
      `\`docker ${args[0] ?? ''}\` did not answer within ${Math.round(limit / 1000)} s`,
    );
  }
  const exitCode = result.exitCode ?? 1;
  if (exitCode !== 0 && !(options.okExitCodes ?? []).includes(exitCode) && isUnreachable(result.stderr)) {
    throw unreachableError(host, result.stderr);
  }
  return { exitCode, stdout: result.stdout, stderr: result.stderr };
}

/** `docker <args>` that must succeed: its stdout, or an EngineError naming the call and its stderr. */
export async function dockerOk(
  host: string,
  args: readonly string[],
  options: DockerOptions = {},
): Promise<string> {
  const result = await docker(host, args, options);
  if (result.exitCode === 0 || (options.okExitCodes ?? []).includes(result.exitCode)) return result.stdout;
  throw new EngineError({
    kind: 'SpawnFailed',
    message: `\`docker ${args.slice(0, 2).join(' ')}\` failed on ${hostLabel(host)} (exit ${result.exitCode}): ${result.stderr.trim().split('\n').slice(-3).join(' ')}`,
    hint: 'Check the engine with `docker info`; `hydra clean` removes what a failed race left.',
  });
}
