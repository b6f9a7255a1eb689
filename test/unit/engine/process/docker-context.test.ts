import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  dockerContextHost,
  dockerContextName,
  environmentEngineAddress,
} from '../../../../src/engine/process/docker-context.js';
import { hostLabel } from '../../../../src/engine/container/docker.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A docker config directory with `contexts` (name -> endpoint) and `current` in config.json. */
function dockerConfig(contexts: Record<string, string>, current?: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-docker-config-'));
  dirs.push(dir);
  if (current !== undefined)
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ currentContext: current }));
  for (const [name, host] of Object.entries(contexts)) {
    const meta = path.join(dir, 'contexts', 'meta', createHash('sha256').update(name).digest('hex'));
    mkdirSync(meta, { recursive: true });
    writeFileSync(
      path.join(meta, 'meta.json'),
      JSON.stringify({
        Name: name,
        Metadata: {},
        Endpoints: { docker: { Host: host, SkipTLSVerify: false } },
      }),
    );
  }
  return dir;
}

describe('the engine of the environment', () => {
  it('is the endpoint of the context `docker context use` chose, read from its meta.json', () => {
    const dir = dockerConfig({ remote: 'ssh://dev@build-box:2222', other: 'tcp://10.0.0.2:2375' }, 'remote');

    expect(dockerContextName({ DOCKER_CONFIG: dir })).toBe('remote');
    expect(dockerContextHost({ DOCKER_CONFIG: dir })).toBe('ssh://dev@build-box:2222');
    expect(environmentEngineAddress({ DOCKER_CONFIG: dir })).toBe('ssh://dev@build-box:2222');
    expect(hostLabel('default', { DOCKER_CONFIG: dir })).toBe(
      'the Docker context remote (ssh://dev@build-box:2222)',
    );
  });

  it('DOCKER_CONTEXT over config.json, DOCKER_HOST over both, as the docker CLI orders them', () => {
    const dir = dockerConfig({ remote: 'ssh://dev@build-box', other: 'tcp://10.0.0.2:2375' }, 'remote');

    expect(environmentEngineAddress({ DOCKER_CONFIG: dir, DOCKER_CONTEXT: 'other' })).toBe(
      'tcp://10.0.0.2:2375',
    );
    expect(
      environmentEngineAddress({
        DOCKER_CONFIG: dir,
        DOCKER_CONTEXT: 'other',
        DOCKER_HOST: 'unix:///run/d.sock',
      }),
    ).toBe('unix:///run/d.sock');
  });

  it('is the local socket (undefined) for the default context, a missing or damaged config, or a context without meta', () => {
    const none = dockerConfig({});
    const named = dockerConfig({}, 'gone');
    const damaged = dockerConfig({});
    writeFileSync(path.join(damaged, 'config.json'), '{ not json');

    expect(environmentEngineAddress({ DOCKER_CONFIG: none })).toBeUndefined();
    expect(environmentEngineAddress({ DOCKER_CONFIG: dockerConfig({}, 'default') })).toBeUndefined();
    expect(environmentEngineAddress({ DOCKER_CONFIG: named })).toBeUndefined();
    expect(environmentEngineAddress({ DOCKER_CONFIG: damaged })).toBeUndefined();
    expect(hostLabel('default', { DOCKER_CONFIG: none })).toBe(
      'the current Docker context (DOCKER_HOST unset)',
    );
  });
});
