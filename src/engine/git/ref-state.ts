/**
 * Reading the repository's refs for the guard of the user's refs (refs.ts): what one read says
 * (every ref, where each branch is checked out, what HEAD names), the stash list, and the small
 * helpers the snapshot, the restore and the repair share.
 */
import { runGit } from './git.js';
import type { GitDirSnapshot } from './git-dir.js';

export interface StashEntry {
  commit: string;
  /** The reflog subject `git stash list` shows ("WIP on main: ..."). */
  message: string;
}

export interface RefSnapshot {
  runId: string;
  /** Every ref (refname → object), this run's branches and `refs/stash` left out. */
  refs: Record<string, string>;
  /** This run's own branches (`refs/heads/hydra/<run>/...`) that were there already (absent in snapshots made by tests). */
  runBranches?: string[];
  /** `git stash list`, newest first. */
  stash: StashEntry[];
  /** What the main checkout's HEAD named: `refs/heads/<branch>`, or a commit when detached. */
  head: string | null;
  /** The shared git directory's config, hooks and info/ (absent in snapshots made by tests). */
  gitDir?: GitDirSnapshot;
}

/**
 * Refs that are not the user's to guard: the stash (restored as a list), each worktree's own refs
 * (bisect, rewritten, worktree) and git maintenance's prefetch refs.
 */
const UNGUARDED = ['refs/stash', 'refs/bisect/', 'refs/worktree/', 'refs/rewritten/', 'refs/prefetch/'];

/** The run a hydra branch belongs to (`refs/heads/hydra/<run>/<agent>`), else undefined. */
export const runOfBranch = (ref: string): string | undefined =>
  /^refs\/heads\/hydra\/([^/]+)\/./.exec(ref)?.[1];

/**
 * Whether the restore guards `ref`. Not this run's own branches, and not another run's: a race
 * beside this one (or its merge, continue or clean) creates, moves and deletes its own branches
 * while this one runs (issue 35, case 10). Another run's are those that existed when this run
 * started and new ones of a run `isRun` knows (its record exists); a new `hydra/<name>/...` of
 * no run is an agent's, and goes like any other ref it adds.
 */
export function isGuarded(
  snapshot: RefSnapshot,
  ref: string,
  isRun: (runId: string) => boolean = () => false,
): boolean {
  if (!ref.startsWith('refs/')) return false;
  if (UNGUARDED.some((prefix) => ref === prefix || (prefix.endsWith('/') && ref.startsWith(prefix))))
    return false;
  const run = runOfBranch(ref);
  if (run === undefined) return true;
  return run !== snapshot.runId && snapshot.refs[ref] === undefined && !isRun(run);
}

export const shortRef = (ref: string): string => ref.replace(/^refs\/(heads|tags|remotes)\//, '');
export const short = (sha: string): string => sha.slice(0, 12);
export const describeHead = (head: string | null): string =>
  head === null
    ? 'no commit'
    : head.startsWith('refs/')
      ? shortRef(head)
      : `a detached HEAD at ${short(head)}`;

/**
 * What one read of the repository's refs says: every ref with its object, where each branch is
 * checked out, and the branch the checkout's HEAD names. One `for-each-ref` (`%(worktreepath)`,
 * git 2.23) answers what took four git processes before (refs, `worktree list`, whether a stash
 * exists, HEAD); older git gets the same answers from those.
 */
export interface RefState {
  /** Every ref (refname → object), `refs/stash` and this run's branches included. */
  refs: Map<string, string>;
  /** Branch → the worktree it is checked out in (absolute path, as git recorded it). */
  checkedOut: Map<string, string>;
  /** What the checkout at `root` names: `refs/heads/<branch>`, a commit when detached, null for none. */
  head: string | null;
}

const STATE_FORMAT = '--format=%(refname)%00%(objectname)%00%(HEAD)%00%(worktreepath)%00';

export async function readRefState(root: string): Promise<RefState> {
  const result = await runGit(root, ['for-each-ref', STATE_FORMAT], { okExitCodes: [128] });
  if (result.exitCode !== 0) return readRefStateSlowly(root);
  const refs = new Map<string, string>();
  const checkedOut = new Map<string, string>();
  let head: string | null = null;
  // Each record ends with NUL and git's newline; a worktree path may hold a newline, never a NUL.
  for (const record of result.stdout.split('\0\n')) {
    const [ref, sha, current, worktree] = record.split('\0');
    if (ref === undefined || ref === '' || sha === undefined) continue;
    refs.set(ref, sha);
    if (current === '*') head = ref;
    if (worktree !== undefined && worktree !== '') checkedOut.set(ref, worktree);
  }
  // No existing branch is checked out at the root: HEAD is detached, or on a branch not yet born.
  return { refs, checkedOut, head: head ?? (await headOf(root)) };
}

/** The same answers from git older than 2.23, which has no `%(worktreepath)`. */
async function readRefStateSlowly(root: string): Promise<RefState> {
  const [list, worktrees, head] = await Promise.all([
    runGit(root, ['for-each-ref', '--format=%(refname)%00%(objectname)']),
    runGit(root, ['worktree', 'list', '--porcelain']),
    headOf(root),
  ]);
  const refs = new Map<string, string>();
  for (const line of list.stdout.split('\n')) {
    const [ref, sha] = line.split('\0');
    if (ref !== undefined && ref !== '' && sha !== undefined) refs.set(ref, sha);
  }
  const checkedOut = new Map<string, string>();
  let dir = '';
  for (const line of worktrees.stdout.split('\n')) {
    if (line.startsWith('worktree ')) dir = line.slice('worktree '.length);
    if (line.startsWith('branch ')) checkedOut.set(line.slice('branch '.length), dir);
  }
  return { refs, checkedOut, head };
}

/** The user's refs of a state: every ref but `refs/stash` and this run's branches. */
export function userRefs(state: RefState, runId: string): Record<string, string> {
  const refs: Record<string, string> = {};
  for (const [ref, sha] of state.refs) {
    if (ref === 'refs/stash' || ref.startsWith(`refs/heads/hydra/${runId}/`)) continue;
    refs[ref] = sha;
  }
  return refs;
}

/** The run's own branches in a ref state (those userRefs leaves out). */
export const runBranches = (state: RefState, runId: string): string[] =>
  [...state.refs.keys()].filter((ref) => ref.startsWith(`refs/heads/hydra/${runId}/`));

/** `git stash list` as entries; no git process when the state has no stash. */
export async function listStash(root: string, state: RefState): Promise<StashEntry[]> {
  if (!state.refs.has('refs/stash')) return [];
  const { stdout } = await runGit(root, ['reflog', 'show', '--format=%H%x00%gs', 'refs/stash', '--']);
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [commit = '', ...rest] = line.split('\0');
      return { commit, message: rest.join('\0') };
    });
}

async function headOf(root: string): Promise<string | null> {
  const symbolic = await runGit(root, ['symbolic-ref', '-q', 'HEAD'], { okExitCodes: [1] });
  if (symbolic.exitCode === 0) return symbolic.stdout.trim();
  const commit = await runGit(root, ['rev-parse', '--verify', '-q', 'HEAD'], { okExitCodes: [1] });
  return commit.exitCode === 0 ? commit.stdout.trim() : null;
}

export const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/\s+$/, '');
