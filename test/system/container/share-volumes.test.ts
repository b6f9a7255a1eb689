/**
 * `[setup] share` in containers (src/engine/container/share-volumes.ts): the `--mount` of an overlay
 * volume on the local engine, tried on the engine with a worktree path that holds a comma and a
 * quote (the volume's options are one CSV field); and the race's warning for agents on a remote
 * engine, which cannot see the checkout's directories.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dockerAsync } from '../../support/docker-cli.js';
import { overlayMountArgs, shareVolumes } from '../../../src/engine/container/share-volumes.js';
import { remoteShareWarnings } from '../../../src/engine/setup/index.js';
import type { ShareMount } from '../../../src/engine/setup/index.js';
import { dockerReachable, testImage } from '../../support/container-image.js';
import { removeContainers } from '../../../src/engine/container/index.js';

const RUN = `share-volumes-${process.pid}`;
const LABELS = ['--label', `io.hydra.run=${RUN}`, '--label', 'io.hydra.managed=1'];
const enabled = dockerReachable();
let image = '';
let dir = '';

beforeAll(() => {
  if (enabled) image = testImage();
}, 300_000);

afterEach(async () => {
  if (enabled) await removeContainers('default', { runId: RUN });
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const run = async (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  const result = await dockerAsync(args, { reject: false, stripFinalNewline: false });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
};

describe('[setup] share on a remote engine', () => {
  const dirs = [{ name: 'node_modules', source: '/repo/node_modules' }];

  it('warns for each agent on a remote engine, saying what to do', () => {
    expect(
      remoteShareWarnings(dirs, [
        { agent: 'claude', container: { remote: false, host: 'default' } },
        { agent: 'codex', container: { remote: true, host: 'ssh://buildbox' } },
        { agent: 'gemini', container: null },
      ]),
    ).toEqual([
      `[setup] share: node_modules not shared with codex on ssh://buildbox: a remote engine cannot see this machine's files; make it there with a setup command ([setup] run = "npm ci"), or race them on the local engine.`,
    ]);
  });

  it('says nothing when no agent is on a remote engine, or nothing is shared', () => {
    expect(remoteShareWarnings(dirs, [{ agent: 'claude', container: null }])).toEqual([]);
    expect(
      remoteShareWarnings([], [{ agent: 'codex', container: { remote: true, host: 'tcp://x:2376' } }]),
    ).toEqual([]);
  });
});

describe.runIf(enabled)('[setup] share on the local engine', { timeout: 120_000 }, () => {
  it('mounts the overlay volume, labelled with the run, at a path with a comma and a quote; it goes with its container', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-share-volumes-'));
    const source = path.join(dir, 'checkout-modules');
    mkdirSync(path.join(source, 'pkg'), { recursive: true });
    writeFileSync(path.join(source, 'pkg', 'index.js'), 'from the checkout\n');
    const worktree = path.join(dir, 'work,tree "one"');
    const mount: ShareMount = {
      source,
      target: path.join(worktree, 'node_modules'),
      layer: path.join(dir, 'layers', '0'),
      how: 'overlay',
    };
    const shared = await shareVolumes([mount], LABELS, { host: 'default', image });
    expect(shared.args).toEqual(overlayMountArgs(mount, LABELS));
    const name = `hydra-${RUN}`;
    const script = `cat node_modules/pkg/index.js; echo written > node_modules/pkg/new.txt; sleep 3`;

    const running = run([
      'run',
      '--rm',
      '--name',
      name,
      ...LABELS,
      '--network',
      'none',
      '-v',
      `${worktree}:${worktree}`,
      '-w',
      worktree,
      ...shared.args,
      image,
      'sh',
      '-c',
      script,
    ]);
    let labels = '';
    for (let tries = 0; tries < 40 && labels === ''; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      labels = (await run(['volume', 'ls', '-q', '--filter', `label=io.hydra.run=${RUN}`])).stdout.trim();
    }
    const result = await running;
    await shared.release();

    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('from the checkout\n');
    expect(labels, 'the volume was not seen with the run label').not.toBe('');
    expect(readFileSync(path.join(mount.layer, 'upper', 'pkg', 'new.txt'), 'utf8')).toBe('written\n');
    expect(readFileSync(path.join(source, 'pkg', 'index.js'), 'utf8')).toBe('from the checkout\n');
    expect((await run(['volume', 'ls', '-q', '--filter', `label=io.hydra.run=${RUN}`])).stdout).toBe('');
  });
});
