/**
 * What hydra needs to know about the user's repository before a race, and the few things it writes
 * into `.git` (exclusion lines only).
 */
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, realpath, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ErrorInfo } from '../../core/events.js';
import { EngineError } from '../errors.js';
import { gitVersion, runGit, splitZ, versionAtLeast } from './git.js';
import type { GitResult } from './git.js';
import { GIT_DIR_QUESTIONS, rememberGitDirs } from './git-dir.js';

/** What `hydra doctor` says about git and the repository. */
export interface RepoInfo {
  gitVersion: string | null;
  isRepo: boolean;
  root: string | null;
  branch: string | null;
  detached: boolean;
  head: string | null;
  hasCommits: boolean;
  dirtyFiles: number;
  problems: ErrorInfo[];
}

/** A reason hydra will not race (or merge) in this repository. */
const problem = (message: string, hint: string): ErrorInfo => ({ kind: 'Refused', message, hint });

/** Problems that do not stop a race (they only stop a merge). */
const nonBlocking = new WeakSet<ErrorInfo>();
const mergeProblem = (message: string, hint: string): ErrorInfo => {
  const info = problem(message, hint);
  nonBlocking.add(info);
  return info;
};

/** Whether a problem inspectRepo found stops a race (the others only stop a merge). */
export const blocksRace = (info: ErrorInfo): boolean => !nonBlocking.has(info);

/** The repository's top-level directory (real path), or null when `dir` is not in a git work tree. */
export async function findRepoRoot(dir: string): Promise<string | null> {
  if (!existsSync(dir)) return null;
  const result = await runGit(dir, ['rev-parse', '--show-toplevel'], { okExitCodes: [128] }).catch(
    () => null,
  );
  if (result === null || result.exitCode !== 0) return null;
  const root = result.stdout.trim();
  return root === '' ? null : realpath(root);
}

const STATUS_ARGS = ['--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'];

/** The paths of `git status` porcelain output. */
const statusPaths = (stdout: string): string[] =>
  splitZ(stdout)
    .map((entry) => entry.slice(3))
    .filter((file) => file.length > 0);

/** Porcelain status entries (staged, unstaged, untracked), each as its path(s). */
export async function dirtyPaths(root: string): Promise<string[]> {
  const { stdout } = await runGit(root, ['status', ...STATUS_ARGS]);
  return statusPaths(stdout);
}

const HEAD_COMMIT = ['rev-parse', '--verify', '-q', 'HEAD^{commit}'];
const HEAD_BRANCH = ['symbolic-ref', '-q', '--short', 'HEAD'];
/** `rev-parse --verify` and `symbolic-ref` answer "no" with 1 (or 128 without a commit). */
const OK_ANSWERS = { okExitCodes: [1, 128] };

export async function inspectRepo(repoPath: string): Promise<RepoInfo> {
  // Every question goes to git at once, asked where hydra was started: git finds the repository
  // from there as `--show-toplevel` does, so a race's start waits for one round of git processes,
  // not two. Their answers count only once that found a repository.
  const dir = path.resolve(repoPath);
  const ask = (args: string[]): Promise<GitResult | null> =>
    existsSync(dir) ? runGit(dir, args, OK_ANSWERS).catch(() => null) : Promise.resolve(null);
  const [version, root, early] = await Promise.all([
    gitVersion(),
    findRepoRoot(dir),
    Promise.all([ask(HEAD_COMMIT), ask(HEAD_BRANCH), ask(['status', ...STATUS_ARGS])]),
  ]);
  const info: RepoInfo = {
    gitVersion: version,
    isRepo: false,
    root: null,
    branch: null,
    detached: false,
    head: null,
    hasCommits: false,
    dirtyFiles: 0,
    problems: [],
  };
  if (version === null) {
    info.problems.push(problem('git is not installed or not on PATH.', 'Install git 2.38 or newer.'));
    return info;
  }
  if (!versionAtLeast(version, 2, 38)) {
    info.problems.push(
      mergeProblem(
        `git ${version} is too old for hydra's conflict check (git merge-tree --write-tree needs 2.38).`,
        'Upgrade git to 2.38 or newer; races still run, but merging will be refused.',
      ),
    );
  }
  if (root === null) {
    info.problems.push(
      problem(
        `${path.resolve(repoPath)} is not inside a git repository.`,
        'Run hydra inside a git repository, or create one with `git init`.',
      ),
    );
    return info;
  }
  info.isRepo = true;
  info.root = root;
  // An early question git could not answer (it failed there) is asked again from the root.
  const [head, branch, dirty] = await Promise.all([
    early[0] ?? runGit(root, HEAD_COMMIT, OK_ANSWERS),
    early[1] ?? runGit(root, HEAD_BRANCH, OK_ANSWERS),
    early[2]?.exitCode === 0 ? statusPaths(early[2].stdout) : dirtyPaths(root),
  ]);
  info.hasCommits = head.exitCode === 0;
  info.head = info.hasCommits ? head.stdout.trim() : null;
  info.branch = branch.exitCode === 0 ? branch.stdout.trim() : null;
  info.detached = branch.exitCode !== 0;
  if (!info.hasCommits) {
    info.problems.push(
      problem(
        'The repository has no commits yet, so there is nothing to start a race from.',
        'Make a first commit (e.g. `git commit --allow-empty -m init`), then run hydra again.',
      ),
    );
  } else if (info.detached) {
    // A race needs only a commit; the merge needs a branch, and refuses without one.
    info.problems.push(
      mergeProblem(
        `HEAD is detached (at ${info.head?.slice(0, 12) ?? 'unknown'}): races run, but a result can only be merged into a branch.`,
        'To merge here later, create a branch first: `git switch -c <new-branch>` (or `git switch <branch>`).',
      ),
    );
  }
  info.dirtyFiles = dirty.length;
  return info;
}

export interface RepoCheck {
  root: string;
  baseRef: string;
  /** The branch HEAD is on; null on a detached HEAD (the race runs, its merge is refused). */
  baseBranch: string | null;
  gitVersion: string | null;
  warnings: string[];
}

/**
 * Refuses a race on a repository it cannot safely run in (not a repo, no commits); warns about a
 * detached HEAD (nothing to merge into) and uncommitted changes, which hydra never touches and the
 * agents never see.
 */
export async function checkRepoForRace(repoPath: string): Promise<RepoCheck> {
  const info = await inspectRepo(repoPath);
  const blocking = info.problems.find((item) => !nonBlocking.has(item));
  if (blocking !== undefined || info.root === null || info.head === null) {
    const first =
      blocking ?? problem('The repository could not be read.', 'Run `git status` to see what is wrong.');
    throw new EngineError({ kind: first.kind, message: first.message, hint: first.hint });
  }
  const warnings = info.problems.map((item) => `${item.message} ${item.hint}`);
  if (info.dirtyFiles > 0) {
    warnings.push(
      `You have ${info.dirtyFiles} uncommitted change${info.dirtyFiles === 1 ? '' : 's'}: hydra never touches them, and the agents start from the last commit (${info.head.slice(0, 12)}), so they do not see them.`,
    );
  }
  return {
    root: info.root,
    baseRef: info.head,
    baseBranch: info.branch,
    gitVersion: info.gitVersion,
    warnings,
  };
}

export const HYDRA_EXCLUDES = ['/.hydra/', '/.cache/hydra/'];

const EXCLUDE_COMMENT = '# added by hydra (run records and caches)';

/** The new text of an exclude file with every pattern in it: under hydra's one comment line. */
const withExcludes = (current: string, patterns: readonly string[]): string | null => {
  const lines = current.split(/\r?\n/);
  const present = new Set(lines.map((line) => line.trim()));
  const missing = [...new Set(patterns)].filter((pattern) => !present.has(pattern));
  if (missing.length === 0) return null;
  const comment = lines.findIndex((line) => line.trim() === EXCLUDE_COMMENT);
  if (comment !== -1) {
    lines.splice(comment + 1, 0, ...missing);
    return lines.join('\n');
  }
  const prefix = current.length > 0 && !current.endsWith('\n') ? '\n' : '';
  return `${current}${prefix}${EXCLUDE_COMMENT}\n${missing.join('\n')}\n`;
};

/** One update of the exclude file at a time in this process (a probe and a race may both ask). */
let excludeQueue: Promise<void> = Promise.resolve();

/**
 * Where each repository's exclude file is, asked of git once per process (a race asks twice), with
 * the git directories its snapshot needs in the same `rev-parse` (git-dir.ts rememberGitDirs).
 */
const excludeFiles = new Map<string, string>();

const excludeFileOf = async (root: string): Promise<string> => {
  const known = excludeFiles.get(root);
  if (known !== undefined) return known;
  const { stdout } = await runGit(root, ['rev-parse', '--git-path', 'info/exclude', ...GIT_DIR_QUESTIONS]);
  const [exclude = '', ...dirs] = stdout.trim().split('\n');
  const file = path.resolve(root, exclude);
  excludeFiles.set(root, file);
  if (dirs.length === GIT_DIR_QUESTIONS.length) rememberGitDirs(root, dirs);
  return file;
};

/**
 * Adds lines to `.git/info/exclude` (shared by all worktrees) unless already there, under one
 * comment line. The file is replaced whole (a temp file, then a rename), so two hydras updating it at
 * once both write the same text instead of appending the block twice.
 */
export function ensureExcluded(root: string, patterns: readonly string[] = HYDRA_EXCLUDES): Promise<void> {
  const update = excludeQueue.then(async () => {
    const file = await excludeFileOf(root);
    await mkdir(path.dirname(file), { recursive: true });
    const stat = await lstat(file).catch(() => null);
    const current = stat === null ? '' : await readFile(file, 'utf8');
    const next = withExcludes(current, patterns);
    if (next === null) return;
    if (stat?.isSymbolicLink() === true) {
      await writeFile(file, next);
      return;
    }
    const temp = `${file}.hydra-${process.pid}.tmp`;
    await writeFile(temp, next, { mode: stat === null ? 0o644 : stat.mode & 0o777 });
    await rename(temp, file);
  });
  excludeQueue = update.catch(() => undefined);
  return update;
}
