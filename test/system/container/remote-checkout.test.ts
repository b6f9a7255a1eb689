/**
 * A checks checkout on a remote engine (container/remote-checkout.ts), called directly: its commit
 * goes in as a bundle made without a ref in the user's repository, and a cancel during it removes
 * its helper container and volume and rejects at once. The engine is this machine's (the volume
 * flow is the remote one whatever the host). Without an engine the engine test fails, naming
 * .ci/run's docker set-up (HYDRA_TEST_DOCKER=0 leaves it out on purpose).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, git } from '../../support/cli-helpers.js';
import { dockerReachable, testImage } from '../../support/container-image.js';
import { leftovers, removeLeftovers } from '../../support/container-helpers.js';
import { bundleCommit, makeRemoteCheckout } from '../../../src/engine/container/remote-checkout.js';
import { DEFAULT_HOST } from '../../../src/engine/container/index.js';
import { dockerSync } from '../../support/docker-cli.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(async () => {
  if (enabled) {
    await removeLeftovers(repo);
    expect(leftovers(repo)).toEqual({ containers: [], volumes: [] });
  }
  sandbox.cleanup();
});

const enabled = dockerReachable();

/** A commit no ref points at (a checks checkout's is often an agent's result on its own branch, or none). */
const danglingCommit = (): string => {
  writeFileSync(path.join(repo, 'dangling.txt'), 'only in the commit\n');
  git(repo, ['add', 'dangling.txt']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'dangling']);
  const commit = git(repo, ['rev-parse', 'HEAD']).trim();
  git(repo, ['reset', '--quiet', '--hard', 'HEAD~1']);
  return commit;
};

describe('the bundle of a checks checkout', () => {
  it('holds the commit under the given ref and writes no ref in the repository', async () => {
    const commit = danglingCommit();
    // A file where `refs/hydra/checks/` would be a directory: any ref made there fails.
    mkdirSync(path.join(repo, '.git', 'refs', 'hydra'), { recursive: true });
    writeFileSync(path.join(repo, '.git', 'refs', 'hydra', 'checks'), 'not a directory\n');
    const refsBefore = git(repo, ['for-each-ref']);
    const dir = mkdtempSync(path.join(sandbox.dir, 'bundle-'));
    const file = path.join(dir, 'checkout.bundle');

    await bundleCommit(repo, commit, file, 'refs/hydra/checks/abc123');

    expect(git(repo, ['for-each-ref'])).toBe(refsBefore);
    expect(execFileSync('git', ['bundle', 'list-heads', file], { encoding: 'utf8' })).toBe(
      `${commit} refs/hydra/checks/abc123\n`,
    );
    const clone = path.join(sandbox.dir, 'clone');
    git(sandbox.dir, ['init', '--quiet', clone]);
    git(clone, ['fetch', '--quiet', file, 'refs/hydra/checks/abc123']);
    expect(git(clone, ['show', `${commit}:dangling.txt`])).toBe('only in the commit');
  });
});

describe.runIf(enabled)('a checks checkout on an engine', { timeout: 300_000 }, () => {
  it('ends at a cancel mid-way: Interrupted, within seconds, no helper container or volume left', async () => {
    const image = testImage();
    const runId = `20261126-000000-rr${Math.random().toString(16).slice(2, 6)}`;
    const area = mkdtempSync(path.join(sandbox.dir, 'run-'));
    const controller = new AbortController();
    const label = ['--filter', `label=io.hydra.run=${runId}`];
    // Cancel as soon as its first helper container exists (the bundle then goes in, the checkout starts).
    let abortedAt = 0;
    const watcher = setInterval(() => {
      const listed = dockerSync(['ps', '-aq', ...label], { timeoutMs: 20_000 }).stdout;
      if (listed.trim() === '' || controller.signal.aborted) return;
      abortedAt = Date.now();
      controller.abort();
    }, 100);
    try {
      const made = makeRemoteCheckout(
        { host: DEFAULT_HOST, image, runId, agent: 'codex', repoRoot: repo },
        {
          repoRoot: repo,
          commit: git(repo, ['rev-parse', 'HEAD']).trim(),
          dir: path.join(area, '.checks-codex'),
          local: area,
          copied: [],
          signal: controller.signal,
        },
      );
      await expect(made).rejects.toMatchObject({ kind: 'Interrupted' });
    } finally {
      clearInterval(watcher);
    }
    expect(controller.signal.aborted).toBe(true);
    // The helper's removal and the volume's: two engine calls (seconds each on a loaded machine).
    const took = Date.now() - abortedAt;
    expect(took).toBeLessThan(30_000);
    expect(leftovers(repo)).toEqual({ containers: [], volumes: [] });
  });
});
