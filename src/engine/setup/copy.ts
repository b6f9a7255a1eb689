/**
 * Copies the ignored files `.worktreeinclude` and `[setup] copy` name from the user's checkout into
 * a worktree hydra made (an agent's, the baseline's, a check's checkout), right after it is made
 * (docs/setup-copy.md). Regular files only, never through a symlink on either side, never over a
 * file the worktree has; modes kept. The values of copied env-like files become secrets: redacted
 * from everything this process records or shows from then on, and recorded as hashes in the run's
 * copied.json, so a merge refuses a result that commits a copied file or adds one of its values.
 */
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { KnownSecret } from '../records/index.js';
import { readCopyRecord, rememberSecrets, writeCopyRecord } from '../records/index.js';
import type { CopyRecord } from '../records/index.js';
import { includePatterns, listIncludedFiles, readWorktreeInclude, WORKTREE_INCLUDE } from './include-list.js';
import { isEnvLike, secretValues, valueHash } from './env-values.js';
import type { EnvValue } from './env-values.js';
import { rememberCopied } from '../container/index.js';

export interface CopyRequest {
  /** The user's checkout, where the files are. */
  checkout: string;
  /** The worktree or checkout hydra just made. */
  target: string;
  /** `[setup] copy`: patterns besides the checkout's `.worktreeinclude`. */
  patterns: readonly string[];
  /** The run's record directory: what was copied is added to its copied.json. */
  recordDir?: string;
}

export interface CopySkip {
  path: string;
  reason: string;
}

export interface CopyReport {
  /** Copied, relative to the checkout (and the target). */
  copied: string[];
  /** Matched but not copied, and why. */
  skipped: CopySkip[];
}

/** One file read safely from the checkout: its bytes and mode, or why it is not copied. */
type Source = { content: Buffer; mode: number } | { skip: string };

/** A file larger than this is not copied (a copied file is read whole). */
const MAX_COPY_BYTES = 64 * 2 ** 20;

/** hydra's own records are ignored (info/exclude) but never copied. */
const HYDRA_DIR = '.hydra/';

/**
 * Every directory on the way to `file` under `root` is a real directory (no symlink), or missing
 * when `create` (then made); the reason otherwise.
 */
async function directoriesOnTheWay(root: string, file: string, create: boolean): Promise<string | null> {
  const parts = file.split('/').slice(0, -1);
  let dir = root;
  for (const part of parts) {
    dir = path.join(dir, part);
    const stat = await lstat(dir).catch(() => null);
    if (stat === null && create) {
      await mkdir(dir);
      continue;
    }
    if (stat === null) return `${path.relative(root, dir)} is gone`;
    if (stat.isSymbolicLink()) return `${path.relative(root, dir)} is a symlink`;
    if (!stat.isDirectory()) return `${path.relative(root, dir)} is not a directory`;
  }
  return null;
}

/** The file's bytes and mode, read without following a symlink. */
async function readSource(checkout: string, file: string): Promise<Source> {
  const why = await directoriesOnTheWay(checkout, file, false);
  if (why !== null) return { skip: `in the checkout, ${why}` };
  const handle = await open(
    path.join(checkout, file),
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  ).catch((error: NodeJS.ErrnoException) => error);
  if (!('read' in handle))
    return { skip: handle.code === 'ELOOP' ? 'a symlink' : `unreadable (${handle.code})` };
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { skip: 'not a regular file' };
    if (stat.size > MAX_COPY_BYTES)
      return { skip: `larger than ${MAX_COPY_BYTES / 2 ** 20} MB (for dependencies, use [setup] share)` };
    // Permission bits only: no set-user-id, set-group-id or sticky bit on a copy.
    return { content: await handle.readFile(), mode: stat.mode & 0o777 };
  } finally {
    await handle.close();
  }
}

/** Writes a new file in the target: never over anything there, never through a symlink. */
async function writeTarget(
  target: string,
  file: string,
  source: { content: Buffer; mode: number },
): Promise<string | null> {
  const why = await directoriesOnTheWay(target, file, true);
  if (why !== null) return `in the worktree, ${why}`;
  const destination = path.join(target, file);
  if ((await lstat(destination).catch(() => null)) !== null) return 'the worktree has this file already';
  const handle = await open(
    destination,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    source.mode,
  );
  try {
    await handle.writeFile(source.content);
  } finally {
    await handle.close();
  }
  // The mode as it was (open's mode passes through the umask).
  await chmod(destination, source.mode);
  return null;
}

/** The secret values of one copied file (none unless it is env-like). */
const valuesOf = (file: string, content: Buffer): EnvValue[] =>
  isEnvLike(file) ? secretValues(content.toString('utf8')) : [];

/** A copied value as redaction names it (`[redacted: env API_KEY from .env]`). */
const copiedSecret = (file: string, { key, value }: EnvValue): KnownSecret => ({
  name: `${key} from ${file}`,
  value,
});

/** copied.json with these files added (a rerun's copies join the first round's). */
function recordCopies(recordDir: string, files: CopyRecord['files']): void {
  const read = readCopyRecord(recordDir);
  const earlier = 'value' in read && read.value !== null ? read.value.files : [];
  const byPath = new Map(earlier.map((entry) => [entry.path, entry]));
  for (const entry of files) {
    const known = byPath.get(entry.path);
    const hashes = new Map([...(known?.secrets ?? []), ...entry.secrets].map((item) => [item.sha256, item]));
    byPath.set(entry.path, { path: entry.path, secrets: [...hashes.values()] });
  }
  writeCopyRecord(recordDir, { files: [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path)) });
}

/**
 * Copies what `.worktreeinclude` and `patterns` name from the checkout into the target. Files it
 * cannot copy safely are skipped with the reason; a failure to write the target throws.
 */
export async function copyIncludedFiles(request: CopyRequest): Promise<CopyReport> {
  const lines = await includePatterns(request.checkout, request.patterns);
  const matched = await listIncludedFiles(request.checkout, lines);
  const report: CopyReport = { copied: [], skipped: [] };
  const recorded: CopyRecord['files'] = [];
  for (const file of matched) {
    if (file.startsWith(HYDRA_DIR)) {
      report.skipped.push({ path: file, reason: "hydra's own records" });
      continue;
    }
    const source = await readSource(request.checkout, file);
    if ('skip' in source) {
      report.skipped.push({ path: file, reason: source.skip });
      continue;
    }
    const values = valuesOf(file, source.content);
    // Known before the file is in the worktree: nothing can print a value before it is redacted.
    rememberSecrets(values.map((value) => copiedSecret(file, value)));
    const why = await writeTarget(request.target, file, source);
    if (why !== null) {
      report.skipped.push({ path: file, reason: why });
      continue;
    }
    report.copied.push(file);
    recorded.push({
      path: file,
      secrets: values.map(({ key, value }) => ({ key, sha256: valueHash(value) })),
    });
  }
  if (request.recordDir !== undefined && recorded.length > 0) recordCopies(request.recordDir, recorded);
  // A remote engine's container gets them too (container/remote-checkout.ts).
  rememberCopied(request.target, report.copied);
  return report;
}

/** What a race in this checkout would copy (for `hydra doctor`): where the patterns come from, and the files. */
export interface CopyPreview {
  /** `.worktreeinclude` and/or `[setup] copy`, those that exist. */
  sources: string[];
  /** The files a worktree would get. */
  files: string[];
  /** Matched files that would not be copied, and why. */
  skipped: CopySkip[];
  /** The copied files whose values are treated as secrets. */
  secretFiles: string[];
}

export async function describeCopies(repoRoot: string, patterns: readonly string[]): Promise<CopyPreview> {
  const sources = [
    ...((await readWorktreeInclude(repoRoot)) === null ? [] : [WORKTREE_INCLUDE]),
    ...(patterns.length === 0 ? [] : ['[setup] copy']),
  ];
  const matched = await listIncludedFiles(repoRoot, await includePatterns(repoRoot, patterns));
  const preview: CopyPreview = { sources, files: [], skipped: [], secretFiles: [] };
  for (const file of matched) {
    const source = file.startsWith(HYDRA_DIR)
      ? { skip: "hydra's own records" }
      : await readSource(repoRoot, file);
    if ('skip' in source) {
      preview.skipped.push({ path: file, reason: source.skip });
      continue;
    }
    preview.files.push(file);
    if (valuesOf(file, source.content).length > 0) preview.secretFiles.push(file);
  }
  return preview;
}

/** What a merge checks a result against: the run's copied files and their secret values. */
export interface CopiedSecrets {
  /** The files copied into the run's worktrees, relative to the checkout. */
  paths: string[];
  /** Their secret values as the checkout holds them now. */
  values: KnownSecret[];
  /** Recorded values no longer in the checkout (the file changed since): hash → name. */
  hashes: Map<string, string>;
}

/**
 * The run's copied files (copied.json) and their secret values, read again from the checkout (the
 * record keeps hashes only); null when the run copied nothing, a problem when the record is damaged.
 */
export async function copiedForMerge(
  checkout: string,
  recordDir: string,
): Promise<CopiedSecrets | { problem: string } | null> {
  const read = readCopyRecord(recordDir);
  if ('problem' in read) return read;
  if (read.value === null || read.value.files.length === 0) return null;
  const copied: CopiedSecrets = { paths: [], values: [], hashes: new Map() };
  for (const entry of read.value.files) {
    copied.paths.push(entry.path);
    const source = await readSource(checkout, entry.path);
    const now = 'skip' in source ? [] : valuesOf(entry.path, source.content);
    copied.values.push(...now.map((value) => copiedSecret(entry.path, value)));
    const current = new Set(now.map(({ value }) => valueHash(value)));
    for (const { key, sha256 } of entry.secrets)
      if (!current.has(sha256)) copied.hashes.set(sha256, `${key} from ${entry.path}`);
  }
  return copied;
}
