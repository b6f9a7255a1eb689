/**
 * `[setup] share` on an engine that refuses the overlay volume (rootless Docker or Podman): the
 * share is copied into the worktree (which the bind mount shows) instead of failing the start.
 * This machine's engine runs as root, so a docker CLI shim (HYDRA_DOCKER) says `rootless` in
 * `docker info` and fails only a `docker run` with an overlay volume, with the rootless daemon's
 * message (moby volume/local); any other call goes to the real docker.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createSandbox } from '../../support/cli-helpers.js';
import { OVERLAY_REFUSED, shareVolumes } from '../../../src/engine/container/share-volumes.js';
import type { ShareMount } from '../../../src/engine/process/index.js';

/** What a rootless dockerd answers a container with an overlay volume of the `local` driver. */
const ROOTLESS_REFUSAL =
  "docker: Error response from daemon: error while mounting volume '/home/u/.local/share/docker/volumes/4f1c/_data': failed to mount local volume: mount overlay:/home/u/.local/share/docker/volumes/4f1c/_data, data: lowerdir=/src,upperdir=/layer/upper,workdir=/layer/work: operation not permitted.";

let sandbox: Sandbox;
let savedDocker: string | undefined;

beforeEach(() => {
  sandbox = createSandbox();
  savedDocker = process.env['HYDRA_DOCKER'];
});

afterEach(() => {
  if (savedDocker === undefined) delete process.env['HYDRA_DOCKER'];
  else process.env['HYDRA_DOCKER'] = savedDocker;
  sandbox.cleanup();
});

/** The shim: `info` says `securityOptions`, an overlay `run` is refused as rootless, the rest is docker's. */
const installShim = (securityOptions: string[]): string => {
  const shim = path.join(sandbox.dir, 'docker-shim');
  writeFileSync(
    shim,
    [
      '#!/bin/sh',
      `if [ "$1" = info ]; then echo '${JSON.stringify(securityOptions)}'; exit 0; fi`,
      'if [ "$1" = run ]; then',
      '  for arg in "$@"; do case "$arg" in *volume-opt=type=overlay*)',
      `    echo "${ROOTLESS_REFUSAL}" >&2; exit 125;;`,
      '  esac; done',
      'fi',
      'exec docker "$@"',
      '',
    ].join('\n'),
  );
  chmodSync(shim, 0o755);
  process.env['HYDRA_DOCKER'] = shim;
  return shim;
};

/** A checkout's directory shared into a worktree, as setup/share.ts plans it on Linux. */
const shareOf = (): ShareMount => {
  const source = path.join(sandbox.dir, 'checkout', 'node_modules');
  mkdirSync(path.join(source, 'leftpad'), { recursive: true });
  writeFileSync(path.join(source, 'leftpad', 'index.js'), "module.exports = () => 'ok';\n");
  return {
    source,
    target: path.join(sandbox.dir, 'worktree', 'node_modules'),
    layer: path.join(sandbox.dir, '.share', 'worktree', '0'),
    how: 'overlay',
  };
};

const LABELS = ['--label', 'io.hydra.run=share-fallback'];

describe('[setup] share on an engine that refuses overlay volumes', () => {
  it('copies the shared directory into the worktree instead of mounting an overlay', async () => {
    installShim(['name=seccomp,profile=default', 'name=rootless']);
    const share = shareOf();

    const volumes = await shareVolumes([share], LABELS, { host: 'default', image: 'hydra-rootless-a' });

    expect(volumes.args).toEqual([]);
    expect(readFileSync(path.join(share.target, 'leftpad', 'index.js'), 'utf8')).toContain("'ok'");
    // The pane says why it was copied, and what it cost (agent-process.ts shows the note).
    expect(volumes.note).toMatch(
      /^\[setup\] share: node_modules copied into this worktree \(\d+(\.\d)? m?s\), not shared copy-on-write: .* runs rootless and refuses overlay volumes, so every agent pays the copy/,
    );
  });

  it('keeps the overlay on an engine that does not run rootless', async () => {
    installShim(['name=seccomp,profile=default']);
    const share = shareOf();

    const volumes = await shareVolumes([share], LABELS, { host: 'default', image: 'hydra-rootful-b' });

    expect(volumes.args.join(' ')).toContain('volume-opt=type=overlay');
    expect(existsSync(path.join(share.target, 'leftpad'))).toBe(false);
    expect(volumes.note).toBeNull();
  });

  it("reads the rootless daemons' refusals, and not other failures", () => {
    expect(OVERLAY_REFUSED.test(ROOTLESS_REFUSAL)).toBe(true);
    expect(OVERLAY_REFUSED.test('Error: mount type overlay not permitted in rootless mode')).toBe(true);
    expect(OVERLAY_REFUSED.test('Unable to find image hydra-test:latest locally')).toBe(false);
  });
});
