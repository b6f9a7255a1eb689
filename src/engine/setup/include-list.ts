/**
 * Which files of the user's checkout a new worktree gets copied (docs/setup-copy.md): those the
 * patterns of `.worktreeinclude` and `[setup] copy` match (gitignore syntax) that git ignores. Git
 * answers both questions, and never walks an ignored directory the patterns cannot reach: the
 * ignored entries come first, each wholly ignored directory as one entry (`node_modules/`), and
 * the patterns are then matched only among them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readAgentFile } from '../agent-file.js';
import { HYDRA_EXCLUDES, runGit, splitZ } from '../git/index.js';

/** The repository's own file of patterns (Claude Code, Codex, Conductor, ccmanager). */
export const WORKTREE_INCLUDE = '.worktreeinclude';

/** Pathspecs per git call: far below the command line's limit. */
const PATHSPECS_PER_CALL = 500;

/** The pattern lines that can add a file: no blank line, comment or negation. */
const positivePatterns = (lines: readonly string[]): string[] =>
  lines
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('!'));

/** One path segment of a pattern as a regular expression (`*`, `?`; a bracket matches anything). */
const segmentMatches = (segment: string, name: string): boolean => {
  if (segment === '**' || segment.includes('[')) return true;
  const source = segment
    .replace(/\\(.)/g, '$1')
    .split('')
    .map((char) => (char === '*' ? '[^/]*' : char === '?' ? '[^/]' : char.replace(/[.+^${}()|\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`).test(name);
};

/**
 * Whether a pattern can match an ignored directory or anything inside it. A pattern with a slash is
 * anchored at the root and reaches in when its leading segments match the directory's; one without
 * a slash (`.env`) reaches in only when it names the directory or one of its parents: `.env` is not
 * looked for inside `node_modules/` (name it `node_modules/pkg/.env`, or begin it with `**` and a slash, to be).
 */
export const patternReaches = (pattern: string, dir: string): boolean => {
  const body = pattern.replace(/^\\/, '').replace(/\/+$/, '');
  const dirSegments = dir.replace(/\/+$/, '').split('/');
  if (!body.includes('/')) return dirSegments.some((name) => segmentMatches(body, name));
  const segments = body.replace(/^\/+/, '').split('/');
  for (let index = 0; index < Math.min(segments.length, dirSegments.length); index += 1) {
    const segment = segments[index]!;
    if (segment === '**') return true;
    if (!segmentMatches(segment, dirSegments[index]!)) return false;
  }
  return true;
};

/**
 * The text of `.worktreeinclude` in the checkout, or null (absent, or not a regular file: a
 * symlink is not followed, agent-file.ts).
 */
export async function readWorktreeInclude(checkout: string): Promise<string | null> {
  const read = readAgentFile(path.join(checkout, WORKTREE_INCLUDE), checkout);
  return read.kind === 'read' ? read.content.toString('utf8') : null;
}

/** Every pattern a race copies by: `.worktreeinclude`'s lines, then `[setup] copy`'s (later ones win, as in git). */
export async function includePatterns(checkout: string, patterns: readonly string[]): Promise<string[]> {
  const fromFile = await readWorktreeInclude(checkout);
  return [...(fromFile === null ? [] : fromFile.split(/\r?\n/)), ...patterns];
}

/** `:(literal)path`: a file name is a name, never a pathspec pattern. */
const literal = (file: string): string => `:(literal)${file}`;

/**
 * The files git ignores in the checkout that the patterns match, relative, sorted: untracked by
 * construction (`ls-files --others`), so a tracked file is never among them. Symlinks and other
 * non-regular files may be listed; copying skips them.
 */
export async function listIncludedFiles(checkout: string, lines: readonly string[]): Promise<string[]> {
  const positive = positivePatterns(lines);
  if (positive.length === 0) return [];
  // Ignored files, and wholly ignored directories as one entry each, not walked.
  const ignored = splitZ(
    (await runGit(checkout, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']))
      .stdout,
  );
  const files = ignored.filter((entry) => !entry.endsWith('/'));
  // A directory git also listed files of was walked (its own files are listed); the others are
  // entered only when a pattern reaches them.
  const prunedDirs = ignored.filter(
    (entry) => entry.endsWith('/') && !files.some((file) => file.startsWith(entry)),
  );
  const reached = prunedDirs.filter((dir) => positive.some((pattern) => patternReaches(pattern, dir)));
  const pathspecs = [...files, ...reached].map(literal);
  if (pathspecs.length === 0) return [];
  const dir = await mkdtemp(path.join(tmpdir(), 'hydra-copy-'));
  try {
    const patternFile = path.join(dir, 'patterns');
    await writeFile(patternFile, `${lines.join('\n')}\n`, { mode: 0o600 });
    const found = new Set<string>();
    for (let start = 0; start < pathspecs.length; start += PATHSPECS_PER_CALL) {
      const { stdout } = await runGit(checkout, [
        'ls-files',
        '-z',
        '--others',
        '--ignored',
        `--exclude-from=${patternFile}`,
        '--',
        ...pathspecs.slice(start, start + PATHSPECS_PER_CALL),
      ]);
      for (const file of splitZ(stdout)) found.add(file);
    }
    return [...found].sort();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** hydra's own records and cache (and a directory holding them, `.cache/`): never what a check lacks. */
const hydraOwn = HYDRA_EXCLUDES.map((dir) => dir.replace(/^\//, ''));

/**
 * The ignored files and directories of the checkout that a new worktree does not get: neither
 * copied (the patterns) nor shared (`[setup] share`), hydra's own records left out. A wholly
 * ignored directory is one entry (`node_modules/`). What a check that fails on the baseline too
 * may be missing (`.env`): the race's end names them.
 */
export async function ignoredNotCopied(
  dir: string,
  patterns: readonly string[],
  shared: readonly string[] = [],
): Promise<string[]> {
  // The race may have been started in a subdirectory: the worktrees are of the whole checkout.
  const checkout = (await runGit(dir, ['rev-parse', '--show-toplevel'])).stdout.trim();
  const ignored = splitZ(
    (await runGit(checkout, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']))
      .stdout,
  ).filter((entry) => !hydraOwn.some((own) => own.startsWith(entry) || entry.startsWith(own)));
  if (ignored.length === 0) return [];
  const copied = await listIncludedFiles(checkout, await includePatterns(checkout, patterns));
  const sharedDirs = shared.map((dir) => `${dir.replace(/^\/+|\/+$/g, '')}/`);
  const outer = ignored.filter(
    (entry) => !ignored.some((other) => other !== entry && other.endsWith('/') && entry.startsWith(other)),
  );
  return outer.filter((entry) =>
    entry.endsWith('/')
      ? !sharedDirs.some((dir) => entry.startsWith(dir) || dir.startsWith(entry)) &&
        !copied.some((file) => file.startsWith(entry))
      : !copied.includes(entry) && !sharedDirs.some((dir) => entry.startsWith(dir)),
  );
}
