/**
 * The invariants every fault test checks after the fault: the user's repository exactly as before
 * (working tree, index, stash, refs), no process of the race alive, nothing left that `hydra clean`
 * cannot remove, and records that still read. Worktrees of the warm pool are the one documented
 * exception to "no worktree left": kept on purpose, and removed by `hydra clean`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { git, processesOfRun, repoState } from './engine-helpers.js';

/** Everything of the user's that a race must leave alone. */
export interface UserState {
  repo: ReturnType<typeof repoState>;
  /** Every ref except hydra's own (`refs/heads/hydra/...`), with what it points at. */
  refs: string;
  /** `git stash list` with the commit of each entry. */
  stash: string;
}

const userRefs = (repo: string): string =>
  git(repo, 'for-each-ref', '--format=%(refname) %(objectname)')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('refs/heads/hydra/'))
    .join('\n');

const stashList = (repo: string): string => {
  try {
    return git(repo, 'stash', 'list', '--format=%H %gs');
  } catch {
    return '';
  }
};

/** Takes the user's state before the fault. */
export const captureUserState = (repo: string): UserState => ({
  repo: repoState(repo),
  refs: userRefs(repo),
  stash: stashList(repo),
});

/** The user's working tree, index, HEAD, stash and refs are byte for byte what they were. */
export const expectUserStateUnchanged = (repo: string, before: UserState): void => {
  expect(repoState(repo)).toEqual(before.repo);
  expect(userRefs(repo)).toBe(before.refs);
  expect(stashList(repo)).toBe(before.stash);
};

/** No process carrying the run's marker is alive. */
export const expectNoProcessOfRun = (runId: string): void => {
  expect(processesOfRun(runId)).toEqual([]);
};

const listedWorktrees = (repo: string): string[] =>
  git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
    .filter((dir) => path.resolve(dir) !== path.resolve(repo));

/** In the warm worktree pool (`<worktree root>/<repo key>/.pool/`, see worktreePoolDir). */
const inPool = (dir: string): boolean => path.basename(path.dirname(dir)) === '.pool';

/**
 * Worktrees git knows about, other than the main one and the pool's. The documented exception:
 * with `worktree_pool` set, idle worktrees (detached, on no branch) stay in the pool between races
 * by design; `hydra clean` removes them (see poolWorktrees).
 */
export const extraWorktrees = (repo: string): string[] => listedWorktrees(repo).filter((dir) => !inPool(dir));

/** The idle worktrees of the warm worktree pool. */
export const poolWorktrees = (repo: string): string[] => listedWorktrees(repo).filter(inPool);

/** Branches hydra made (`hydra/...`). */
export const hydraBranches = (repo: string): string[] =>
  git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/hydra/')
    .split('\n')
    .filter((line) => line !== '');

/** Every JSON record of every run under `.hydra/runs` parses. */
export const expectRecordsReadable = (repo: string): void => {
  const root = path.join(repo, '.hydra', 'runs');
  if (!existsSync(root)) return;
  for (const run of readdirSync(root)) {
    const dir = path.join(root, run);
    for (const name of readdirSync(dir).filter((file) => file.endsWith('.json'))) {
      expect(
        () => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as unknown,
        `${run}/${name}`,
      ).not.toThrow();
    }
  }
};
