/**
 * An agent's result as a commit: what it changed in its worktree, committed as hydra on its own
 * branch (and only the commits it made itself, when it switched to someone else's branch).
 */
import type { DiffSummary } from './diff.js';
import { diffSummary } from './diff.js';
import { GitCommandError, HYDRA_IDENTITY, NO_HOOKS } from './git.js';
import { pinnedArgs, pinnedLine, populatedGitlinks, runPinned } from './pinned.js';
import { addHidden, excludeChanged } from './git-dir.js';
import type { PinnedWorktree } from './pinned.js';

/** Flags for every commit hydra makes on its own branches. */
const COMMIT_FLAGS = ['-c', 'commit.gpgsign=false', ...NO_HOOKS];

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
  // Asked before `git add -A` too: the agent that wrote the exclude may settle (and put it back)
  // while this one stages, after the exclude hid its files from the add.
  const excludeMoved = pinned.commonDir !== undefined && (await excludeChanged(pinned.commonDir));
  const nested = await populatedGitlinks(pinned);
  if (nested.length === 0) await runPinned(pinned, ['add', '-A']);
  else {
    // `git add` runs `git status` in a populated submodule (its config, filters and attributes the
    // agent's, run as hydra): those folders are left out of it, and `update-index` records which
    // commit each is on (read from its refs, nothing run there) or that it is gone.
    const pathspecs = [':(top)', ...nested.map((file) => `:(top,literal,exclude)${file}`)];
    await runPinned(pinned, ['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      input: `${pathspecs.join('\0')}\0`,
    });
    await runPinned(pinned, ['update-index', '--add', '--remove', '-z', '--stdin'], {
      input: `${nested.join('\0')}\0`,
    });
  }
  // What another agent's new `info/exclude` hides is staged too (git-dir.ts).
  if (pinned.commonDir !== undefined)
    await addHidden(
      pinned.commonDir,
      (args, input) => runPinned(pinned, args, input === undefined ? {} : { input }),
      excludeMoved,
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
  // HEAD's tree with its id, in the same git process: the diff's tree when the result is HEAD.
  const early = onOwnBranch && options.diffBase !== undefined ? options.diffBase : null;
  const ids = pinnedLine(pinned, ['rev-parse', 'HEAD', 'HEAD^{tree}']).then((text) => text.split('\n'));
  const headTree = ids.then(([, tree]) => tree?.trim() || null);
  const [[head = ''], earlyDiff] = await Promise.all([
    ids,
    early === null ? null : diffSummary(pinned.root, early, `refs/heads/${branch}`, headTree),
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
    (options.diffBase === undefined
      ? undefined
      : await diffSummary(pinned.root, options.diffBase, result, result === head ? headTree : undefined));
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
    throw new GitCommandError({ args: pinnedArgs(pinned, args), result: commit, cwd: pinned.worktree });
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
