/**
 * The engine of the environment, as the docker CLI finds it: DOCKER_HOST, else the Docker context
 * (DOCKER_CONTEXT, else the `currentContext` that `docker context use` wrote to config.json), whose
 * endpoint is in the context's meta.json (`<DOCKER_CONFIG or ~/.docker>/contexts/meta/<sha256 of
 * its name>/meta.json`, `Endpoints.docker.Host`). Read from those files, not by asking the CLI
 * (`docker context inspect` is a process per call): an `ssh://` endpoint there gets hydra's one
 * connection (ssh-connection.ts) as DOCKER_HOST's does.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The docker CLI's own name for the context of DOCKER_HOST or the local socket. */
const DEFAULT_CONTEXT = 'default';

const readJson = (file: string): unknown => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
};

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;

const configDir = (env: NodeJS.ProcessEnv): string =>
  env['DOCKER_CONFIG'] !== undefined && env['DOCKER_CONFIG'] !== ''
    ? env['DOCKER_CONFIG']
    : path.join(env['HOME'] ?? os.homedir(), '.docker');

/** The name of the context the docker CLI would use with DOCKER_HOST unset, or undefined for its default one. */
export function dockerContextName(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env['DOCKER_CONTEXT'];
  const name =
    named !== undefined && named !== ''
      ? named
      : field(readJson(path.join(configDir(env), 'config.json')), 'currentContext');
  return typeof name === 'string' && name !== '' && name !== DEFAULT_CONTEXT ? name : undefined;
}

/** The engine address of that context (`ssh://…`, `tcp://…`, `unix://…`), or undefined when there is none or it cannot be read. */
export function dockerContextHost(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = dockerContextName(env);
  if (name === undefined) return undefined;
  const id = createHash('sha256').update(name).digest('hex');
  const meta = readJson(path.join(configDir(env), 'contexts', 'meta', id, 'meta.json'));
  const host = field(field(field(meta, 'Endpoints'), 'docker'), 'Host');
  return typeof host === 'string' && host !== '' ? host : undefined;
}

/** The engine of the environment: DOCKER_HOST when set, else the Docker context's endpoint (undefined: the local socket). */
export function environmentEngineAddress(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env['DOCKER_HOST'];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : dockerContextHost(env);
}
