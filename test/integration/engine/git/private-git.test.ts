/**
 * An agent's private repository (src/engine/git/private-git.ts) on its own, with real git: what
 * the agent sees, what comes back, the worktree's index after, and a worktree left linked to it
 * (hydra killed while the agent ran) repaired and removed without leftovers.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bringBackPrivateGit,
  commitAgentResult,
  createWorktree,
  pinWorktree,
  preparePrivateGit,
  removeRunDirIfEmpty,
  removeWorktrees,
  privateGitDirOf,
  snapshotRefs,
} from '../../../../src/engine/git/index.js';
import { agentPrivateGitDir } from '../../../../src/engine/records/index.js';
import { git, makeSandbox } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let runDir: string;
let worktree: string;
const branch = 'hydra/20261126-000000-abcd/agent';

beforeEach(async () => {
  sandbox = makeSandbox();
  runDir = path.join(sandbox.worktreeRoot, 'repo-key', '20261126-000000-abcd');
  worktree = path.join(runDir, 'agent');
  await createWorktree(sandbox.repo, worktree, branch, 'HEAD');
  const refs = await snapshotRefs(sandbox.repo, '20261126-000000-abcd');
  await preparePrivateGit({ root: sandbox.repo, worktree, branch, refs: refs.refs });
});

afterEach(() => sandbox.cleanup());

const privateDir = (): string => path.join(runDir, '.git-private', 'agent');

describe("an agent's private repository", () => {
  it("is the worktree's repository while the agent runs: its branch, the user's refs, a clean status", () => {
    // The directory the sandbox leaves writable is the one git uses.
    expect(privateGitDirOf(worktree)).toBe(agentPrivateGitDir(runDir, 'agent'));
    expect(readFileSync(path.join(worktree, '.git'), 'utf8')).toBe(`gitdir: ${privateDir()}\n`);
    expect(git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(branch);
    expect(git(worktree, 'status', '--porcelain')).toBe('');
    expect(git(worktree, 'rev-parse', 'main').trim()).toBe(git(sandbox.repo, 'rev-parse', 'main').trim());
    expect(git(worktree, 'rev-parse', '--git-common-dir').trim()).toBe(privateDir());
  });

  it('comes back as the exact worktree content, a file the agent force-added past .gitignore included', async () => {
    writeFileSync(path.join(worktree, '.gitignore'), '*.log\n');
    writeFileSync(path.join(worktree, 'kept.log'), 'forced\n');
    writeFileSync(path.join(worktree, 'app.txt'), 'changed\n');
    git(worktree, 'add', '.gitignore', 'app.txt');
    git(worktree, 'add', '-f', 'kept.log');
    git(worktree, 'commit', '-q', '-m', 'agent');
    git(worktree, 'rm', '-q', 'README.md');
    writeFileSync(path.join(worktree, 'new.txt'), 'new\n');

    const back = await bringBackPrivateGit({ root: sandbox.repo, worktree, branch });
    expect(back).toEqual({ head: { onOwnBranch: true, switchedTo: null }, warnings: [] });
    expect(existsSync(privateDir())).toBe(false);
    const pinned = await pinWorktree(sandbox.repo, worktree);
    const result = await commitAgentResult(pinned, branch, 'hydra: result', { head: back!.head });
    expect(git(sandbox.repo, 'log', '--format=%s', branch).trim().split('\n')).toEqual([
      'hydra: result',
      'agent',
      'init',
    ]);
    expect(
      git(sandbox.repo, 'ls-tree', '-r', '--name-only', result.commit).trim().split('\n').sort(),
    ).toEqual(['.gitignore', 'app.txt', 'kept.log', 'new.txt']);
    expect(git(sandbox.repo, 'show', `${result.commit}:kept.log`)).toBe('forced\n');
    expect(git(worktree, 'status', '--porcelain')).toBe('');
  });

  it('a worktree left linked to it (hydra killed mid-agent) is linked back, its commits kept, and removed with nothing left', async () => {
    writeFileSync(path.join(worktree, 'one.txt'), 'one\n');
    git(worktree, 'add', 'one.txt');
    git(worktree, 'commit', '-q', '-m', 'agent one');

    await removeWorktrees(sandbox.repo, [{ dir: worktree, area: runDir }]);
    await removeRunDirIfEmpty(runDir);

    expect(git(sandbox.repo, 'log', '--format=%s', branch).trim().split('\n')).toEqual(['agent one', 'init']);
    expect(existsSync(runDir)).toBe(false);
    expect(git(sandbox.repo, 'worktree', 'list', '--porcelain')).not.toContain(worktree);
    const entries = path.join(sandbox.repo, '.git', 'worktrees');
    expect(existsSync(entries) ? readdirSync(entries) : []).toEqual([]);
  });
});
