/**
 * `[container] devcontainer = true`: the repository's devcontainer.json built into the agents'
 * image with the reference CLI, `devcontainer build --workspace-folder <repo> --config <file>
 * --image-name <name>` (@devcontainers/cli). The CLI is looked up on PATH, not bundled: one 1.9 MB
 * package that only these users need (`npm i -g @devcontainers/cli`; doctor names it). It builds
 * offline when the file's `image` or its Dockerfile's `FROM` is an image the engine has. The image
 * name carries a fingerprint of the build's inputs (definition.ts), so an unchanged definition is
 * built once. The whole output goes to a log file; an error quotes the CLI's own verdict.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../errors.js';
import { dockerAddress, environmentEngineAddress } from '../process/index.js';
import { resolveCommandSync } from '../probe/index.js';
import { repoKey } from '../records/index.js';
import { devcontainerImageName, readDevcontainer } from './definition.js';
import type { DevcontainerDefinition } from './definition.js';

/** How to get the CLI, for doctor and the error. */
export const DEVCONTAINER_INSTALL = 'npm i -g @devcontainers/cli';

/** The label on every image hydra builds from a dev container (its repository's key). */
const DEVCONTAINER_LABEL = 'io.hydra.devcontainer';

/** A build pulls and runs Dockerfile steps: minutes, not seconds. */
const BUILD_TIMEOUT_MS = 20 * 60_000;

/** Between SIGTERM and SIGKILL of a cancelled build. */
const BUILD_GRACE_MS = 5_000;

export interface DevcontainerBuild {
  image: string;
  /** The CLI's last output lines. */
  output: string;
}

export interface BuildOptions {
  /** The engine; absent or `default`: the environment's. */
  host?: string;
  env?: NodeJS.ProcessEnv;
  /** The definition read already (readDevcontainer); read here when absent. */
  definition?: DevcontainerDefinition;
  /** Where the whole output goes (appended); how the error names it. */
  log?: { file: string; shown: string };
  signal?: AbortSignal;
}

/** The CLI on PATH, or the error that says how to install it. */
export function devcontainerCli(env: NodeJS.ProcessEnv = process.env): string {
  const cli = resolveCommandSync('devcontainer', env);
  if (cli !== null) return cli;
  throw new EngineError({
    kind: 'BinaryMissing',
    message:
      'the dev container CLI (devcontainer) is not on PATH; [container] devcontainer = true builds the image with it',
    hint: `Install it with: ${DEVCONTAINER_INSTALL}`,
  });
}

/** The CLI's verdict: the `message` of the JSON line it ends with, else its last line. */
const verdictOf = (stdout: string, tail: string): string => {
  const last = stdout.trim().split('\n').at(-1) ?? '';
  try {
    const parsed = JSON.parse(last) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message.split('\n')[0]?.slice(0, 400) ?? '';
  } catch {
    // Not its JSON: the output's last line says it.
  }
  return (tail.trim().split('\n').at(-1) ?? '').slice(0, 400);
};

/** Builds the repository's dev container image on `host` (absent or `default`: the environment's engine). */
export async function buildDevcontainer(
  repoRoot: string,
  options: BuildOptions = {},
): Promise<DevcontainerBuild> {
  const env = options.env ?? process.env;
  const definition = options.definition ?? readDevcontainer(repoRoot);
  const cli = devcontainerCli(env);
  const image = devcontainerImageName(repoRoot, definition);
  // The engine: `host`, or the environment's (DOCKER_HOST, else the Docker context's endpoint); an
  // `ssh://` one through hydra's one connection (the CLI makes dozens of docker calls).
  const environment = options.host === undefined || options.host === 'default';
  const target = environment ? environmentEngineAddress(env) : options.host;
  const address = target === undefined ? undefined : await dockerAddress(target, env);
  const buildEnv: NodeJS.ProcessEnv =
    address === undefined || (environment && address === target) ? env : { ...env, DOCKER_HOST: address };
  if (buildEnv !== env) delete buildEnv['DOCKER_CONTEXT'];
  const args = [
    'build',
    '--workspace-folder',
    repoRoot,
    '--config',
    definition.file,
    '--image-name',
    image,
    '--label',
    `${DEVCONTAINER_LABEL}=${repoKey(repoRoot)}`,
    // The docker CLI hydra itself uses (HYDRA_DOCKER), when it is not `docker` on PATH.
    ...(env['HYDRA_DOCKER'] === undefined ? [] : ['--docker-path', env['HYDRA_DOCKER']]),
  ];
  // Its folder (the run's record) may not be made yet: placement, and so the build, comes first.
  if (options.log !== undefined) mkdirSync(path.dirname(options.log.file), { recursive: true });
  const log = options.log === undefined ? null : createWriteStream(options.log.file, { flags: 'a' });
  log?.write(
    `$ devcontainer ${args.join(' ')}${target === undefined ? '' : ` (engine ${target}${address === target ? '' : `, through ${address}`})`}\n`,
  );
  let stdout = '';
  let tail = '';
  const exit = await new Promise<{
    code: number | null;
    signal: string | null;
    error?: Error;
    timedOut: boolean;
  }>((resolve) => {
    const child = spawn(cli, args, { env: buildEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const signalGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // Gone already.
      }
    };
    const stop = (): void => {
      signalGroup('SIGTERM');
      killTimer ??= setTimeout(() => signalGroup('SIGKILL'), BUILD_GRACE_MS);
    };
    const limit = setTimeout(() => {
      timedOut = true;
      stop();
    }, BUILD_TIMEOUT_MS);
    options.signal?.addEventListener('abort', stop, { once: true });
    const keep = (chunk: Buffer, toStdout: boolean): void => {
      const text = chunk.toString('utf8');
      if (toStdout && stdout.length < 64 * 1024) stdout += text;
      tail = (tail + text).slice(-8 * 1024);
      log?.write(chunk);
    };
    child.stdout.on('data', (chunk: Buffer) => keep(chunk, true));
    child.stderr.on('data', (chunk: Buffer) => keep(chunk, false));
    const done = (code: number | null, signal: string | null, error?: Error): void => {
      clearTimeout(limit);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', stop);
      resolve({ code, signal, timedOut, ...(error === undefined ? {} : { error }) });
    };
    child.on('error', (error) => done(null, null, error));
    child.on('close', (code, signal) => done(code, signal));
  });
  if (log !== null) await new Promise((resolve) => log.end(resolve));
  const output = tail.trim().split('\n').slice(-20).join('\n');
  if (exit.code === 0) return { image, output };
  if (options.signal?.aborted === true)
    throw new EngineError({
      kind: 'Interrupted',
      message: `The build of the dev container image (${definition.shown}) was cancelled.`,
      hint: 'Start a new race when ready; the engine keeps the layers built so far.',
    });
  const why = exit.timedOut
    ? `it took longer than ${BUILD_TIMEOUT_MS / 60_000} minutes`
    : exit.error !== undefined
      ? exit.error.message
      : verdictOf(stdout, tail);
  const logNote = options.log === undefined ? '' : ` (the whole build: ${options.log.shown})`;
  throw new EngineError({
    kind: 'SpawnFailed',
    message: `Building the dev container image from ${definition.shown} failed: ${why}${logNote}`,
    hint: `Fix ${definition.shown}${definition.dockerfile === null ? '' : ' or its Dockerfile'} (\`devcontainer build --workspace-folder . --config ${definition.shown}\` runs the same build), or name a built image with [container] image = "<image>".`,
    ...(exit.error === undefined ? {} : { cause: exit.error }),
  });
}
