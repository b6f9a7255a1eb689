/**
 * One agent's `*` in the shared `info/exclude` never hides another agent's new files, even when
 * the writer settles (and its exclude is put back) while the other stages: its `git add -A` ran
 * under the `*`, so what it hid is staged by the exclude as the race started (git-dir.ts
 * addHidden, asked before the add by stageChanges). Under load, that interleaving made
 * test/integration/security/shared-git-dir.test.ts fail now and then. Real git, steps in order.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorktree, pinWorktree, runPinned } from '../../../../src/engine/git/index.js';
import { addHidden, excludeChanged, snapshotGitDir } from '../../../../src/engine/git/git-dir.js';
import { makeSandbox } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let worktree: string;
let exclude: string;

beforeEach(async () => {
  sandbox = makeSandbox();
  worktree = path.join(sandbox.worktreeRoot, 'repo-key', '20261126-000000-abcd', 'honest');
  await createWorktree(sandbox.repo, worktree, 'hydra/20261126-000000-abcd/honest', 'HEAD');
  await snapshotGitDir(sandbox.repo);
  exclude = path.join(sandbox.repo, '.git', 'info', 'exclude');
});

afterEach(() => sandbox.cleanup());

describe("another agent's exclude, put back while an agent stages", () => {
  it('still stages the files it hid from the add', async () => {
    const before = readFileSync(exclude, 'utf8');
    writeFileSync(exclude, `${before}*\n`);
    writeFileSync(path.join(worktree, 'new.txt'), 'new work\n');
    const pinned = await pinWorktree(sandbox.repo, worktree);
    const commonDir = pinned.commonDir ?? '';
    const git = (args: readonly string[], input?: string) =>
      runPinned(pinned, args, input === undefined ? {} : { input });

    const changed = await excludeChanged(commonDir);
    expect(changed).toBe(true);
    await runPinned(pinned, ['add', '-A']);
    // The writer settles now: its exclude is put back.
    writeFileSync(exclude, before);
    expect(await excludeChanged(commonDir)).toBe(false);
    // Asked only after the add (as before), nothing would be staged.
    await addHidden(commonDir, git);
    expect((await runPinned(pinned, ['diff', '--cached', '--name-only'])).stdout).toBe('');
    await addHidden(commonDir, git, changed);
    expect((await runPinned(pinned, ['diff', '--cached', '--name-only'])).stdout).toBe('new.txt\n');
  });
});
