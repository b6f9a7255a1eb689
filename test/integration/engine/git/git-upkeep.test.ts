/**
 * hydra's own git commands start none of git's upkeep (`git maintenance run --auto` after a commit,
 * a cherry-pick or a fetch): a repository whose config asks for a commit-graph after every commit
 * gets one from the user's commit, none from hydra's.
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HYDRA_IDENTITY, runGit } from '../../../../src/engine/git/git.js';
import { git } from '../../../support/cli-helpers.js';

let dir: string | null = null;

afterEach(() => {
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** A repository whose upkeep writes a commit-graph after any commit that starts it. */
const eagerRepository = async (): Promise<string> => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-git-upkeep-'));
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['config', 'maintenance.gc.enabled', 'false']);
  git(dir, ['config', 'maintenance.commit-graph.enabled', 'true']);
  git(dir, ['config', 'maintenance.commit-graph.auto', '1']);
  writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  git(dir, ['add', 'a.txt']);
  return dir;
};

const commitGraph = (repo: string): boolean =>
  existsSync(path.join(repo, '.git', 'objects', 'info', 'commit-graphs')) ||
  existsSync(path.join(repo, '.git', 'objects', 'info', 'commit-graph'));

describe("git's upkeep", () => {
  it("starts after the user's commit (the repository asks for it), not after hydra's", async () => {
    const users = await eagerRepository();
    await execa('git', ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'the user'], {
      cwd: users,
      stdin: 'ignore',
      env: { ...HYDRA_IDENTITY },
    });
    expect(commitGraph(users), 'the repository set-up no longer starts upkeep').toBe(true);
    rmSync(users, { recursive: true, force: true });

    const hydras = await eagerRepository();
    await runGit(hydras, ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'hydra'], {
      env: { ...HYDRA_IDENTITY },
    });
    expect((await runGit(hydras, ['rev-list', '--count', 'HEAD'])).stdout.trim()).toBe('1');
    expect(commitGraph(hydras)).toBe(false);
  });
});
