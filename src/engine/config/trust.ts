/**
 * Consent for a repository's hydra.toml, as direnv, mise and VS Code's workspace trust do it: the
 * keys that widen what runs (trust-filter.ts) are used only once the user has trusted that file, by
 * its place (the path of the file in its repository, the directories resolved, never where a
 * symbolic link points) and the SHA-256 of its content; an edited file needs trust again, and a
 * hydra.toml that is a symbolic link out of its repository is never trusted. The trusted files are
 * listed in `$XDG_CONFIG_HOME/hydra/trusted.json` (else `~/.config/hydra/trusted.json`), readable
 * by the owner only. Config from `--config` and from the user's own config dir is trusted without it.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { findRepoRoot } from './locate.js';

const TRUST_STORE_FILE = 'trusted.json';
const TRUST_STORE_VERSION = 1;

export interface TrustEntry {
  /** SHA-256 (hex) of the file's bytes when it was trusted. */
  sha256: string;
  /** When it was trusted (ms since the epoch). */
  trustedAt: number;
}

interface TrustStore {
  version: number;
  /** Keyed by the file's real path. */
  files: Record<string, TrustEntry>;
}

/** `<user config dir>/trusted.json`, beside the user's own hydra.toml. */
const trustStorePath = (userConfigDir: string): string => join(userConfigDir, TRUST_STORE_FILE);

const contentHash = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

const realOr = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/**
 * A file's place: its directory's real path and its own name. A symlink is keyed where it is, never
 * as its target, so a link to another repository's trusted file is not trusted here.
 */
const trustKey = (file: string): string => join(realOr(dirname(file)), basename(file));

const isInside = (path: string, dir: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Where a config file really is when that is outside its repository (a symbolic link out of it, or
 * out of its own directory for a file in no repository), else null.
 */
export const linkedOutside = (file: string): string | null => {
  const real = realOr(file);
  const root = findRepoRoot(dirname(file));
  return isInside(real, realOr(root ?? dirname(file))) ? null : real;
};

/** Whether `file` is inside the repository that holds `cwd` (directories resolved). */
export const inRepositoryOf = (file: string, cwd: string): boolean => {
  const root = findRepoRoot(cwd);
  return root !== null && isInside(realOr(file), realOr(root));
};

const isEntry = (value: unknown): value is TrustEntry =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as TrustEntry).sha256 === 'string' &&
  typeof (value as TrustEntry).trustedAt === 'number';

/** The store; a missing, corrupt or foreign file reads as empty (nothing trusted). */
const readTrustStore = (userConfigDir: string): TrustStore => {
  const empty: TrustStore = { version: TRUST_STORE_VERSION, files: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(trustStorePath(userConfigDir), 'utf8'));
  } catch {
    return empty;
  }
  if (typeof parsed !== 'object' || parsed === null) return empty;
  const { version, files } = parsed as { version?: unknown; files?: unknown };
  if (version !== TRUST_STORE_VERSION || typeof files !== 'object' || files === null) return empty;
  return {
    version: TRUST_STORE_VERSION,
    files: Object.fromEntries(Object.entries(files).filter(([, entry]) => isEntry(entry))),
  };
};

/** Written atomically, owner-only (0700 directory, 0600 file). */
const writeTrustStore = (userConfigDir: string, store: TrustStore): void => {
  mkdirSync(userConfigDir, { recursive: true, mode: 0o700 });
  const target = trustStorePath(userConfigDir);
  const temp = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
};

/** Whether this content of this file is trusted, or was trusted with other content, or never. */
export const trustState = (
  userConfigDir: string,
  file: string,
  content: string | Buffer,
): 'trusted' | 'changed' | 'untrusted' => {
  const entry = readTrustStore(userConfigDir).files[trustKey(file)];
  if (entry === undefined) return 'untrusted';
  return entry.sha256 === contentHash(content) ? 'trusted' : 'changed';
};

/** Records the file's current content as trusted; returns the entry. */
export const trustFile = (userConfigDir: string, file: string, content: string | Buffer): TrustEntry => {
  const store = readTrustStore(userConfigDir);
  const entry: TrustEntry = { sha256: contentHash(content), trustedAt: Date.now() };
  store.files[trustKey(file)] = entry;
  writeTrustStore(userConfigDir, store);
  return entry;
};

/** Forgets the file; false when it was not trusted. */
export const revokeTrust = (userConfigDir: string, file: string): boolean => {
  const store = readTrustStore(userConfigDir);
  const key = trustKey(file);
  if (store.files[key] === undefined) return false;
  delete store.files[key];
  writeTrustStore(userConfigDir, store);
  return true;
};

/** Every trusted file, with whether it still exists with the content that was trusted. */
export const listTrusted = (
  userConfigDir: string,
): Array<{ path: string; entry: TrustEntry; state: 'trusted' | 'changed' | 'missing' }> =>
  Object.entries(readTrustStore(userConfigDir).files).map(([path, entry]) => {
    let state: 'trusted' | 'changed' | 'missing';
    try {
      state = contentHash(readFileSync(path)) === entry.sha256 ? 'trusted' : 'changed';
    } catch {
      state = 'missing';
    }
    return { path, entry, state };
  });

/** The user's config dir (the directory of the user-level hydra.toml). */
export const userConfigDirOf = (userConfigFile: string): string => dirname(userConfigFile);
