/**
 * The repository's shared git directory is the user's. Every worktree shares its config, hooks and
 * `info/` (attributes, exclude, sparse-checkout), and what is there runs or hides things in the
 * user's own `git status` and `git commit`: a hook, `core.fsmonitor`, an alias, a pager, a filter,
 * an include. hydra takes a copy of them when a race (or a round, or a shell) starts, puts back
 * whatever changed when each agent settles and when the race ends, and says what it found. While
 * agents still run, hydra's own git commands on their work ignore what appeared in the config since
 * the start (hardeningArgs) and stage files an agent's new `info/exclude` would hide (addHidden).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { lstat, mkdir, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runGit, splitZ } from './git.js';
import type { GitResult } from './git.js';

type Entry =
  { kind: 'file'; mode: number; content: Buffer } | { kind: 'symlink'; target: string } | { kind: 'dir' };

export interface GitDirSnapshot {
  /** The shared git directory (absolute). */
  commonDir: string;
  /** The checkout's own git directory, where its HEAD is (absolute). */
  gitDir: string;
  /** `sha1` or `sha256`. */
  objectFormat: string;
  /** Each file and folder watched, by its path relative to commonDir. */
  entries: Map<string, Entry>;
  /** The folders whose every file is the user's (relative): a file added there is removed. */
  dirs: string[];
  /** The single files watched (relative), whether or not they existed. */
  files: string[];
  /** `git config --list` at the start (every scope): key → its values. */
  config: Map<string, string[]>;
}

/** At most so many files per watched folder (a hooks folder holds tens). */
const MAX_FILES = 2000;

/**
 * Files up to this size are read in one synchronous call: a hooks folder's and info/'s files are a
 * few KB, and each asynchronous read is four trips through the thread pool (a walk of a fresh
 * repository's hooks and info/ took ~1.5 CPU-ms so, ~0.3 read at once; a race walks them once at its
 * start, once per agent's settling and once at its end). A larger file is read asynchronously.
 */
const READ_AT_ONCE_BYTES = 256 * 1024;

async function readEntry(file: string): Promise<Entry | null> {
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return null;
  }
  if (stat.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(file) };
  if (stat.isDirectory()) return { kind: 'dir' };
  if (!stat.isFile()) return null;
  const content = stat.size <= READ_AT_ONCE_BYTES ? readFileSync(file) : await readFile(file);
  return { kind: 'file', mode: stat.mode & 0o7777, content };
}

const entriesOf = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** Every entry under `dir` (relative to `base`), folders included, not following symlinks. */
async function walk(base: string, dir: string, into: Map<string, Entry>): Promise<void> {
  const top = await readEntry(path.join(base, dir));
  if (top === null) return;
  into.set(dir, top);
  if (top.kind !== 'dir') return;
  const queue = [dir];
  while (queue.length > 0 && into.size < MAX_FILES) {
    const current = queue.shift()!;
    for (const name of entriesOf(path.join(base, current))) {
      const rel = path.join(current, name);
      const entry = await readEntry(path.join(base, rel));
      if (entry === null) continue;
      into.set(rel, entry);
      if (entry.kind === 'dir') queue.push(rel);
    }
  }
}

const parseConfigList = (stdout: string): Map<string, string[]> => {
  const config = new Map<string, string[]>();
  for (const item of splitZ(stdout)) {
    const newline = item.indexOf('\n');
    const key = newline === -1 ? item : item.slice(0, newline);
    const value = newline === -1 ? '' : item.slice(newline + 1);
    config.set(key, [...(config.get(key) ?? []), value]);
  }
  return config;
};

const readConfig = async (
  cwd: string,
  gitArgs: readonly string[] = [],
): Promise<Map<string, string[]> | null> => {
  const result = await runGit(cwd, [...gitArgs, 'config', '--list', '-z'], { okExitCodes: [1, 128] }).catch(
    () => null,
  );
  return result === null || result.exitCode !== 0 ? null : parseConfigList(result.stdout);
};

/** `git rev-parse` options for the directories a snapshot needs, in the order of their answer lines. */
export const GIT_DIR_QUESTIONS = ['--absolute-git-dir', '--git-common-dir', '--show-object-format'];

/**
 * Answers to GIT_DIR_QUESTIONS that git gave beside another question (repo.ts asks them with the
 * exclude file's path, once per repository in this process), by root: the next snapshot of that
 * repository takes them instead of asking again, once; later snapshots ask git.
 */
const answered = new Map<string, string[]>();

export const rememberGitDirs = (root: string, lines: string[]): void => {
  answered.set(root, lines);
};

/** The snapshot of the latest race (or round) started in this process, by shared git directory. */
const active = new Map<string, GitDirSnapshot>();

/** The git directories, the object format and the config of the repository at `root`. */
export async function snapshotGitDir(root: string): Promise<GitDirSnapshot> {
  const known = answered.get(root);
  answered.delete(root);
  const [dirs, config] = await Promise.all([
    known ??
      runGit(root, ['rev-parse', ...GIT_DIR_QUESTIONS]).then((result) => result.stdout.trim().split('\n')),
    readConfig(root),
  ]);
  const [gitDir = '', common = '', objectFormat = 'sha1'] = dirs;
  const commonDir = path.resolve(root, common);
  const entries = new Map<string, Entry>();
  const watchedDirs = ['hooks', 'info'];
  const hooksPath = config?.get('core.hookspath')?.at(-1);
  if (hooksPath !== undefined && hooksPath !== '') {
    // A hooks folder of the user's inside the git directory: an agent can write there as well.
    const rel = path.relative(commonDir, path.resolve(root, hooksPath));
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) && !watchedDirs.includes(rel))
      watchedDirs.push(rel);
  }
  const files = ['config', 'config.worktree', path.join('objects', 'info', 'alternates')];
  for (const name of await readdir(path.join(commonDir, 'worktrees')).catch(() => [] as string[]))
    if (!(await isHydraWorktree(path.join(commonDir, 'worktrees', name))))
      files.push(path.join('worktrees', name, 'config.worktree'));
  await Promise.all(watchedDirs.map((dir) => walk(commonDir, dir, entries)));
  for (const file of files) {
    const entry = await readEntry(path.join(commonDir, file));
    if (entry !== null) entries.set(file, entry);
  }
  const snapshot: GitDirSnapshot = {
    commonDir,
    gitDir,
    objectFormat,
    entries,
    dirs: watchedDirs,
    files,
    config: config ?? new Map(),
  };
  active.set(commonDir, snapshot);
  return snapshot;
}

const sameEntry = (a: Entry | null | undefined, b: Entry | null | undefined): boolean => {
  if (a === null || a === undefined || b === null || b === undefined) return a == b;
  if (a.kind !== b.kind) return false;
  if (a.kind === 'file' && b.kind === 'file') return a.mode === b.mode && a.content.equals(b.content);
  if (a.kind === 'symlink' && b.kind === 'symlink') return a.target === b.target;
  return true;
};

/** Puts one entry back as the snapshot has it (or removes it). */
async function putBack(file: string, entry: Entry | undefined): Promise<void> {
  const now = await lstat(file).catch(() => null);
  if (entry === undefined) {
    if (now !== null) await rm(file, { recursive: true, force: true });
    return;
  }
  if (entry.kind === 'dir') {
    if (now !== null && !now.isDirectory()) await rm(file, { force: true });
    await mkdir(file, { recursive: true });
    return;
  }
  if (now?.isDirectory() === true) await rm(file, { recursive: true, force: true });
  const temp = `${file}.hydra-${process.pid}.tmp`;
  await rm(temp, { force: true });
  if (entry.kind === 'symlink') await symlink(entry.target, temp);
  else await writeFile(temp, entry.content, { mode: entry.mode });
  await rename(temp, file);
}

/** The config keys that differ between two config texts (null when either cannot be read). */
async function changedKeys(root: string, before: Buffer | undefined, after: Buffer | undefined) {
  const list = async (text: Buffer | undefined): Promise<Map<string, string[]> | null> => {
    if (text === undefined) return new Map();
    const result: GitResult | null = await runGit(root, ['config', '-z', '--list', '--file', '-'], {
      input: text.toString('utf8'),
      okExitCodes: [1, 128],
    }).catch(() => null);
    return result === null || result.exitCode !== 0 ? null : parseConfigList(result.stdout);
  };
  const [old, now] = await Promise.all([list(before), list(after)]);
  if (old === null || now === null) return null;
  const keys = new Set([...old.keys(), ...now.keys()]);
  return [...keys]
    .filter((key) => (old.get(key) ?? []).join('\0') !== (now.get(key) ?? []).join('\0'))
    .sort();
}

/** Said once per snapshot: a later settling finds the same change and says nothing new. */
const reported = new WeakMap<GitDirSnapshot, Set<string>>();

/**
 * A worktree of hydra's own (an agent's, the baseline's, a check's or a pooled one): it lives in a
 * run's folder (named by its run id) or in the pool (`.pool`). Hydra resets or removes those itself,
 * so their config.worktree is not the user's to put back (a pool reset clears what the last agent
 * left there, and a restore must not bring it back).
 */
const isHydraWorktree = async (entry: string): Promise<boolean> => {
  const gitdir = (await readFile(path.join(entry, 'gitdir'), 'utf8').catch(() => '')).trim();
  if (gitdir === '') return false;
  const holder = path.basename(path.dirname(path.dirname(gitdir)));
  return holder === '.pool' || /^\d{8}-\d{6}-[0-9a-f]{4}$/.test(holder);
};

/**
 * Puts the shared git directory's config, hooks and info/ back as the snapshot has them; returns
 * one warning naming what changed, or none. `found` says when (`during the race (found when ...)`).
 */
export async function restoreGitDir(
  root: string,
  snapshot: GitDirSnapshot,
  found: string,
): Promise<string[]> {
  const { commonDir } = snapshot;
  const current = new Map<string, Entry>();
  await Promise.all(snapshot.dirs.map((dir) => walk(commonDir, dir, current)));
  const changed: string[] = [];
  const failed: string[] = [];
  const fix = async (rel: string, before: Entry | undefined, after: Entry | null | undefined) => {
    if (sameEntry(before, after)) return;
    try {
      await putBack(path.join(commonDir, rel), before);
    } catch (error) {
      failed.push(`${rel} (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    if (rel === 'config' || rel.endsWith('config.worktree')) {
      const keys = await changedKeys(
        root,
        before?.kind === 'file' ? before.content : undefined,
        after?.kind === 'file' ? after.content : undefined,
      );
      changed.push(keys === null || keys.length === 0 ? rel : `${rel} (${keys.join(', ')})`);
    } else if (before?.kind === 'dir' && after?.kind === 'dir') {
      // A folder's own change is its files'.
    } else changed.push(`${rel} (${before === undefined ? 'added' : after == null ? 'deleted' : 'changed'})`);
  };
  // Folders first (a folder turned into a link is made a folder again), then what is in them;
  // what was added is removed deepest first.
  const inDirs = [...snapshot.entries.keys()].filter((rel) => !snapshot.files.includes(rel)).sort();
  for (const rel of inDirs)
    await fix(rel, snapshot.entries.get(rel), await readEntry(path.join(commonDir, rel)));
  const added = [...current.keys()]
    .filter((rel) => !snapshot.entries.has(rel))
    .sort()
    .reverse();
  for (const rel of added) {
    // Under a folder removed a moment ago: already gone.
    if (added.some((other) => other !== rel && rel.startsWith(`${other}${path.sep}`))) continue;
    await fix(rel, undefined, current.get(rel));
  }
  for (const rel of snapshot.files)
    await fix(rel, snapshot.entries.get(rel), await readEntry(path.join(commonDir, rel)));
  if (changed.length === 0 && failed.length === 0) return [];
  const seen = reported.get(snapshot) ?? new Set<string>();
  reported.set(snapshot, seen);
  const key = createHash('sha256')
    .update(`${changed.join('\n')}\0${failed.join('\n')}`)
    .digest('hex');
  if (seen.has(key)) return [];
  seen.add(key);
  const what =
    changed.length === 0 ? '' : ` hydra put back ${changed.join(', ')} as they were when it started.`;
  const notFixed =
    failed.length === 0
      ? ''
      : ` hydra could not put back ${failed.join(', ')}: compare them with a clone and remove what you did not write.`;
  return [
    `The repository's shared git settings in ${commonDir} were changed ${found} (what is there runs in your own git commands: hooks, filters, fsmonitor, pager, aliases, includes, attributes and excludes).${what}${notFixed}`,
  ];
}

/** Config values that run a program or change what hydra's git reads, when they were not there at the start. */
const RISKY: ReadonlyArray<{ pattern: RegExp; neutral: string | (() => string) }> = [
  { pattern: /^filter\..+\.(clean|smudge|process)$/, neutral: '' },
  { pattern: /^filter\..+\.required$/, neutral: 'false' },
  { pattern: /^diff\..+\.(textconv|command)$/, neutral: '' },
  { pattern: /^diff\.external$/, neutral: '' },
  // A driver of '' would "merge" by keeping one side; `false` makes every such file a conflict.
  { pattern: /^merge\..+\.driver$/, neutral: 'false' },
  { pattern: /^gpg\.(program|openpgp\.program)$/, neutral: 'gpg' },
  { pattern: /^gpg\.x509\.program$/, neutral: 'gpgsm' },
  { pattern: /^gpg\.ssh\.program$/, neutral: 'ssh-keygen' },
  { pattern: /^gpg\.ssh\.defaultkeycommand$/, neutral: '' },
  { pattern: /^(commit|tag)\.gpgsign$/, neutral: 'false' },
  { pattern: /^core\.(sshcommand|askpass|editor)$/, neutral: '' },
  // What decides which files are committed and how: git's own defaults, as before the agent.
  { pattern: /^core\.excludesfile$/, neutral: () => userGitFile('ignore') },
  { pattern: /^core\.attributesfile$/, neutral: () => userGitFile('attributes') },
  { pattern: /^sequence\.editor$/, neutral: '' },
];

/**
 * `-c` switches for a git command of hydra's on an agent's work: every program-running or
 * file-choosing config value that was not there (with that value) when the race started is
 * overridden by its harmless default, so an agent's new filter, diff driver, merge driver or
 * signing program does not run as hydra (outside the agent's containment). `gitArgs` pick the
 * worktree whose config is read (`--git-dir`, for its config.worktree). None without a snapshot of
 * the repository in this process (git.ts's STATIC_HARDENING still applies).
 */
export async function hardeningArgs(
  commonDir: string,
  cwd: string,
  gitArgs: readonly string[] = [],
): Promise<string[]> {
  const snapshot = active.get(commonDir);
  if (snapshot === undefined) return [];
  const now = await readConfig(cwd, gitArgs);
  const args: string[] = [];
  for (const [key, values] of now ?? []) {
    const rule = RISKY.find((item) => item.pattern.test(key));
    if (rule === undefined) continue;
    const before = snapshot.config.get(key);
    if (before !== undefined && before.join('\0') === values.join('\0')) continue;
    const neutral = typeof rule.neutral === 'string' ? rule.neutral : rule.neutral();
    args.push('-c', `${key}=${before?.at(-1) ?? neutral}`);
  }
  return args;
}

/** git's default for the user's own `ignore` or `attributes` file. */
const userGitFile = (name: string): string =>
  path.join(process.env['XDG_CONFIG_HOME'] || path.join(process.env['HOME'] ?? '', '.config'), 'git', name);

/** The user's own excludes file (core.excludesFile, else git's default), when there is one. */
const globalExcludes = (snapshot: GitDirSnapshot): string | null => {
  const configured = snapshot.config.get('core.excludesfile')?.at(-1);
  const file =
    configured !== undefined && configured !== ''
      ? configured.replace(/^~(?=\/|$)/, process.env['HOME'] ?? '')
      : userGitFile('ignore');
  return existsSync(file) ? file : null;
};

const EXCLUDE = path.join('info', 'exclude');

/** Whether the shared `info/exclude` is not what it was when the race started (addHidden's cue). */
export async function excludeChanged(commonDir: string): Promise<boolean> {
  const snapshot = active.get(commonDir);
  if (snapshot === undefined) return false;
  return !sameEntry(snapshot.entries.get(EXCLUDE), await readEntry(path.join(commonDir, EXCLUDE)));
}

/**
 * After `git add -A` in an agent's worktree: when the shared `info/exclude` is not what it was at
 * the start (another agent wrote `*` there), the files it hides but the start's excludes did not
 * are staged too, so one agent cannot make another's new files vanish. `git` runs a command pinned
 * to the worktree. `changedBefore`: the exclude was changed before the `git add -A` (excludeChanged),
 * which then hid files, although the writer's settling may have put it back since.
 */
export async function addHidden(
  commonDir: string,
  git: (args: readonly string[], input?: string) => Promise<GitResult>,
  changedBefore = false,
): Promise<void> {
  const snapshot = active.get(commonDir);
  if (snapshot === undefined) return;
  const before = snapshot.entries.get(EXCLUDE);
  if (!changedBefore && !(await excludeChanged(commonDir))) return;
  // One file per call: the agents of a race settle at once, and one's `rm` below must not take
  // the file from under another's `ls-files` ("cannot use … as an exclude file").
  const excludes = path.join(
    tmpdir(),
    `hydra-exclude-${process.pid}-${createHash('sha1').update(commonDir).digest('hex').slice(0, 8)}-${randomBytes(4).toString('hex')}`,
  );
  await writeFile(excludes, before?.kind === 'file' ? before.content : '', { mode: 0o600 });
  const global = globalExcludes(snapshot);
  try {
    const { stdout } = await git([
      'ls-files',
      '--others',
      '-z',
      '--exclude-per-directory=.gitignore',
      `--exclude-from=${excludes}`,
      ...(global === null ? [] : [`--exclude-from=${global}`]),
    ]);
    const hidden = splitZ(stdout);
    if (hidden.length === 0) return;
    await git(['add', '-f', '--pathspec-from-file=-', '--pathspec-file-nul'], `${hidden.join('\0')}\0`);
  } finally {
    await rm(excludes, { force: true });
  }
}
