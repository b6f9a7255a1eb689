/**
 * What keeps a merge from leaving the user's working tree half-written: before it starts, a check
 * that the file system has room for what the merge writes; if it fails anyway (a full disk, a
 * filter that grows the files, a directory that cannot be written), a restore that puts every path
 * the merge touches back exactly as it was. The merge only starts when none of those paths has an
 * uncommitted change, so "as it was" is HEAD's version of each (or no file at all).
 */
import { lstat, rm, rmdir, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../errors.js';
import { gitLine, runGit, splitZ } from '../git/index.js';

/** Paths as literal names, never globs (a file may be called `*.txt`). */
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

/** Free space hydra leaves on top of the estimate (git's own temp files, the reflog). */
const SLACK_BYTES = 256 * 1024;

export interface TreeChange {
  /** git's status letter: A added, M modified, D deleted, T type changed. */
  status: string;
  path: string;
  /** The new blob (null for a deletion or a submodule). */
  blob: string | null;
  /** The index entry before and after the merge (`<mode> <object>`; null: no entry). */
  before: string | null;
  after: string | null;
}

/** What the merge changes between HEAD and the merged tree. */
export async function treeChanges(root: string, head: string, tree: string): Promise<TreeChange[]> {
  const { stdout } = await runGit(root, ['diff', '--raw', '-z', '--no-renames', '--no-abbrev', head, tree]);
  const parts = splitZ(stdout);
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    // ":100644 100644 <old> <new> M"
    const [oldMode = '', newMode = '', oldBlob = '', newBlob = '', status = ''] =
      parts[i]!.slice(1).split(' ');
    const isBlob = status !== 'D' && newMode !== '160000';
    const entry = (mode: string, blob: string): string | null =>
      /^0+$/.test(mode) ? null : `${mode} ${blob}`;
    changes.push({
      status: status.charAt(0),
      path: parts[i + 1]!,
      blob: isBlob ? newBlob : null,
      before: entry(oldMode, oldBlob),
      after: entry(newMode, newBlob),
    });
  }
  return changes;
}

const formatBytes = (bytes: number): string =>
  bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/**
 * Refuses, before anything changes, a merge whose files do not fit on the repository's file system
 * (each file rounded up to whole blocks, plus a new index and some slack), or that needs more new
 * files than it has inodes left.
 */
export async function assertRoomFor(root: string, changes: readonly TreeChange[]): Promise<void> {
  const blobs = changes.map((change) => change.blob).filter((blob): blob is string => blob !== null);
  const fs = await statfs(root);
  const block = fs.bsize > 0 ? fs.bsize : 4096;
  const blocks = (bytes: number): number => Math.ceil(bytes / block) * block;
  let need = SLACK_BYTES;
  if (blobs.length > 0) {
    const sizes = await runGit(root, ['cat-file', '--batch-check=%(objectsize)'], {
      input: `${blobs.join('\n')}\n`,
    });
    for (const line of sizes.stdout.split('\n')) {
      const size = Number(line.trim());
      if (line.trim() !== '' && Number.isFinite(size)) need += blocks(size);
    }
  }
  const index = path.resolve(root, await gitLine(root, ['rev-parse', '--git-path', 'index']));
  need += blocks(
    await stat(index).then(
      (info) => info.size,
      () => 0,
    ),
  );
  const free = fs.bavail * block;
  if (need > free) {
    throw new EngineError({
      kind: 'Refused',
      message: `Not enough free space to merge: the change writes about ${formatBytes(need)} into ${root}, and its file system has ${formatBytes(free)} free.`,
      hint: 'Nothing was changed. Free some space (`df -h .` shows it), then merge again.',
    });
  }
  const newFiles = changes.filter((change) => change.status === 'A').length;
  // A file system that does not count inodes reports none in total.
  if (fs.files > 0 && newFiles > fs.ffree) {
    throw new EngineError({
      kind: 'Refused',
      message: `Not enough free inodes to merge: the change creates ${newFiles} files in ${root}, and its file system can hold ${fs.ffree} more.`,
      hint: 'Nothing was changed. Remove some files (`df -i .` shows it), then merge again.',
    });
  }
}

export interface RestorePlan {
  head: string;
  /** The branch the merge moves (`refs/heads/<base>`), checked out in `root`. */
  branch: string;
  /** Each touched path's index entry before the merge and after it (see TreeChange). */
  entries: Map<string, { before: string | null; after: string | null }>;
  /** Each touched file as the merge's checkout left it (null: absent), once it has written them. */
  written: Map<string, string | null> | null;
  /** Paths the merge creates: they did not exist before. */
  added: string[];
  /** Paths the merge modifies or deletes: HEAD's version was on disk. */
  fromHead: string[];
  /** Directories the merge may create (deepest first): none of them was a directory before. */
  newDirs: string[];
}

const isDirectory = (file: string): Promise<boolean> =>
  lstat(file).then(
    (info) => info.isDirectory(),
    () => false,
  );

/** Notes what the touched paths look like now, so that a failed merge can put them back. */
export async function planRestore(
  root: string,
  head: string,
  branch: string,
  changes: readonly TreeChange[],
): Promise<RestorePlan> {
  const added = changes.filter((change) => change.status === 'A').map((change) => change.path);
  const fromHead = changes.filter((change) => change.status !== 'A').map((change) => change.path);
  const parents = new Set<string>();
  for (const file of added) {
    for (let dir = path.dirname(file); dir !== '.' && dir !== ''; dir = path.dirname(dir)) parents.add(dir);
  }
  const newDirs: string[] = [];
  for (const dir of parents) if (!(await isDirectory(path.join(root, dir)))) newDirs.push(dir);
  newDirs.sort((a, b) => b.split('/').length - a.split('/').length || b.localeCompare(a));
  const entries = new Map(
    changes.map((change) => [change.path, { before: change.before, after: change.after }] as const),
  );
  return { head, branch, entries, written: null, added, fromHead, newDirs };
}

/** What is at `file` now, enough to tell a later write apart: type, size, inode, change time. */
const fileStamp = async (file: string): Promise<string | null> =>
  lstat(file, { bigint: true }).then(
    (info) => `${info.mode} ${info.size} ${info.ino} ${info.mtimeNs} ${info.ctimeNs}`,
    () => null,
  );

/** Notes each touched file as the merge's checkout wrote it (called once that checkout succeeded). */
export async function noteWritten(root: string, plan: RestorePlan): Promise<void> {
  const written = new Map<string, string | null>();
  for (const file of plan.entries.keys()) written.set(file, await fileStamp(path.join(root, file)));
  plan.written = written;
}

/**
 * What changed in the checkout since the merge began that the merge did not do: the checked-out
 * branch switched or moved, a touched path's index entry that is neither the one before the merge
 * nor the merged one, a touched file written again after the merge's checkout wrote it. Empty when
 * the restore can only undo the merge's own writes; otherwise each line says what it found, and
 * nothing may be written over it.
 */
export async function changedSince(root: string, plan: RestorePlan): Promise<string[]> {
  const found: string[] = [];
  const symbolic = await runGit(root, ['symbolic-ref', '-q', 'HEAD'], { okExitCodes: [1, 128] }).catch(
    () => null,
  );
  const onBranch = symbolic?.stdout.trim() ?? '';
  if (onBranch !== plan.branch) {
    found.push(
      `HEAD is now ${onBranch === '' ? 'detached' : `on ${onBranch.replace(/^refs\/heads\//, '')}`}, not on ${plan.branch.replace(/^refs\/heads\//, '')}`,
    );
  }
  const tip = await runGit(root, ['rev-parse', '-q', '--verify', plan.branch], {
    okExitCodes: [1, 128],
  }).catch(() => null);
  const now = tip?.stdout.trim() ?? '';
  if (now !== plan.head) {
    found.push(
      `${plan.branch.replace(/^refs\/heads\//, '')} moved from ${plan.head.slice(0, 12)} to ${now === '' ? 'nothing' : now.slice(0, 12)} (another command committed or merged meanwhile)`,
    );
  }
  const index = await runGit(root, ['ls-files', '-s', '-z']).catch(() => null);
  if (index === null) found.push('the index could not be read');
  else {
    const current = new Map<string, string>();
    for (const line of splitZ(index.stdout)) {
      // "<mode> <object> <stage>\t<path>"
      const tab = line.indexOf('\t');
      const [mode = '', object = '', stage = ''] = line.slice(0, tab).split(' ');
      const file = line.slice(tab + 1);
      if (!plan.entries.has(file)) continue;
      current.set(file, stage === '0' ? `${mode} ${object}` : `conflict stage ${stage}`);
    }
    const moved: string[] = [];
    for (const [file, { before, after }] of plan.entries) {
      const entry = current.get(file) ?? null;
      if (entry !== before && entry !== after) moved.push(file);
    }
    if (moved.length > 0)
      found.push(
        `the index entries of ${moved.slice(0, 10).join(', ')}${moved.length > 10 ? ` and ${moved.length - 10} more` : ''} changed`,
      );
  }
  if (plan.written !== null) {
    const rewritten: string[] = [];
    for (const [file, stamp] of plan.written)
      if ((await fileStamp(path.join(root, file))) !== stamp) rewritten.push(file);
    if (rewritten.length > 0)
      found.push(
        `${rewritten.slice(0, 10).join(', ')}${rewritten.length > 10 ? ` and ${rewritten.length - 10} more` : ''} changed on disk after the merge wrote them`,
      );
  }
  return found;
}

/**
 * Puts the touched paths back as they were before the merge: new files and directories removed,
 * index entries and files of HEAD restored. Returns the paths it could not restore (empty: exact).
 */
export async function restoreTree(root: string, plan: RestorePlan): Promise<string[]> {
  const failed = new Set<string>();
  // Removing what the merge wrote first frees the space the restore needs.
  for (const file of plan.added) {
    await rm(path.join(root, file), { force: true }).catch(() => failed.add(file));
  }
  for (const dir of plan.newDirs) {
    await rmdir(path.join(root, dir)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') failed.add(`${dir}/`);
    });
  }
  const touched = [...plan.added, ...plan.fromHead];
  const nul = (paths: readonly string[]): string => paths.map((file) => `${file}\0`).join('');
  // The index changes only if git got as far as writing it; leave it alone otherwise.
  const staged = await runGit(root, ['diff-index', '--cached', '--name-only', '-z', plan.head, '--'], {
    env: LITERAL,
  }).catch(() => null);
  const touchedSet = new Set(touched);
  const indexMoved = staged === null || splitZ(staged.stdout).some((file) => touchedSet.has(file));
  if (indexMoved && touched.length > 0) {
    await runGit(root, ['reset', '-q', plan.head, '--pathspec-from-file=-', '--pathspec-file-nul'], {
      env: LITERAL,
      input: nul(touched),
      okExitCodes: [1],
    }).catch(() => touched.forEach((file) => failed.add(file)));
  }
  if (plan.fromHead.length > 0) {
    await runGit(root, ['checkout-index', '-f', '-z', '--stdin'], { input: nul(plan.fromHead) }).catch(
      () => undefined,
    );
  }
  // Whatever still differs from HEAD (in the index or on disk) was not put back.
  const left = await runGit(
    root,
    ['diff', '--no-ext-diff', '--no-renames', '--name-only', '-z', plan.head, '--'],
    {
      env: LITERAL,
    },
  ).catch(() => null);
  if (left === null) return touched;
  for (const file of splitZ(left.stdout)) if (touchedSet.has(file)) failed.add(file);
  for (const file of plan.added) {
    const exists = await lstat(path.join(root, file)).then(
      () => true,
      () => false,
    );
    if (exists) failed.add(file);
  }
  return [...failed].sort();
}

const HELD_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs the part of a merge that writes the user's working tree and branch with SIGINT, SIGTERM and
 * SIGHUP held back, so that Ctrl-C cannot leave it half-done. A signal that arrived meanwhile takes
 * effect afterwards (re-raised, unless someone else handles it, as a race does).
 */
export async function withSignalsHeld<T>(work: () => Promise<T>): Promise<T> {
  const received: NodeJS.Signals[] = [];
  const hold = (signal: NodeJS.Signals): void => {
    received.push(signal);
  };
  for (const signal of HELD_SIGNALS) process.on(signal, hold);
  try {
    return await work();
  } finally {
    for (const signal of HELD_SIGNALS) process.off(signal, hold);
    const first = received[0];
    if (first !== undefined && process.listenerCount(first) === 0) process.kill(process.pid, first);
  }
}
