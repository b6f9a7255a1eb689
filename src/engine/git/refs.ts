/**
 * The user's refs, guarded while agents run. Every worktree of a repository shares its branches,
 * tags and `refs/stash`, so an agent can move, delete or create them from its own worktree (a
 * `git checkout dev && git commit`, a `git stash drop`, a `git tag -d`). hydra takes a snapshot
 * when the race starts and, after each agent settles, puts back every change to the user's refs and
 * stash and says what it found. Only this run's own branches (`hydra/<run>/...`) may change.
 */
import path from 'node:path';
import { runGit } from './git.js';

interface StashEntry {
  commit: string;
  /** The reflog subject `git stash list` shows ("WIP on main: ..."). */
  message: string;
}

export interface RefSnapshot {
  runId: string;
  /** Every ref (refname → object), this run's branches and `refs/stash` left out. */
  refs: Record<string, string>;
  /** `git stash list`, newest first. */
  stash: StashEntry[];
  /** What the main checkout's HEAD named: `refs/heads/<branch>`, or a commit when detached. */
  head: string | null;
}

/** The refs an agent must not change: branches (but this run's), tags, notes and replacements. */
const GUARDED = ['refs/heads/', 'refs/tags/', 'refs/notes/', 'refs/replace/'];

const isGuarded = (snapshot: RefSnapshot, ref: string): boolean =>
  GUARDED.some((prefix) => ref.startsWith(prefix)) && !ref.startsWith(`refs/heads/hydra/${snapshot.runId}/`);

const shortRef = (ref: string): string => ref.replace(/^refs\/(heads|tags)\//, '');
const short = (sha: string): string => sha.slice(0, 12);
const describeHead = (head: string | null): string =>
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
interface RefState {
  /** Every ref (refname → object), `refs/stash` and this run's branches included. */
  refs: Map<string, string>;
  /** Branch → the worktree it is checked out in (absolute path, as git recorded it). */
  checkedOut: Map<string, string>;
  /** What the checkout at `root` names: `refs/heads/<branch>`, a commit when detached, null for none. */
  head: string | null;
}

const STATE_FORMAT = '--format=%(refname)%00%(objectname)%00%(HEAD)%00%(worktreepath)%00';

async function readRefState(root: string): Promise<RefState> {
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
function userRefs(state: RefState, runId: string): Record<string, string> {
  const refs: Record<string, string> = {};
  for (const [ref, sha] of state.refs) {
    if (ref === 'refs/stash' || ref.startsWith(`refs/heads/hydra/${runId}/`)) continue;
    refs[ref] = sha;
  }
  return refs;
}

/** `git stash list` as entries; no git process when the state has no stash. */
async function listStash(root: string, state: RefState): Promise<StashEntry[]> {
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

/** The user's refs, stash and checkout, taken before any agent starts. */
export async function snapshotRefs(root: string, runId: string): Promise<RefSnapshot> {
  const state = await readRefState(root);
  return { runId, refs: userRefs(state, runId), stash: await listStash(root, state), head: state.head };
}

/**
 * Branches checked out somewhere, by where: in the user's own worktrees, and in this run's (another
 * agent still on it; that agent's own settling handles it once it has let go of it).
 */
function checkouts(state: RefState, runDir: string | null): { user: Map<string, string>; run: Set<string> } {
  const user = new Map<string, string>();
  const run = new Set<string>();
  for (const [ref, dir] of state.checkedOut) {
    if (runDir !== null && path.resolve(path.dirname(dir)) === path.resolve(runDir)) run.add(ref);
    else user.set(ref, dir);
  }
  return { user, run };
}

const sameStash = (a: StashEntry[], b: StashEntry[]): boolean =>
  a.length === b.length &&
  a.every((entry, i) => entry.commit === b[i]?.commit && entry.message === b[i]?.message);

/** Said once per race: a later agent settling finds the same change and says nothing new. */
const reported = new WeakMap<RefSnapshot, Set<string>>();
/** One restore at a time per repository: agents settling together do not race each other. */
const queues = new Map<string, Promise<unknown>>();

interface RestoreInput {
  root: string;
  snapshot: RefSnapshot;
  /** Named in the warnings: the agent whose settling found the change. */
  agent: string;
  /** The directory holding this run's worktrees: branches checked out there are not the user's. */
  runDir: string | null;
}

/**
 * Puts the user's refs and stash back as they were at the start and returns what it found, one
 * warning per change. A branch checked out in one of the user's own worktrees, and the main
 * checkout's HEAD, are reported but left as they are: moving them would rewrite the user's working
 * tree and index, and the user may have moved them on purpose while the race ran.
 */
export function restoreUserRefs(input: RestoreInput): Promise<string[]> {
  const previous = queues.get(input.root) ?? Promise.resolve();
  const next = previous.then(
    () => restore(input),
    () => restore(input),
  );
  queues.set(input.root, next);
  void next.finally(() => {
    if (queues.get(input.root) === next) queues.delete(input.root);
  });
  return next;
}

async function restore({ root, snapshot, agent, runDir }: RestoreInput): Promise<string[]> {
  const seen = reported.get(snapshot) ?? new Set<string>();
  reported.set(snapshot, seen);
  const warnings: string[] = [];
  const say = (key: string, text: string): void => {
    if (seen.has(key)) return;
    seen.add(key);
    warnings.push(text);
  };
  const found = `during the race (found when ${agent} settled)`;
  const state = await readRefState(root);
  const current = userRefs(state, snapshot.runId);
  const checkedOutIn = checkouts(state, runDir);
  const names = new Set([...Object.keys(snapshot.refs), ...Object.keys(current)]);
  for (const ref of [...names].sort()) {
    if (!isGuarded(snapshot, ref)) continue;
    const before = snapshot.refs[ref];
    const after = current[ref];
    if (before === after) continue;
    if (checkedOutIn.run.has(ref)) continue;
    const checkedOut = checkedOutIn.user.get(ref);
    if (checkedOut !== undefined) {
      const back = before === undefined ? '' : ` \`git reset --keep ${short(before)}\` there puts it back.`;
      say(
        `${ref} ${after ?? ''}`,
        `${shortRef(ref)} changed ${found} from ${before === undefined ? 'nothing' : short(before)} to ${after === undefined ? 'nothing' : short(after)}; hydra left it as it is because it is checked out in ${checkedOut}.${back}`,
      );
      continue;
    }
    const message = `hydra: restored ${ref} after an agent changed it during run ${snapshot.runId}`;
    try {
      if (before === undefined) {
        await runGit(root, ['update-ref', '-m', message, '-d', ref, after!]);
        say(
          `${ref} ${after}`,
          `${shortRef(ref)} was created ${found} at ${short(after!)}; hydra deleted it (\`git branch ${shortRef(ref)} ${short(after!)}\` or \`git tag\` brings it back).`,
        );
      } else if (after === undefined) {
        await runGit(root, ['update-ref', '-m', message, ref, before, '0'.repeat(before.length)]);
        say(
          `${ref} deleted`,
          `${shortRef(ref)} was deleted ${found}; hydra restored it at ${short(before)}.`,
        );
      } else {
        await runGit(root, ['update-ref', '-m', message, ref, before, after]);
        say(
          `${ref} ${after}`,
          `${shortRef(ref)} was moved ${found} from ${short(before)} to ${short(after)}; hydra moved it back (the agent's ${short(after)} stays in \`git reflog ${shortRef(ref)}\`).`,
        );
      }
    } catch (error) {
      say(
        `${ref} failed`,
        `${shortRef(ref)} was changed ${found} and hydra could not put it back: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  await restoreStash(root, snapshot, await listStash(root, state), found, say);
  const head = state.head;
  const switched =
    head !== snapshot.head &&
    (head?.startsWith('refs/') === true || snapshot.head?.startsWith('refs/') === true);
  if (switched) {
    const back = snapshot.head?.startsWith('refs/')
      ? `\`git switch ${shortRef(snapshot.head)}\``
      : `\`git switch --detach ${short(snapshot.head ?? '')}\``;
    say(
      `HEAD ${head ?? ''}`,
      `The checkout in ${root} was switched from ${describeHead(snapshot.head)} to ${describeHead(head)} ${found}. hydra left it as it is (switching back rewrites files there, which could overwrite work); ${back} goes back.`,
    );
  }
  return warnings;
}

/** Rebuilds `refs/stash` and its reflog (the stash list) as it was at the start. */
async function restoreStash(
  root: string,
  snapshot: RefSnapshot,
  now: StashEntry[],
  found: string,
  say: (key: string, text: string) => void,
): Promise<void> {
  if (sameStash(now, snapshot.stash)) return;
  const added = now.filter((entry) => !snapshot.stash.some((old) => old.commit === entry.commit));
  await runGit(root, ['update-ref', '-d', 'refs/stash'], { okExitCodes: [1] }).catch(() => undefined);
  const lost: string[] = [];
  for (const entry of [...snapshot.stash].reverse()) {
    const ok = await runGit(root, [
      'update-ref',
      '--create-reflog',
      '-m',
      entry.message,
      'refs/stash',
      entry.commit,
    ])
      .then(() => true)
      .catch(() => false);
    if (!ok) lost.push(short(entry.commit));
  }
  const keptNote =
    added.length === 0
      ? ''
      : ` The entries added then are not in the list any more; each is still a commit: ${added
          .map((entry) => `\`git stash apply ${short(entry.commit)}\``)
          .join(', ')}.`;
  const lostNote = lost.length === 0 ? '' : ` Could not restore ${lost.join(', ')} (the commits are gone).`;
  say(
    `stash ${now.map((entry) => entry.commit).join(',')}`,
    `The stash changed ${found} (${snapshot.stash.length} entries before, ${now.length} after); hydra put the list back as it was.${keptNote}${lostNote}`,
  );
}

/** The current commit of every ref in the snapshot (for telling the agent's commits from the user's). */
export const snapshotTips = (snapshot: RefSnapshot): string[] => [
  ...new Set([...Object.values(snapshot.refs), ...snapshot.stash.map((entry) => entry.commit)]),
];
