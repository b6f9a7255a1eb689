/**
 * Consent for a repository's hydra.toml, as direnv, mise and VS Code's workspace trust do it: the
 * keys that run programs or shape how they run (EXECUTING_KEYS) are used only once the user has
 * trusted that file, by its real path and the SHA-256 of its content; an edited file needs trust
 * again. The trusted files are listed in `$XDG_CONFIG_HOME/hydra/trusted.json` (else
 * `~/.config/hydra/trusted.json`), readable by the owner only. Config from `--config` and from the
 * user's own config dir is trusted without it.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Keys that execute something or shape what is executed; ignored until trusted. `binary`, `env`,
 * `extra_args` and `checks` are per agent, in every `[agents.<name>]` table (a named agent's too;
 * `adapter` only picks a known CLI); `checks` is also the top-level `[[checks]]` list (commands
 * hydra runs in every result). withoutExecutingKeys removes each where it lives.
 */
export const EXECUTING_KEYS = ['binary', 'env', 'extra_args', 'checks'] as const;

/** The executing keys that are also top-level tables, besides per-agent keys. */
export const TOP_LEVEL_EXECUTING_KEYS = ['checks'] as const;

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

/** The real path of a config file (a symlink is trusted as its target), else the path itself. */
const trustKey = (file: string): string => {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
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

/** Whether this content of this file is trusted. */
export const isTrusted = (userConfigDir: string, file: string, content: string | Buffer): boolean => {
  const entry = readTrustStore(userConfigDir).files[trustKey(file)];
  return entry !== undefined && entry.sha256 === contentHash(content);
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
