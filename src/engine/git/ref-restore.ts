/**
 * Putting the user's refs, stash, checkout and shared git settings back after an agent changed
 * them (refs.ts says why): one restore at a time per repository, each change said once, a renamed
 * branch renamed back, every result read back, and the `git update-ref` commands named for what
 * cannot be put back.
 */
import path from 'node:path';
import { runGit } from './git.js';
import { restoreGitDir } from './git-dir.js';
import { repairRefStore } from './ref-repair.js';
import {
  describeHead,
  isGuarded,
  listStash,
  messageOf,
  readRefState,
  short,
  shortRef,
  userRefs,
} from './ref-state.js';
import type { RefSnapshot, RefState, StashEntry } from './ref-state.js';

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
  /** True for a run hydra made (its record exists): its branches are that run's, never restored. */
  isRun?: (runId: string) => boolean;
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
      `hydra could not check the repository's refs ${foundText(input)}: ${messageOf(error)} ${commandsToRestore(input.root, input.snapshot, null, input.isRun)}`,
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

/**
 * The commands that put every guarded ref as the snapshot has it, given what is there now (null:
 * unknown, so every ref of the snapshot): the agent's refs deleted first, so none is in the way.
 */
function commandsToRestore(
  root: string,
  snapshot: RefSnapshot,
  current: Record<string, string> | null,
  isRun?: (runId: string) => boolean,
): string {
  const lines: string[] = [];
  if (current !== null) {
    for (const ref of Object.keys(current).sort())
      if (isGuarded(snapshot, ref, isRun) && snapshot.refs[ref] === undefined)
        lines.push(`git update-ref -d ${ref}`);
  }
  for (const [ref, sha] of Object.entries(snapshot.refs).sort(([a], [b]) => a.localeCompare(b))) {
    if (!isGuarded(snapshot, ref, isRun) || (current !== null && current[ref] === sha)) continue;
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
  const state = await readRepairing(root, snapshot, found, say, input.isRun);
  if (state === null) return warnings;
  const current = userRefs(state, snapshot.runId);
  const checkedOutIn = checkouts(state, runDir);
  const changes: RefChange[] = [];
  const names = new Set([...Object.keys(snapshot.refs), ...Object.keys(current)]);
  for (const ref of [...names].sort()) {
    if (!isGuarded(snapshot, ref, input.isRun)) continue;
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
        `${shortRef(ref)} was created ${found} at ${short(after!)}; hydra deleted it (\`${setRef(ref, after!)}\` brings it back).`,
      );
    } else if (after === undefined) {
      say(`${ref} deleted`, `${shortRef(ref)} was deleted ${found}; hydra restored it at ${short(before)}.`);
    } else {
      say(
        `${ref} ${after}`,
        ref.startsWith('refs/heads/')
          ? `${shortRef(ref)} was moved ${found} from ${short(before)} to ${short(after)}; hydra moved it back (the agent's ${short(after)} stays in \`git reflog ${shortRef(ref)}\`).`
          : // Only branches keep a reflog: the agent's commit is named by the command that sets it again.
            `${shortRef(ref)} was moved ${found} from ${short(before)} to ${short(after)}; hydra moved it back (\`${setRef(ref, after, true)}\` sets the agent's again).`,
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
      `hydra could not put back every ref changed ${found}: ${why}. It stopped there. ${commandsToRestore(root, snapshot, now, input.isRun)}`,
    );
  }
  await restoreStash(root, snapshot, await listStash(root, after ?? state).catch(() => []), found, say);
  await restoreHead(root, snapshot, after ?? state, found, say);
  return warnings;
}

const zeroOf = (sha: string): string => '0'.repeat(sha.length);

/** The git command that sets a ref to a commit, in the words of its kind: `git tag`, `git branch`, else update-ref. */
const setRef = (ref: string, sha: string, replace = false): string => {
  const name = ref.replace(/^refs\/(heads|tags)\//, '');
  if (ref.startsWith('refs/tags/')) return `git tag ${replace ? '-f ' : ''}${name} ${sha}`;
  if (ref.startsWith('refs/heads/')) return `git branch ${replace ? '-f ' : ''}${name} ${sha}`;
  return `git update-ref ${ref} ${sha}`;
};

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
  isRun?: (runId: string) => boolean,
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
        `The repository's refs were damaged ${found} and hydra could not repair them: ${messageOf(error)}. ${commandsToRestore(root, snapshot, null, isRun)}`,
      );
      return null;
    }
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
