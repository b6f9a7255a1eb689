/**
 * Agent worktrees and branches. Each agent works on `hydra/<run-id>/<agent>` in its own worktree
 * outside the repository; when it settles, hydra commits whatever it changed there (as "hydra",
 * hooks and signing off), so every result is a commit that can be diffed, merged or inspected.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { lstat, mkdir, readFile, readdir, realpath, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DiffSummary, FileStat } from '../types.js';
import { EngineError } from '../errors.js';
import { GitCommandError, HYDRA_IDENTITY, NO_HOOKS, gitLine, runGit, splitZ } from './git.js';
import type { GitResult, RunGitOptions } from './git.js';
import { addHidden, hardeningArgs } from './git-dir.js';

/** Flags for every commit hydra makes on its own branches. */
const COMMIT_FLAGS = ['-c', 'commit.gpgsign=false', ...NO_HOOKS];

/** How a worktree is made: cancellable, time-limited, named in errors, marked with the run's id. */
export type WorktreeGitOptions = Pick<
  RunGitOptions,
  'signal' | 'timeoutMs' | 'graceMs' | 'step' | 'env' | 'processes' | 'owner'
>;

/** Refuses a worktree directory or branch that already exists: it is not hydra's to reuse or remove. */
export async function assertWorktreeFree(root: string, dir: string, branch: string): Promise<void> {
  if (existsSync(dir)) {
    throw new EngineError(
      'SpawnFailed',
      `The worktree directory ${dir} already exists.`,
      'Run `hydra clean` to remove left-overs of earlier runs (or move that directory away), then try again.',
    );
  }
  if (await branchExists(root, branch)) {
    throw new EngineError(
      'SpawnFailed',
      `Branch ${branch} already exists.`,
      `Run \`hydra clean\` to remove left-overs of earlier runs (or rename that branch: \`git branch -m ${branch} <new-name>\`), then try again.`,
    );
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

/** A worktree at the base commit with no branch (the checks' baseline), without the user's hooks. */
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
        runGit(root, [...NO_HOOKS, 'worktree', 'add', '--quiet', '--detach', dir, baseRef], options),
      );
      return;
    } catch (error) {
      // Another race's `git worktree add` took the same administrative directory: try again.
      if (attempt >= ADMIN_DIR_ATTEMPTS || !lostAdminDirRace(error)) throw error;
      await sleep(25 * attempt);
    }
  }
}

/**
 * Takes an idle worktree from the pool (`pool`, see worktreePoolDir) and makes it the agent's:
 * moved to `dir` (`git worktree move`, which is also the claim: of two races after the same one,
 * the second finds nothing to move and tries the next), then reset to the base on a new `branch`
 * (`checkout --force -b` and `clean -ffdx`, hooks off), so git updates only the files that differ.
 * False when the pool has none to give (the caller makes one with createWorktree). A pooled
 * worktree that is no longer sound (git will not move it, or its `.git` is broken) is removed and
 * skipped. The caller checks
 * `dir` and `branch` with assertWorktreeFree first and rolls back `dir` and `branch` on a throw.
 */
export async function takePooledWorktree(
  root: string,
  pool: string,
  dir: string,
  branch: string,
  baseRef: string,
  options: WorktreeGitOptions = {},
): Promise<boolean> {
  const idle = (await readdir(pool).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));
  if (idle.length === 0) return false;
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  for (const name of idle) {
    const from = path.join(pool, name);
    const moved = await oneAtATime(root, () =>
      runGit(root, ['worktree', 'move', from, dir], { ...options, okExitCodes: [128] }),
    );
    if (moved.exitCode !== 0) {
      // Still there: git refused to move it (its `.git` no longer points back): not worth keeping.
      if (existsSync(from)) await removeWorktree(root, from, pool).catch(() => undefined);
      continue;
    }
    const pinned = await pinWorktree(root, dir).catch(() => null);
    if (pinned === null) {
      await removeWorktree(root, dir, path.dirname(dir));
      continue;
    }
    // Nothing the last race's agent set for this worktree alone (`git config --worktree`) carries over.
    await rm(path.join(pinned.gitDir, 'config.worktree'), { force: true });
    await runPinned(pinned, ['checkout', '-q', '--force', '-b', branch, baseRef], options);
    await runPinned(pinned, ['clean', '-ffdxq'], options);
    return true;
  }
  return false;
}

/**
 * Gives an agent's worktree back to the pool instead of removing it, when the pool holds fewer
 * than `size`: detached (so its branch can be deleted), changes dropped, moved under `pool`. False
 * when it was not pooled (the pool is full, the worktree is no longer sound, git refused the
 * move, e.g. for submodules); the caller then removes it as usual.
 */
export async function returnToPool(root: string, dir: string, pool: string, size: number): Promise<boolean> {
  const held = (await readdir(pool).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));
  if (held.length >= size) return false;
  try {
    const pinned = await pinWorktree(root, dir);
    await runPinned(pinned, ['checkout', '-q', '--force', '--detach']);
    await mkdir(pool, { recursive: true, mode: 0o700 });
    await oneAtATime(root, () => runGit(root, ['worktree', 'move', dir, path.join(pool, randomUUID())]));
    return true;
  } catch {
    return false;
  }
}

/** Every idle worktree of the pool. */
export async function pooledWorktrees(pool: string): Promise<string[]> {
  const names = await readdir(pool).catch(() => [] as string[]);
  return names.filter((name) => !name.startsWith('.')).map((name) => path.join(pool, name));
}

/** The `git worktree add` queue of each repository in this process. */
const worktreeQueues = new Map<string, Promise<unknown>>();

const oneAtATime = <T>(root: string, work: () => Promise<T>): Promise<T> => {
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
    throw new EngineError(
      'Refused',
      `Branch ${branch} is gone, so its result cannot be reopened.`,
      'It was merged or cleaned; start a new race (or `hydra rerun` another agent of the run).',
    );
  }
  if (existsSync(dir)) {
    throw new EngineError(
      'SpawnFailed',
      `${dir} exists but is not the worktree of ${branch}.`,
      'Move that directory away (or run `hydra clean`), then try again.',
    );
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
      if (!existsSync(dir)) {
        prune = true;
        return;
      }
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
  if (branches.length === 0) return [];
  const wanted = new Set(branches.map((branch) => `refs/heads/${branch}`));
  const { stdout } = await runGit(root, ['for-each-ref', '--format=%(refname)', ...wanted]);
  const found = new Set(stdout.split('\n'));
  const existing = [...new Set(branches)].filter((branch) => found.has(`refs/heads/${branch}`));
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
 * An agent's worktree pinned to the repository hydra made it in: every git command hydra runs there
 * names the worktree's git directory (`<repo>/.git/worktrees/<id>`) and the work tree explicitly,
 * so nothing the agent did to the worktree's `.git` (deleted it, `git init` a repository of its
 * own, pointed it elsewhere) can make hydra commit in another repository.
 */
export interface PinnedWorktree {
  root: string;
  worktree: string;
  /** The worktree's entry in the repository's git directory. */
  gitDir: string;
  /** The repository's shared git directory. */
  commonDir?: string;
  /** `-c` switches against config an agent added since the race started (git-dir.ts). */
  guard?: string[];
}

/**
 * The repository's common git directory, asked of git once per repository in this process (every
 * agent of a race settles in the same one); a failed answer is asked again next time.
 */
const commonDirs = new Map<string, Promise<string>>();

/**
 * Asks for the repository's common git directory ahead of time (an agent started: its settling will
 * need it), so the question is off the path from the agent's exit to its result. Never fails.
 */
export const knowRepository = (root: string): void => {
  commonDirOf(root).catch(() => undefined);
};

const commonDirOf = (root: string): Promise<string> => {
  const known = commonDirs.get(root);
  if (known !== undefined) return known;
  const asked = gitLine(root, ['rev-parse', '--git-common-dir']).then((dir) => path.resolve(root, dir));
  commonDirs.set(root, asked);
  asked.catch(() => commonDirs.delete(root));
  return asked;
};

const realOrResolved = async (file: string): Promise<string> =>
  realpath(file).catch(() => path.resolve(file));

const brokenWorktree = (root: string, worktree: string, detail: string): EngineError =>
  new EngineError(
    'AgentFailed',
    `The agent broke its worktree ${worktree}: ${detail}, so it is no longer linked to ${root}. Hydra committed nothing; the agent's files are kept there.`,
    `Copy what you need from ${worktree}, then run \`hydra clean\` to remove it.`,
  );

/**
 * Checks that the worktree's `.git` is still the file git wrote, pointing at this repository's entry
 * for it, and that the entry points back; then every later command can name both explicitly.
 */
export async function pinWorktree(root: string, worktree: string): Promise<PinnedWorktree> {
  const commonDir = await commonDirOf(root);
  const entries = path.join(commonDir, 'worktrees');
  const realWorktree = await realOrResolved(worktree);
  let gitDir: string | null = null;
  for (const name of await readdir(entries).catch(() => [] as string[])) {
    const back = await readFile(path.join(entries, name, 'gitdir'), 'utf8').catch(() => null);
    if (back === null || back.trim() === '') continue;
    if ((await realOrResolved(path.dirname(back.trim()))) === realWorktree) {
      gitDir = path.join(entries, name);
      break;
    }
  }
  if (gitDir === null) throw brokenWorktree(root, worktree, 'the repository has no worktree entry for it');
  const dotGit = path.join(worktree, '.git');
  const stat = await lstat(dotGit).catch(() => null);
  if (stat === null) throw brokenWorktree(root, worktree, 'its .git was deleted');
  if (stat.isDirectory())
    throw brokenWorktree(root, worktree, 'its .git is a repository of its own (made by `git init`)');
  if (!stat.isFile()) throw brokenWorktree(root, worktree, 'its .git is no longer a plain file');
  const pointer = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8'))?.[1]?.trim();
  if (
    pointer === undefined ||
    (await realOrResolved(path.resolve(worktree, pointer))) !== (await realOrResolved(gitDir))
  ) {
    throw brokenWorktree(root, worktree, `its .git points at ${pointer ?? 'nothing'} instead of ${gitDir}`);
  }
  const guard = await hardeningArgs(commonDir, worktree, ['--git-dir', gitDir]);
  return { root, worktree, gitDir, commonDir, guard };
}

/**
 * Runs git on a pinned worktree, naming its git directory and work tree. Hooks are off: hydra's own
 * bookkeeping there (detaching, committing, replaying) runs no hook.
 */
const runPinned = (
  pinned: PinnedWorktree,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<GitResult> => runGit(pinned.worktree, pinnedArgs(pinned, args), options);

const pinnedArgs = (pinned: PinnedWorktree, args: readonly string[]): string[] => [
  '--git-dir',
  pinned.gitDir,
  '--work-tree',
  pinned.worktree,
  '-c',
  'core.hooksPath=/dev/null',
  ...(pinned.guard ?? []),
  ...args,
];

const pinnedLine = async (pinned: PinnedWorktree, args: readonly string[]): Promise<string> =>
  (await runPinned(pinned, args)).stdout.trim();

/** The branch the worktree's HEAD is on (`refs/heads/...`), or null when detached. */
async function worktreeBranch(pinned: PinnedWorktree): Promise<string | null> {
  const current = await runPinned(pinned, ['symbolic-ref', '-q', 'HEAD'], { okExitCodes: [1] });
  return current.exitCode === 0 ? current.stdout.trim() : null;
}

/** Where an agent left its worktree's HEAD, once hydra has let go of any branch not its own. */
export interface WorktreeHead {
  /** HEAD is on the agent's own branch: a commit there moves the branch, so its tip is HEAD. */
  onOwnBranch: boolean;
  /** The branch the agent had switched to (now detached from), or null. */
  switchedTo: string | null;
}

/**
 * Detaches the worktree's HEAD (keeping every file as it is) when the agent switched it to a branch
 * other than its own, possibly one of the user's: from here on no branch but hydra's moves. Says
 * where HEAD was. `staging` is a `git add` of the same worktree in progress (stageChanges): the
 * checkout waits for it (both take the index's lock; detaching leaves the index as it is).
 */
export async function detachFromForeignBranch(
  pinned: PinnedWorktree,
  branch: string,
  staging?: Promise<unknown>,
): Promise<WorktreeHead> {
  const current = await worktreeBranch(pinned);
  if (current === null) return { onOwnBranch: false, switchedTo: null };
  if (current === `refs/heads/${branch}`) return { onOwnBranch: true, switchedTo: null };
  await staging?.catch(() => undefined);
  await runPinned(pinned, ['checkout', '-q', '--detach']);
  return { onOwnBranch: false, switchedTo: current };
}

/**
 * Stages everything the agent changed in its worktree (new files included, `git add -A`). It does
 * not depend on where HEAD is, so it can run while detachFromForeignBranch looks.
 */
export const stageChanges = async (pinned: PinnedWorktree): Promise<void> => {
  await runPinned(pinned, ['add', '-A']);
  // What another agent's new `info/exclude` hides is staged too (git-dir.ts).
  if (pinned.commonDir !== undefined)
    await addHidden(pinned.commonDir, (args, input) =>
      runPinned(pinned, args, input === undefined ? {} : { input }),
    );
};

const revList = async (pinned: PinnedWorktree, args: readonly string[]): Promise<string[]> =>
  (await pinnedLine(pinned, ['rev-list', '--topo-order', '--reverse', ...args]))
    .split('\n')
    .filter((line) => line !== '');

interface AgentResult {
  commit: string;
  warnings: string[];
  /** Its diff against `diffBase`, when that was given. */
  diff?: DiffSummary;
}

/**
 * Commits everything the agent changed in its worktree (new files included) and points the agent's
 * branch at its result. Makes no commit when nothing changed (the result is then the base).
 *
 * The result is where the worktree's HEAD is, except when the agent left its own branch for
 * commits that were already there when the race started (`git checkout dev`, one of the user's):
 * then only the commits the agent made (those reachable from no ref of `tipsAtStart`) are replayed
 * onto its own branch, so the result keeps what it committed there before and none of the user's
 * commits it switched to.
 */
export async function commitAgentResult(
  pinned: PinnedWorktree,
  branch: string,
  message: string,
  options: {
    /** Every ref's commit when the race started. */
    tipsAtStart?: readonly string[];
    /** Where HEAD was, when the caller already let go of a foreign branch (detachFromForeignBranch). */
    head?: WorktreeHead;
    /** The caller's stageChanges of this worktree; without it, the changes are staged here. */
    staged?: Promise<void>;
    /** Also diff the result against this commit (the base). */
    diffBase?: string;
  } = {},
): Promise<AgentResult> {
  const tipsAtStart = options.tipsAtStart ?? [];
  const { onOwnBranch, switchedTo } = options.head ?? (await detachFromForeignBranch(pinned, branch));
  await (options.staged ?? stageChanges(pinned));
  await commitIndex(pinned, message);
  // On its own branch, the branch is HEAD (the commit moved it) and is the result: its id and its
  // diff against the base are asked at once (the diff in the repository, as every result's is).
  // Otherwise the branch is asked for, and the result diffed once it is known.
  const early = onOwnBranch && options.diffBase !== undefined ? options.diffBase : null;
  const [head, earlyDiff] = await Promise.all([
    pinnedLine(pinned, ['rev-parse', 'HEAD']),
    early === null ? null : diffSummary(pinned.root, early, `refs/heads/${branch}`),
  ]);
  const tip = onOwnBranch
    ? head
    : (
        await runPinned(pinned, ['rev-parse', '--verify', '-q', `refs/heads/${branch}`], {
          okExitCodes: [1],
        })
      ).stdout.trim();
  const warnings: string[] = [];
  let result = head;
  if (switchedTo !== null && tip !== '' && tip !== head) {
    const beyondBranch = await revList(pinned, [head, `^${tip}`]);
    const made = await revList(pinned, [head, `^${tip}`, ...tipsAtStart.map((sha) => `^${sha}`)]);
    if (made.length !== beyondBranch.length) {
      const replayed = await replayOnto(pinned, tip, made);
      const shortName = switchedTo.replace(/^refs\/heads\//, '');
      if (replayed !== null) {
        result = replayed;
        warnings.push(
          `The agent switched its worktree to ${shortName}; its result is its own branch ${branch} with the ${made.length} commit(s) it made there replayed on top.`,
        );
      } else {
        warnings.push(
          `The agent switched its worktree to ${shortName}, and the commits it made there do not apply on its own branch: its result is the worktree as it left it (${head.slice(0, 12)}); what it committed on ${branch} before the switch is ${tip.slice(0, 12)}.`,
        );
      }
    }
  }
  if (tip !== result) {
    await runPinned(pinned, ['update-ref', '-m', 'hydra: agent result', `refs/heads/${branch}`, result]);
  }
  const diff =
    earlyDiff ??
    (options.diffBase === undefined ? undefined : await diffSummary(pinned.root, options.diffBase, result));
  return { commit: result, warnings, ...(diff === undefined ? {} : { diff }) };
}

/**
 * Commits the index (as hydra, no hooks, no signing), without looking at it first: git exits 1 when
 * there is nothing to commit (and for a few refusals, such as an empty message; its failures exit
 * 128), and only then one look at the index tells the two apart. Nothing staged: no commit, and the
 * result is HEAD as it is.
 */
async function commitIndex(pinned: PinnedWorktree, message: string): Promise<void> {
  const args = [...COMMIT_FLAGS, 'commit', '--no-verify', '--quiet', '-m', message];
  const commit = await runPinned(pinned, args, { env: { ...HYDRA_IDENTITY }, okExitCodes: [1] });
  if (commit.exitCode === 0) return;
  const staged = await runPinned(pinned, ['diff', '--cached', '--quiet'], { okExitCodes: [1] });
  if (staged.exitCode === 1)
    throw new GitCommandError(pinnedArgs(pinned, args), commit, 'failed', { cwd: pinned.worktree });
}

/** Cherry-picks `commits` onto `onto` in the worktree (detached); null when they do not apply. */
async function replayOnto(
  pinned: PinnedWorktree,
  onto: string,
  commits: readonly string[],
): Promise<string | null> {
  const before = await pinnedLine(pinned, ['rev-parse', 'HEAD']);
  try {
    await runPinned(pinned, ['checkout', '-q', '--detach', onto]);
    if (commits.length > 0) {
      await runPinned(
        pinned,
        [...COMMIT_FLAGS, 'cherry-pick', '--allow-empty', '--keep-redundant-commits', ...commits],
        { env: { ...HYDRA_IDENTITY } },
      );
    }
    return await pinnedLine(pinned, ['rev-parse', 'HEAD']);
  } catch {
    await runPinned(pinned, ['cherry-pick', '--abort'], { okExitCodes: [128] }).catch(() => undefined);
    await runPinned(pinned, ['checkout', '-q', '--force', '--detach', before]).catch(() => undefined);
    return null;
  }
}

/** Parses `git diff --numstat -z --no-renames`. */
const parseNumstat = (text: string): DiffSummary => {
  const files: FileStat[] = [];
  for (const entry of splitZ(text)) {
    const match = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(entry);
    if (match === null) continue;
    const [, ins = '0', del = '0', file = ''] = match;
    const binary = ins === '-' && del === '-';
    files.push({
      path: file,
      insertions: binary ? 0 : Number(ins),
      deletions: binary ? 0 : Number(del),
      ...(binary ? { binary: true } : {}),
    });
  }
  return {
    filesChanged: files.length,
    insertions: files.reduce((sum, file) => sum + file.insertions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
    files,
  };
};

export async function diffSummary(root: string, base: string, commit: string): Promise<DiffSummary> {
  if (commit === base) return parseNumstat('');
  const { stdout } = await runGit(root, [
    'diff',
    '--numstat',
    '-z',
    '--no-renames',
    '--no-ext-diff',
    base,
    commit,
  ]);
  return parseNumstat(stdout);
}

export async function fullPatch(root: string, base: string, commit: string): Promise<string> {
  const { stdout } = await runGit(root, ['diff', '--no-color', '--no-ext-diff', base, commit]);
  return stdout;
}

/**
 * Removes a run's scratch space and its worktree directory once nothing else is left in it, then
 * the repository's directory above it (`<worktree root>/<repo key>`) when that is empty too.
 */
export async function removeRunDirIfEmpty(runDir: string): Promise<void> {
  await rm(path.join(runDir, '.scratch'), { recursive: true, force: true });
  for (const dir of [runDir, path.dirname(runDir)]) {
    try {
      await rmdir(dir);
    } catch {
      // not empty (kept worktrees, another run) or already gone
      return;
    }
  }
}
