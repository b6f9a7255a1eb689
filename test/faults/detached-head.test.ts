/**
 * Fault: the user's repository is on a detached HEAD when a race starts. There is no branch to
 * merge a result into, so the race is refused before anything is made (exit 1, as
 * `hydra race --help` documents a failed race) with a hint to get onto a branch, and nothing created (no worktree, branch, record).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../cli/helpers.js';
import { createRepo, createSandbox, git, hydra, installFakes } from '../cli/helpers.js';
import { extraWorktrees, hydraBranches } from './invariants.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
  git(repo, ['switch', '--quiet', '--detach']);
});

afterEach(() => sandbox.cleanup());

describe('a detached HEAD at race start', () => {
  it('is refused with a hint, and nothing is created', async () => {
    const head = git(repo, ['rev-parse', 'HEAD']);
    const status = git(repo, ['status', '--porcelain']);

    const result = await hydra(['race', '--json', '--agents', 'claude', 'Add a hello.txt file'], {
      cwd: repo,
      env: sandbox.env,
    });

    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/HEAD is detached/);
    expect(result.stderr).toMatch(/git switch <branch>/);
    expect(git(repo, ['rev-parse', 'HEAD'])).toBe(head);
    expect(git(repo, ['status', '--porcelain'])).toBe(status);
    expect(extraWorktrees(repo)).toEqual([]);
    expect(hydraBranches(repo)).toEqual([]);
    expect(existsSync(path.join(repo, '.hydra', 'runs'))).toBe(false);
  });
});
