/**
 * The user's refs, guarded while agents run. Every worktree of a repository shares its branches,
 * tags, remote-tracking refs, notes, replacements and `refs/stash`, so an agent can move, delete or
 * create them from its own worktree (a `git checkout dev && git commit`, a `git stash drop`, a
 * `git tag -d`, a forged `origin/main`). hydra takes a snapshot when the race starts and, after
 * each agent settles and when the race ends, puts back every change to the user's refs, stash and
 * shared git settings (git-dir.ts) and says what it found. Only this run's own branches
 * (`hydra/<run>/...`) may change. The restore cannot destroy: a renamed branch is renamed back (its
 * reflog with it), the user's refs come back before the agent's are deleted and again after (a
 * `dev/x` in the way of `dev`), every result is read back, and when something cannot be put back
 * hydra stops and names the `git update-ref` commands that would.
 */
import { lstat, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { runGit } from './git.js';
import { restoreGitDir, snapshotGitDir } from './git-dir.js';
import type { GitDirSnapshot } from './git-dir.js';
import { ensureExcluded } from './repo.js';

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
  /** The shared git directory's config, hooks and info/ (absent in snapshots made by tests). */
  gitDir?: GitDirSnapshot;
}

/**
 * Refs that are not the user's to guard: the stash (restored as a list), each worktree's own refs
 * (bisect, rewritten, worktree) and git maintenance's prefetch refs.
 */
const UNGUARDED = ['refs/stash', 'refs/bisect/', 'refs/worktree/', 'refs/rewritten/', 'refs/prefetch/'];

const isGuarded = (snapshot: RefSnapshot, ref: string): boolean =>
  ref.startsWith('refs/') &&
  !UNGUARDED.some((prefix) => ref === prefix || (prefix.endsWith('/') && ref.startsWith(prefix))) &&
  !ref.startsWith(`refs/heads/hydra/${snapshot.runId}/`);

const shortRef = (ref: string): string => ref.replace(/^refs\/(heads|tags|remotes)\//, '');
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
/** The latest snapshot of each run in this process (a round takes a new one), by root and run. */
const latest = new Map<string, RefSnapshot>();

export async function snapshotRefs(root: string, runId: string): Promise<RefSnapshot> {
  // hydra's own exclusion lines are in before the copy of info/ is taken.
  const gitDir = ensureExcluded(root).then(() => snapshotGitDir(root));
  gitDir.catch(() => undefined);
  const state = await readRefState(root);
  const snapshot: RefSnapshot = {
    runId,
    refs: userRefs(state, runId),
    stash: await listStash(root, state),
    head: state.head,
    gitDir: await gitDir,
  };
  latest.set(`${root}\0${runId}`, snapshot);
  return snapshot;
}

/**
 * When a race (or a round, or a shell) is over, before its merge and its clean-up: the user's shared
 * git settings (config, hooks, info/) put back once more from the run's latest snapshot in this
 * process, for what ran after the agents settled (their checks run the agents' code). Refs are not
 * touched here: each agent's settling put them back already, and from then on a moved or new ref
 * may be the user's own work (a branch made or switched to while the results waited), which a
 * restore must never delete. Returns the warnings; none without a snapshot.
 */
export async function restoreAfterRace(root: string, runId: string): Promise<string[]> {
  const snapshot = latest.get(`${root}\0${runId}`);
  if (snapshot?.gitDir === undefined) return [];
  return restoreGitDir(root, snapshot.gitDir, 'during the race (found when the race ended)').catch(
    (error: unknown) => [`hydra could not check the repository's git settings: ${messageOf(error)}`],
  );
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
  /** When it was found, instead of "when <agent> settled": e.g. "when the race ended". */
  when?: string;
}

/**
 * Puts the user's shared git settings, refs and stash back as they were at the start and returns
 * what it found, one warning per change. A branch checked out in one of the user's own worktrees,
 * and the main checkout's HEAD when its files were switched too, are reported but left as they
 * are: moving them would rewrite the user's working tree and index, and the user may have moved
 * them on purpose while the race ran. Never fails: what it cannot do is a warning naming the
 * commands that would.
 */
export function restoreUserRefs(input: RestoreInput): Promise<string[]> {
  const previous = queues.get(input.root) ?? Promise.resolve();
  const guarded = (): Promise<string[]> =>
    restore(input).catch((error: unknown) => [
      `hydra could not check the repository's refs ${foundText(input)}: ${messageOf(error)} ${commandsToRestore(input.root, input.snapshot, null)}`,
    ]);
  const next = previous.then(guarded, guarded);
  queues.set(input.root, next);
  void next.finally(() => {
    if (queues.get(input.root) === next) queues.delete(input.root);
  });
  return next;
}

const foundText = ({ agent, when }: RestoreInput): string =>
  `during the race (found ${when ?? `when ${agent} settled`})`;

const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/\s+$/, '');

/**
 * The commands that put every guarded ref as the snapshot has it, given what is there now (null:
 * unknown, so every ref of the snapshot): the agent's refs deleted first, so none is in the way.
 */
function commandsToRestore(
  root: string,
  snapshot: RefSnapshot,
  current: Record<string, string> | null,
): string {
  const lines: string[] = [];
  if (current !== null) {
    for (const ref of Object.keys(current).sort())
      if (isGuarded(snapshot, ref) && snapshot.refs[ref] === undefined)
        lines.push(`git update-ref -d ${ref}`);
  }
  for (const [ref, sha] of Object.entries(snapshot.refs).sort(([a], [b]) => a.localeCompare(b))) {
    if (!isGuarded(snapshot, ref) || (current !== null && current[ref] === sha)) continue;
    lines.push(`git update-ref ${ref} ${sha}`);
  }
  if (lines.length === 0) return '';
  return `To put the refs back as they were when the race started, run in ${root}:\n  ${lines.join('\n  ')}`;
}

/** One ref to put back: what the snapshot had and what is there now (undefined: none). */
interface RefChange {
  ref: string;
  before: string | undefined;
  after: string | undefined;
}

async function restore(input: RestoreInput): Promise<string[]> {
  const { root, snapshot, runDir } = input;
  const seen = reported.get(snapshot) ?? new Set<string>();
  reported.set(snapshot, seen);
  const warnings: string[] = [];
  const say = (key: string, text: string): void => {
    if (seen.has(key)) return;
    seen.add(key);
    warnings.push(text);
  };
  const found = foundText(input);
  // The settings first: a broken config stops every git command, and a planted hook runs on each.
  if (snapshot.gitDir !== undefined) warnings.push(...(await restoreGitDir(root, snapshot.gitDir, found)));
  const state = await readRepairing(root, snapshot, found, say);
  if (state === null) return warnings;
  const current = userRefs(state, snapshot.runId);
  const checkedOutIn = checkouts(state, runDir);
  const changes: RefChange[] = [];
  const names = new Set([...Object.keys(snapshot.refs), ...Object.keys(current)]);
  for (const ref of [...names].sort()) {
    if (!isGuarded(snapshot, ref)) continue;
    const before = snapshot.refs[ref];
    const after = current[ref];
    if (before === after || checkedOutIn.run.has(ref)) continue;
    changes.push({ ref, before, after });
  }
  const renamed = await renameBack(root, snapshot, changes, checkedOutIn.run, found, say);
  const failures: string[] = [];
  const left = new Set<string>();
  const apply = async (change: RefChange, last: boolean): Promise<boolean> => {
    const { ref, before, after } = change;
    const checkedOut = checkedOutIn.user.get(ref);
    if (checkedOut !== undefined) {
      left.add(ref);
      const back = before === undefined ? '' : ` \`git reset --keep ${short(before)}\` there puts it back.`;
      say(
        `${ref} ${after ?? ''}`,
        `${shortRef(ref)} changed ${found} from ${before === undefined ? 'nothing' : short(before)} to ${after === undefined ? 'nothing' : short(after)}; hydra left it as it is because it is checked out in ${checkedOut}.${back}`,
      );
      return true;
    }
    const message = `hydra: restored ${ref} after an agent changed it during run ${snapshot.runId}`;
    const args =
      before === undefined
        ? ['update-ref', '--no-deref', '-d', ref, after!]
        : [
            'update-ref',
            '--no-deref',
            '--create-reflog',
            '-m',
            message,
            ref,
            before,
            after ?? zeroOf(before),
          ];
    const result = await runGit(root, args, { okExitCodes: [1, 128] }).catch((error: unknown) => ({
      exitCode: -1,
      stderr: messageOf(error),
    }));
    if (result.exitCode !== 0) {
      // A deleted ref may be in the way of an agent's (`dev` and `dev/x`): tried again at the end.
      if (last) failures.push(`${ref}: ${result.stderr.trim() || `git exited ${result.exitCode}`}`);
      return false;
    }
    if (before === undefined) {
      say(
        `${ref} ${after}`,
        `${shortRef(ref)} was created ${found} at ${short(after!)}; hydra deleted it (\`git update-ref ${ref} ${after!}\` brings it back).`,
      );
    } else if (after === undefined) {
      say(`${ref} deleted`, `${shortRef(ref)} was deleted ${found}; hydra restored it at ${short(before)}.`);
    } else {
      say(
        `${ref} ${after}`,
        `${shortRef(ref)} was moved ${found} from ${short(before)} to ${short(after)}; hydra moved it back (the agent's ${short(after)} stays in \`git reflog ${shortRef(ref)}\`).`,
      );
    }
    return true;
  };
  const pending = changes.filter((change) => !renamed.has(change.ref));
  // The user's refs first (nothing of theirs is deleted before they are back), then the agent's
  // new refs go, then what was in their way is tried again.
  const retry: RefChange[] = [];
  for (const change of pending.filter((item) => item.before !== undefined))
    if (!(await apply(change, false))) retry.push(change);
  for (const change of pending.filter((item) => item.before === undefined)) await apply(change, true);
  for (const change of retry) await apply(change, true);
  // Every result read back: what is not as the snapshot has it is said, with the commands.
  const after = changes.length === 0 ? state : await readRefState(root).catch(() => null);
  const now = after === null ? null : userRefs(after, snapshot.runId);
  const wrong = changes.filter(
    (change) =>
      !left.has(change.ref) &&
      !checkedOutIn.user.has(change.ref) &&
      (now === null || now[change.ref] !== change.before),
  );
  if (failures.length > 0 || wrong.length > 0) {
    const why =
      failures.length > 0
        ? failures.join('; ')
        : `${wrong.map((item) => item.ref).join(', ')} did not come back`;
    warnings.push(
      `hydra could not put back every ref changed ${found}: ${why}. It stopped there. ${commandsToRestore(root, snapshot, now)}`,
    );
  }
  await restoreStash(root, snapshot, await listStash(root, after ?? state).catch(() => []), found, say);
  await restoreHead(root, snapshot, after ?? state, found, say);
  return warnings;
}

const zeroOf = (sha: string): string => '0'.repeat(sha.length);

/**
 * A branch the agent renamed (`git branch -m dev dev/x`: `dev` gone, `dev/x` new at its commit) is
 * renamed back, which brings its reflog back and moves any checkout on it (the user's own `main`).
 */
async function renameBack(
  root: string,
  snapshot: RefSnapshot,
  changes: RefChange[],
  inRun: Set<string>,
  found: string,
  say: (key: string, text: string) => void,
): Promise<Set<string>> {
  const done = new Set<string>();
  const created = changes.filter((item) => item.before === undefined && item.ref.startsWith('refs/heads/'));
  for (const gone of changes.filter(
    (item) => item.after === undefined && item.ref.startsWith('refs/heads/'),
  )) {
    const moved = created.find(
      (item) => item.after === gone.before && !done.has(item.ref) && !inRun.has(item.ref),
    );
    if (moved === undefined) continue;
    const result = await runGit(root, ['branch', '-m', shortRef(moved.ref), shortRef(gone.ref)], {
      okExitCodes: [1, 128],
    }).catch(() => null);
    if (result?.exitCode !== 0) continue;
    done.add(moved.ref);
    done.add(gone.ref);
    say(
      `${gone.ref} renamed ${moved.ref}`,
      `${shortRef(gone.ref)} was renamed to ${shortRef(moved.ref)} ${found}; hydra renamed it back (with its reflog).`,
    );
  }
  return done;
}

/**
 * Reads the refs; when git cannot (an agent damaged `packed-refs` or HEAD), repairs what the
 * snapshot allows and reads again. Null when the refs still cannot be read (said, with the commands).
 */
async function readRepairing(
  root: string,
  snapshot: RefSnapshot,
  found: string,
  say: (key: string, text: string) => void,
): Promise<RefState | null> {
  try {
    return await readRefState(root);
  } catch (first) {
    const repaired = await repairRefStore(root, snapshot).catch(() => [] as string[]);
    try {
      const state = await readRefState(root);
      say(
        `repaired ${repaired.join(',')}`,
        `The repository's refs were damaged ${found} (${messageOf(first)}); hydra repaired ${repaired.join(' and ') || 'them'} and put the refs back from its snapshot.`,
      );
      return state;
    } catch (error) {
      say(
        'unreadable',
        `The repository's refs were damaged ${found} and hydra could not repair them: ${messageOf(error)}. ${commandsToRestore(root, snapshot, null)}`,
      );
      return null;
    }
  }
}

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * What hydra can repair without guessing: lines of `packed-refs` that are not a ref (git refuses
 * the whole file for one) are dropped, and a HEAD that names nothing git can read is written again
 * from the snapshot. Returns what it repaired.
 */
async function repairRefStore(root: string, snapshot: RefSnapshot): Promise<string[]> {
  const dirs = snapshot.gitDir;
  if (dirs === undefined) return [];
  const repaired: string[] = [];
  const packed = path.join(dirs.commonDir, 'packed-refs');
  const text = await readFile(packed, 'utf8').catch(() => null);
  if (text !== null) {
    const kept: string[] = [];
    let afterRef = false;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const [oid = '', ref = ''] = line.split(' ');
      const isRef = OID.test(oid) && /^refs\/[^\s\0]+$/.test(ref) && line.split(' ').length === 2;
      const isPeel = line.startsWith('^') && OID.test(line.slice(1)) && afterRef;
      const isHeader = line.startsWith('# pack-refs with:') && kept.length === 0;
      if (isRef || isPeel || isHeader) kept.push(line);
      afterRef = isRef;
    }
    const next = kept.length === 0 ? '' : `${kept.join('\n')}\n`;
    if (next !== text) {
      await replaceLocked(packed, next);
      repaired.push('packed-refs');
    }
  }
  const headFile = path.join(dirs.gitDir, 'HEAD');
  const head = await readFile(headFile, 'utf8').catch(() => null);
  const readable = head !== null && (/^ref: refs\/\S+\n?$/.test(head) || OID.test(head.trim()));
  if (!readable && snapshot.head !== null) {
    await replaceLocked(
      headFile,
      snapshot.head.startsWith('refs/') ? `ref: ${snapshot.head}\n` : `${snapshot.head}\n`,
    );
    repaired.push('HEAD');
  }
  return repaired;
}

/** Replaces a file of git's as git does: under its `.lock`, so no git command reads it half-written. */
async function replaceLocked(file: string, text: string): Promise<void> {
  const lock = `${file}.lock`;
  const handle = await open(lock, 'wx');
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  try {
    const stat = await lstat(file).catch(() => null);
    if (stat?.isSymbolicLink() === true) await rm(file);
    await rename(lock, file);
  } catch (error) {
    await rm(lock, { force: true });
    throw error;
  }
}

/**
 * The main checkout's HEAD, when it names another branch than at the start: put back when only
 * HEAD moved (`git symbolic-ref HEAD ...`, a detach: the index still holds the start's commit, so
 * nothing of the checkout changes); reported and left when its files were switched too.
 */
async function restoreHead(
  root: string,
  snapshot: RefSnapshot,
  state: RefState,
  found: string,
  say: (key: string, text: string) => void,
): Promise<void> {
  const head = state.head;
  const switched =
    head !== snapshot.head &&
    (head?.startsWith('refs/') === true || snapshot.head?.startsWith('refs/') === true);
  if (!switched) return;
  const startCommit = snapshot.head?.startsWith('refs/') ? snapshot.refs[snapshot.head] : snapshot.head;
  if (startCommit !== undefined && startCommit !== null && snapshot.head !== null) {
    const indexAsStart = await runGit(root, ['diff-index', '--cached', '--quiet', startCommit, '--'], {
      okExitCodes: [1, 128],
    }).catch(() => null);
    if (indexAsStart?.exitCode === 0) {
      const args = snapshot.head.startsWith('refs/')
        ? ['symbolic-ref', '-m', `hydra: restored HEAD during run ${snapshot.runId}`, 'HEAD', snapshot.head]
        : ['update-ref', '--no-deref', 'HEAD', snapshot.head];
      const put = await runGit(root, args, { okExitCodes: [1, 128] }).catch(() => null);
      if (put?.exitCode === 0) {
        say(
          `HEAD ${head ?? ''} restored`,
          `The checkout in ${root} was pointed from ${describeHead(snapshot.head)} at ${describeHead(head)} ${found} without its files changing; hydra pointed it back.`,
        );
        return;
      }
    }
  }
  const back = snapshot.head?.startsWith('refs/')
    ? `\`git switch ${shortRef(snapshot.head)}\``
    : `\`git switch --detach ${short(snapshot.head ?? '')}\``;
  say(
    `HEAD ${head ?? ''}`,
    `The checkout in ${root} was switched from ${describeHead(snapshot.head)} to ${describeHead(head)} ${found}. hydra left it as it is (switching back rewrites files there, which could overwrite work); ${back} goes back.`,
  );
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
