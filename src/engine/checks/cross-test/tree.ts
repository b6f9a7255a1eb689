/**
 * One cross-testing tree's files and git: the neutral commit it is checked out at (the tree with an
 * author's files in it, and nothing in its log, status or branches of whose result it is), the
 * author's files written onto it (never through a link, with the mode they have in their commit),
 * and what a test changed of the tree it ran in (a tracked file edited or deleted, HEAD moved: a
 * test that does so proves nothing, issue 34).
 */
import { chmod, lstat, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { HYDRA_IDENTITY, pinCheckout, runGit, runPinned, splitZ } from '../../git/index.js';
import type { PinnedWorktree } from '../../git/index.js';

/** A file an author's tests need on every tree: its path, its content, its git mode and blob. */
export interface CopiedFile {
  file: string;
  content: string;
  /** `100755` (executable) or `100644` (anything else git writes as a file). */
  mode: string;
  /** Its blob in the author's commit. */
  blob: string;
}

/** One name, date and message for every tree's commit, whatever git identity the user has (or not). */
const NEUTRAL_ENV = {
  ...HYDRA_IDENTITY,
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
};

/**
 * The commit a cross-testing tree is checked out at: the tree of `commit` with `files` (an
 * author's) in it, no parent, hydra's name, a fixed date and message. Checked out at the result's
 * own commit, a test could read whose tree it is in `git log` (the message names the agent) or
 * `git branch --points-at HEAD` (`hydra/<run>/<agent>`), and `git status` showed the author's files
 * as new everywhere but on its own tree. Made with a temporary index (`indexFile`), never the
 * user's; the objects are the repository's, unreferenced.
 */
export async function neutralCommit(
  repoRoot: string,
  commit: string,
  files: readonly CopiedFile[],
  indexFile: string,
): Promise<string> {
  const env = { GIT_INDEX_FILE: indexFile, ...NEUTRAL_ENV };
  try {
    await runGit(repoRoot, ['read-tree', `${commit}^{tree}`], { env });
    if (files.length > 0)
      await runGit(
        repoRoot,
        [
          'update-index',
          '--add',
          '--replace',
          ...files.flatMap(({ file, mode, blob }) => ['--cacheinfo', `${mode},${blob},${file}`]),
        ],
        { env },
      );
    const tree = (await runGit(repoRoot, ['write-tree'], { env })).stdout.trim();
    return (
      await runGit(repoRoot, ['commit-tree', '--no-gpg-sign', tree, '-m', 'cross-test'], { env })
    ).stdout.trim();
  } finally {
    await rm(indexFile, { force: true });
  }
}

/**
 * hydra's git on the checkout, pinned to its entry in the repository (git/pinned.ts): a test may
 * have rewritten its `.git` to point at a git directory of its own (a filter, a hook), which is put
 * back; `rewritten` says it was.
 */
const pinnedTree = async (
  root: string,
  dir: string,
): Promise<{ pinned: PinnedWorktree; rewritten: boolean }> => {
  const { pinned, dotGit } = await pinCheckout(root, dir);
  if (dotGit !== null) {
    await rm(path.join(dir, '.git'), { recursive: true, force: true });
    await writeFile(path.join(dir, '.git'), `gitdir: ${pinned.gitDir}\n`);
  }
  return { pinned, rewritten: dotGit !== null };
};

/** The checkout at `commit`, every file of its own and nothing else (ignored files stay: the setup's). */
export const switchTo = async (root: string, dir: string, commit: string): Promise<void> => {
  const { pinned } = await pinnedTree(root, dir);
  await runPinned(pinned, ['checkout', '--detach', '--force', '--quiet', commit]);
  await runPinned(pinned, ['clean', '-fdq']);
};

/** The file mode a git mode is checked out with (umask aside: the same on every tree). */
const fileMode = (mode: string): number => (mode === '100755' ? 0o755 : 0o644);

/**
 * Writes a file inside `root` without following a symlink: a result could plant `test -> /home`
 * to make hydra write outside the checkout. Its mode is set whether the file was there or not, so
 * it is the same on every tree.
 */
export async function writeInside(
  root: string,
  file: string,
  content: string,
  mode = '100644',
): Promise<void> {
  const parts = file.split('/');
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = path.join(dir, part);
    const stat = await lstat(dir).catch(() => null);
    if (stat === null) await mkdir(dir);
    else if (!stat.isDirectory())
      throw new Error(`${file}: ${path.relative(root, dir)} is not a directory here`);
  }
  const target = path.join(dir, parts.at(-1) ?? '');
  const stat = await lstat(target).catch(() => null);
  if (stat !== null && !stat.isFile()) {
    if (!stat.isSymbolicLink()) throw new Error(`${file} is not a file here`);
    await unlink(target);
  }
  await writeFile(target, content);
  await chmod(target, fileMode(mode));
}

/** Files listed when a test changed its tree, at most. */
const LISTED = 10;

/**
 * What a test changed of the tree it ran in: tracked files of the commit edited or deleted, the
 * author's files written there (edited, deleted, replaced by a link), a moved HEAD. Untracked and
 * ignored files it made are not a change (a cache, a snapshot). Empty when it changed nothing.
 */
export async function treeChanges(
  root: string,
  dir: string,
  commit: string,
  written: readonly CopiedFile[],
): Promise<string[]> {
  const ours = new Set(written.map(({ file }) => file));
  const { pinned, rewritten } = await pinnedTree(root, dir);
  const [status, head] = await Promise.all([
    runPinned(pinned, ['status', '--porcelain=v1', '-z', '--untracked-files=no', '--no-renames']),
    runPinned(pinned, ['rev-parse', 'HEAD']),
  ]);
  const tracked = splitZ(status.stdout)
    .map((entry) => entry.slice(3))
    .filter((file) => !ours.has(file));
  const mine: string[] = [];
  for (const { file, content } of written) {
    const target = path.join(dir, file);
    const stat = await lstat(target).catch(() => null);
    const same = stat?.isFile() === true && (await readFile(target, 'utf8').catch(() => null)) === content;
    if (!same) mine.push(file);
  }
  const moved = head.stdout.trim() === commit ? [] : [`HEAD (moved to ${head.stdout.trim().slice(0, 12)})`];
  return [...(rewritten ? ['.git (pointed elsewhere)'] : []), ...moved, ...tracked, ...mine].slice(0, LISTED);
}
