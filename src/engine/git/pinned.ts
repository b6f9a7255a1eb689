/**
 * The pin on an agent's worktree (and on hydra's own checkouts a check writes in): every git command
 * hydra runs there names the repository's entry for it, so nothing an agent or a check does to the
 * directory's `.git` can make hydra act in another repository or read another git directory's
 * config, and none of them looks into a nested repository (issue 35, cases 2 and 3).
 */
import { lstat, readFile, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { readAgentFile } from '../agent-file.js';
import { EngineError } from '../errors.js';
import { gitLine, runGit, splitZ } from './git.js';
import type { GitResult, RunGitOptions } from './git.js';
import { hardeningArgs } from './git-dir.js';

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

/** The repository's common git directory (absolute), asked of git once per repository in this process. */
export const repositoryCommonDir = (root: string): Promise<string> => commonDirOf(root);

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
  new EngineError({
    kind: 'AgentFailed',
    message: `The agent broke its worktree ${worktree}: ${detail}, so it is no longer linked to ${root}. Hydra committed nothing; the agent's files are kept there.`,
    hint: `Copy what you need from ${worktree}, then run \`hydra clean\` to remove it.`,
  });

/**
 * The repository's entry for a worktree (`<common>/worktrees/<id>`), found from the entries' side
 * (each entry's `gitdir` names its worktree's `.git`), never from what is in the worktree's `.git`.
 */
async function entryOf(commonDir: string, worktree: string): Promise<string | null> {
  const entries = path.join(commonDir, 'worktrees');
  const realWorktree = await realOrResolved(worktree);
  for (const name of await readdir(entries).catch(() => [] as string[])) {
    const back = await readFile(path.join(entries, name, 'gitdir'), 'utf8').catch(() => null);
    if (back === null || back.trim() === '') continue;
    if ((await realOrResolved(path.dirname(back.trim()))) === realWorktree) return path.join(entries, name);
  }
  return null;
}

/**
 * What is wrong with a worktree's `.git` (deleted, a repository of its own, a link, pointing
 * elsewhere), or null when it is still the file git wrote, pointing at `gitDir`.
 */
async function dotGitProblem(worktree: string, gitDir: string): Promise<string | null> {
  const dotGit = path.join(worktree, '.git');
  const stat = await lstat(dotGit).catch(() => null);
  if (stat === null) return 'its .git was deleted';
  if (stat.isDirectory()) return 'its .git is a repository of its own (made by `git init`)';
  if (!stat.isFile()) return 'its .git is no longer a plain file';
  // Read as data: never through a link put in its place (agent-file.ts).
  const read = readAgentFile(dotGit, worktree);
  if (read.kind !== 'read') return 'its .git is no longer a plain file';
  const pointer = /^gitdir: (.+)$/m.exec(read.content.toString('utf8'))?.[1]?.trim();
  if (
    pointer === undefined ||
    (await realOrResolved(path.resolve(worktree, pointer))) !== (await realOrResolved(gitDir))
  )
    return `its .git points at ${pointer ?? 'nothing'} instead of ${gitDir}`;
  return null;
}

/**
 * Checks that the worktree's `.git` is still the file git wrote, pointing at this repository's entry
 * for it, and that the entry points back; then every later command can name both explicitly.
 */
export async function pinWorktree(root: string, worktree: string): Promise<PinnedWorktree> {
  const commonDir = await commonDirOf(root);
  const gitDir = await entryOf(commonDir, worktree);
  if (gitDir === null) throw brokenWorktree(root, worktree, 'the repository has no worktree entry for it');
  const problem = await dotGitProblem(worktree, gitDir);
  if (problem !== null) throw brokenWorktree(root, worktree, problem);
  const guard = await hardeningArgs(commonDir, worktree, ['--git-dir', gitDir]);
  return { root, worktree, gitDir, commonDir, guard };
}

/**
 * A checkout of hydra's own (the checks', a cross-test's) pinned to its entry in the repository
 * whatever its `.git` now says: a check or a test can rewrite that file to point at a git directory
 * of its own (with a filter, a hook), and hydra's git there must never read it. `dotGit` says what
 * was done to the `.git` (null: nothing), for the caller to report.
 */
export async function pinCheckout(
  root: string,
  dir: string,
): Promise<{ pinned: PinnedWorktree; dotGit: string | null }> {
  const commonDir = await commonDirOf(root);
  const gitDir = await entryOf(commonDir, dir);
  if (gitDir === null)
    throw new EngineError({
      kind: 'GitFailed',
      message: `The checkout ${dir} has no worktree entry in ${commonDir}: it was removed while in use.`,
      hint: 'Run `hydra clean` to remove what is left of it, then try again.',
    });
  const [dotGit, guard] = await Promise.all([
    dotGitProblem(dir, gitDir),
    hardeningArgs(commonDir, dir, ['--git-dir', gitDir]),
  ]);
  return { pinned: { root, worktree: dir, gitDir, commonDir, guard }, dotGit };
}

/**
 * Runs git on a pinned worktree, naming its git directory and work tree. Hooks are off: hydra's own
 * bookkeeping there (detaching, committing, replaying) runs no hook.
 */
export const runPinned = (
  pinned: PinnedWorktree,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<GitResult> => runGit(pinned.worktree, pinnedArgs(pinned, args), options);

/**
 * Never into a nested repository: a folder of the worktree with a `.git` of its own (a submodule, or
 * a repository an agent made and committed as a gitlink) has a config, attributes and hooks the
 * agent wrote. git looks into such a folder (a `git status` there, as the user, outside the jail)
 * to ask whether it has changes; `dirty` asks only which commit it is on, read from its refs as
 * data, and the checkout never recurses. `git add` asks all the same: stageChanges leaves those
 * folders to `update-index`.
 */
const NO_SUBMODULES: readonly string[] = [
  '-c',
  'submodule.recurse=false',
  '-c',
  'diff.ignoreSubmodules=dirty',
  '-c',
  'status.submoduleSummary=false',
];

export const pinnedArgs = (pinned: PinnedWorktree, args: readonly string[]): string[] => [
  '--git-dir',
  pinned.gitDir,
  '--work-tree',
  pinned.worktree,
  '--no-optional-locks',
  '-c',
  'core.hooksPath=/dev/null',
  ...NO_SUBMODULES,
  ...(pinned.guard ?? []),
  ...args,
];

export const pinnedLine = async (pinned: PinnedWorktree, args: readonly string[]): Promise<string> =>
  (await runPinned(pinned, args)).stdout.trim();

/** The paths of the gitlinks (submodules, nested repositories) in `git ls-files -s -z` output. */
export const gitlinksOf = (lsFilesStage: string): string[] =>
  splitZ(lsFilesStage).flatMap((entry) => {
    // `[<tag> ]<mode> <object> <stage>\t<path>` (the tag with `-v`).
    const tab = entry.indexOf('\t');
    return tab !== -1 && /(?:^|\s)160000 /.test(entry.slice(0, tab)) ? [entry.slice(tab + 1)] : [];
  });

/** A gitlink's mode (0160000) as the index stores it: a 32-bit big-endian number. */
const GITLINK_MODE = Buffer.from([0, 0, 0xe0, 0]);

/**
 * Whether the worktree's index may hold a gitlink, from its bytes (no git process): false only
 * when it certainly holds none (no gitlink mode anywhere in it, and no split index whose shared
 * part could hold one). Most repositories have none, and their settling then asks git nothing more.
 */
const mayHoldGitlinks = (gitDir: string): boolean => {
  const index = readAgentFile(path.join(gitDir, 'index'), gitDir, 256 * 2 ** 20);
  if (index.kind === 'missing') return false;
  return index.kind !== 'read' || index.content.includes(GITLINK_MODE) || index.content.includes('link');
};

/**
 * The gitlinks of the worktree's index whose folder holds a `.git` (of any kind): a repository the
 * agent could have configured, which git would look into to ask whether it has changes.
 */
export async function populatedGitlinks(pinned: PinnedWorktree): Promise<string[]> {
  if (!mayHoldGitlinks(pinned.gitDir)) return [];
  const listed = await runPinned(pinned, ['ls-files', '-s', '-z']);
  const found = await Promise.all(
    gitlinksOf(listed.stdout).map(async (file) =>
      (await lstat(path.join(pinned.worktree, file, '.git')).catch(() => null)) === null ? null : file,
    ),
  );
  return found.filter((file): file is string => file !== null);
}
