/**
 * Agent worktrees and branches, made and removed: each agent works on `hydra/<run-id>/<agent>` in
 * its own worktree outside the repository, so no agent touches the user's checkout or another's.
 * (Pinning is in pinned.ts, the pool in pool.ts, the result commit in result-commit.ts.)
 */
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EngineError } from '../errors.js';
import { GitCommandError, NO_HOOKS, runGit } from './git.js';
import type { RunGitOptions } from './git.js';
import { removePrivateGit, repairPrivateGit } from './private-git.js';
import { removeShareLayers, SHARE_DIR } from '../process/index.js';

/** How a worktree is made: cancellable, time-limited, named in errors, marked with the run's id. */
export type WorktreeGitOptions = Pick<
  RunGitOptions,
  'signal' | 'timeoutMs' | 'graceMs' | 'step' | 'env' | 'processes' | 'owner'
>;

/**
 * Refuses a worktree directory or branch that already exists: it is not hydra's to reuse or remove.
 * `branchesAtStart`: the run's own branches as the race's ref snapshot found them a moment ago,
 * under the run's lock (RefSnapshot.runBranches): asked of them, not of git once more.
 */
export async function assertWorktreeFree(
  root: string,
  dir: string,
  branch: string,
  branchesAtStart?: readonly string[],
): Promise<void> {
  if (existsSync(dir)) {
    throw new EngineError({
      kind: 'SpawnFailed',
      message: `The worktree directory ${dir} already exists.`,
      hint: 'Run `hydra clean` to remove left-overs of earlier runs (or move that directory away), then try again.',
    });
  }
  const exists =
    branchesAtStart === undefined
      ? await branchExists(root, branch)
      : branchesAtStart.includes(`refs/heads/${branch}`);
  if (exists) {
    throw new EngineError({
      kind: 'SpawnFailed',
      message: `Branch ${branch} already exists.`,
      hint: `Run \`hydra clean\` to remove left-overs of earlier runs (or rename that branch: \`git branch -m ${branch} <new-name>\`), then try again.`,
    });
  }
}

/**
 * Creates the agent's worktree and branch from the base commit, without the user's hooks (see
 * NO_HOOKS). A failure names the step; the caller removes whatever git left (a failed checkout
 * keeps the new branch, a killed one can keep a half-made worktree). The caller checks first with
 * assertWorktreeFree (it must know what existed before, so as not to roll back someone else's);
 * `git worktree add -b` itself still refuses an existing branch or a non-empty directory.
 *
 * `git worktree add` runs one at a time per repository (see below), and its checkout is most of
 * its time in a large repository. With `separateCheckout`, the worktree is added without its files
 * (`--no-checkout`, milliseconds) and they are checked out after, outside the queue, so the agents
 * of a race check theirs out at once (`read-tree -m -u HEAD`: the index and files of HEAD, as
 * `worktree add` does, filters included).
 */
export async function createWorktree(
  root: string,
  dir: string,
  branch: string,
  baseRef: string,
  options: WorktreeGitOptions & { separateCheckout?: boolean } = {},
): Promise<void> {
  const { separateCheckout = false, ...gitOptions } = options;
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  for (let attempt = 1; ; attempt += 1) {
    try {
      // In this process they run one at a time (the agents of a race are prepared together);
      // another process's (another race's) is what the retry below is for.
      await oneAtATime(root, () =>
        runGit(
          root,
          [
            ...NO_HOOKS,
            'worktree',
            'add',
            '--quiet',
            ...(separateCheckout ? ['--no-checkout'] : []),
            '-b',
            branch,
            dir,
            baseRef,
          ],
          gitOptions,
        ),
      );
      break;
    } catch (error) {
      if (attempt >= ADMIN_DIR_ATTEMPTS || !lostAdminDirRace(error)) throw error;
      // git made the branch before it lost the race; it is this run's, so it goes before the retry.
      await deleteBranch(root, branch);
      await sleep(25 * attempt);
    }
  }
  if (separateCheckout) await runGit(dir, [...NO_HOOKS, 'read-tree', '-m', '-u', 'HEAD'], gitOptions);
}

/**
 * Whether a repository is large enough for its agents' checkouts to run at once (createWorktree's
 * `separateCheckout`): its index (the base's files, ~80 bytes each) is over 512 KiB, some 6,000
 * files, where a checkout takes long enough to be worth a second git process per agent.
 */
export async function largeCheckout(root: string): Promise<boolean> {
  try {
    return (await stat(path.join(root, '.git', 'index'))).size > LARGE_INDEX_BYTES;
  } catch {
    // A repository whose .git is a file (a linked worktree, a submodule): checked out as usual.
    return false;
  }
}

const LARGE_INDEX_BYTES = 512 * 1024;

/** Tries of `git worktree add` when another one took the same administrative directory. */
const ADMIN_DIR_ATTEMPTS = 4;

/**
 * git names a worktree's administrative directory (`.git/worktrees/<name>`) after the worktree's
 * folder, numbering it when the name is taken; two `git worktree add`s at the same moment (two
 * races in one repository) can pick the same number ("could not create directory of"), or one can
 * read the other's directory before git has written it ("failed to read
 * .git/worktrees/<name>/commondir"); the loser stops before making anything but the branch (git
 * removes its own half-made directories when it dies). Such a failure is worth another try.
 */
const lostAdminDirRace = (error: unknown): boolean =>
  error instanceof GitCommandError &&
  error.failure === 'failed' &&
  /(could not create directory of|failed to read) '?[^']*worktrees[/\\]/.test(error.result.stderr);

/**
 * A worktree at the base commit with no branch (the checks' baseline), without the user's hooks,
 * and whole: a sparse checkout's patterns (`git sparse-checkout set src`, which `worktree add`
 * copies from the current worktree) would leave the files outside them missing and marked
 * skip-worktree, and checks judge everything the commit holds.
 */
export async function createDetachedWorktree(
  root: string,
  dir: string,
  baseRef: string,
  options: WorktreeGitOptions = {},
): Promise<void> {
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  for (let attempt = 1; ; attempt += 1) {
    try {
      await oneAtATime(root, () =>
        runGit(
          root,
          [
            ...NO_HOOKS,
            '-c',
            'core.sparseCheckout=false',
            'worktree',
            'add',
            '--quiet',
            '--detach',
            dir,
            baseRef,
          ],
          options,
        ),
      );
      return;
    } catch (error) {
      // Another race's `git worktree add` took the same administrative directory: try again.
      if (attempt >= ADMIN_DIR_ATTEMPTS || !lostAdminDirRace(error)) throw error;
      await sleep(25 * attempt);
    }
  }
}

/** The `git worktree add` queue of each repository in this process. */
const worktreeQueues = new Map<string, Promise<unknown>>();

/** Runs `work` after every `git worktree` change this process started in `root` (see createWorktree). */
export const oneAtATime = <T>(root: string, work: () => Promise<T>): Promise<T> => {
  const previous = worktreeQueues.get(root) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  worktreeQueues.set(root, settled);
  void settled.then(() => {
    if (worktreeQueues.get(root) === settled) worktreeQueues.delete(root);
  });
  return next;
};

/**
 * Makes an agent's worktree again from its existing branch (a follow-up or a shell after the race
 * removed it). The branch must exist; the directory must not.
 */
export async function reopenWorktree(
  root: string,
  dir: string,
  branch: string,
  options: WorktreeGitOptions = {},
): Promise<void> {
  if (!(await branchExists(root, branch))) {
    throw new EngineError({
      kind: 'Refused',
      message: `Branch ${branch} is gone, so its result cannot be reopened.`,
      hint: 'It was merged or cleaned; start a new race (or `hydra rerun` another agent of the run).',
    });
  }
  if (existsSync(dir)) {
    throw new EngineError({
      kind: 'SpawnFailed',
      message: `${dir} exists but is not the worktree of ${branch}.`,
      hint: 'Move that directory away (or run `hydra clean`), then try again.',
    });
  }
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  await oneAtATime(root, () =>
    runGit(root, [...NO_HOOKS, 'worktree', 'add', '--quiet', dir, branch], options),
  );
}

const inside = (parent: string, child: string): boolean => {
  const relative = path.relative(parent, child);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

/**
 * Removes a worktree (even with changes in it). Missing is fine. When git cannot remove it, the
 * directory is deleted only if it really lies inside `area` (hydra's directory for the run): never
 * anything outside hydra's worktree root. See removeWorktrees.
 */
export async function removeWorktree(root: string, dir: string, area: string): Promise<void> {
  await removeWorktrees(root, [{ dir, area }]);
}

/**
 * Removes worktrees all at once (`git worktree remove` of different worktrees do not share a lock
 * or a file: each deletes its own directory and its own entry in `.git/worktrees`), then prunes
 * git's bookkeeping once, and only when an entry can be left over: a worktree that was already
 * gone, or one git could not remove (its directory is deleted instead, if it really lies inside
 * its `area`). Every removal is tried; the first failure is thrown after the others are done.
 */
export async function removeWorktrees(
  root: string,
  worktrees: ReadonlyArray<{ dir: string; area: string }>,
): Promise<void> {
  let prune = false;
  const removals = await Promise.allSettled(
    worktrees.map(async ({ dir, area }) => {
      // Its layers of the shared directories (`[setup] share`) go with it.
      await removeShareLayers(dir);
      if (!existsSync(dir)) {
        prune = true;
        await removePrivateGit(dir);
        return;
      }
      // Still linked to the agent's own repository (hydra died while it ran): linked back first,
      // so git can remove it as its own (private-git.ts).
      await repairPrivateGit(root, dir).catch(() => undefined);
      await removePrivateGit(dir);
      try {
        await runGit(root, ['worktree', 'remove', '--force', '--force', dir]);
      } catch (error) {
        // Not (or no longer) a registered worktree: remove the directory itself, if it is hydra's.
        prune = true;
        if (!inside(area, dir) || !inside(realpathSync(area), realpathSync(dir))) throw error;
        await rm(dir, { recursive: true, force: true });
      }
    }),
  );
  if (prune) await runGit(root, ['worktree', 'prune']);
  const failed = removals.find((removal) => removal.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

/** Those of `branches` that exist, in one `for-each-ref`. */
export async function existingBranches(root: string, branches: readonly string[]): Promise<string[]> {
  if (branches.length === 0) return [];
  const wanted = new Set(branches.map((branch) => `refs/heads/${branch}`));
  const { stdout } = await runGit(root, ['for-each-ref', '--format=%(refname)', ...wanted]);
  const found = new Set(stdout.split('\n'));
  return [...new Set(branches)].filter((branch) => found.has(`refs/heads/${branch}`));
}

export async function branchExists(root: string, branch: string): Promise<boolean> {
  const result = await runGit(root, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], {
    okExitCodes: [1],
  });
  return result.exitCode === 0;
}

export async function deleteBranch(root: string, branch: string): Promise<boolean> {
  if (!(await branchExists(root, branch))) return false;
  await runGit(root, [...NO_HOOKS, 'branch', '-D', branch]);
  return true;
}

/**
 * Deletes those of `branches` that exist, in one `git branch -D` (one update of packed-refs, where
 * several at once would wait on each other's lock); returns the ones deleted. When git refuses one
 * (checked out somewhere), they are deleted one by one, so the others still go and the failure is
 * the refused branch's.
 */
export async function deleteBranches(root: string, branches: readonly string[]): Promise<string[]> {
  const existing = await existingBranches(root, branches);
  if (existing.length === 0) return [];
  const all = await runGit(root, [...NO_HOOKS, 'branch', '-D', ...existing], { okExitCodes: [1] });
  if (all.exitCode === 0) return existing;
  const deleted: string[] = [];
  let refused: unknown = null;
  for (const branch of existing) {
    try {
      if (await deleteBranch(root, branch)) deleted.push(branch);
    } catch (error) {
      refused ??= error;
    }
  }
  if (refused !== null) throw refused;
  return deleted;
}

/**
 * Removes a run's scratch space and its worktree directory once nothing else is left in it, then
 * the repository's directory above it (`<worktree root>/<repo key>`) when that is empty too.
 */
export async function removeRunDirIfEmpty(runDir: string): Promise<void> {
  await rm(path.join(runDir, '.scratch'), { recursive: true, force: true });
  await rmdir(path.join(runDir, '.git-private')).catch(() => undefined);
  // The agents' CLI state copies (sandbox/cli-state.ts), once no kept result needs one.
  await rmdir(path.join(runDir, '.state')).catch(() => undefined);
  await rmdir(path.join(runDir, SHARE_DIR)).catch(() => undefined);
  for (const dir of [runDir, path.dirname(runDir)]) {
    try {
      await rmdir(dir);
    } catch {
      // not empty (kept worktrees, another run) or already gone
      return;
    }
  }
}
