/**
 * The capability cache: `<cacheDir>/adapter-capabilities.json`, keyed by adapter id, the binary's
 * real path and a hash of the configured env (never its values), and stamped with the binary's size
 * and mtime, so an upgraded binary (new file, new symlink target, or rewritten in place) is probed
 * again. Written atomically (temp file + rename); a corrupt or foreign file reads as empty.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AdapterError } from '../../adapters/errors.js';
import type { AdapterId, Capabilities, ProbeResult } from '../../adapters/types.js';
import type { ErrorInfo } from '../../core/events.js';

export const CAPABILITY_CACHE_FILE = 'adapter-capabilities.json';
/** Bump when adapters derive capabilities differently, so old cache entries are ignored. */
const CAPABILITY_CACHE_VERSION = 1;

export interface BinaryIdentity {
  realPath: string;
  size: number;
  mtimeMs: number;
}

type CachedResult =
  | { ok: true; capabilities: Capabilities }
  | { ok: false; error: SerializedError; capabilities?: Capabilities };

interface SerializedError extends ErrorInfo {
  command: string[];
  stderrExcerpt: string;
}

interface CacheEntry extends BinaryIdentity {
  adapterId: AdapterId;
  result: CachedResult;
}

export interface CacheFile {
  version: number;
  entries: Record<string, CacheEntry>;
}

export const identify = async (path: string): Promise<BinaryIdentity | null> => {
  try {
    const realPath = await realpath(path);
    const info = await stat(realPath);
    return { realPath, size: info.size, mtimeMs: info.mtimeMs };
  } catch {
    return null;
  }
};

/** The configured env changes what a probe sees: a hash of its keys and values (never the values). */
export const envHash = (env: Readonly<Record<string, string>>): string => {
  const entries = Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0
    ? ''
    : createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 16);
};

export const cacheKey = (adapterId: AdapterId, identity: BinaryIdentity, envKey: string): string =>
  `${adapterId}:${identity.realPath}${envKey === '' ? '' : `:env-${envKey}`}`;

const isCacheFile = (value: unknown): value is CacheFile =>
  typeof value === 'object' &&
  value !== null &&
  (value as { version?: unknown }).version === CAPABILITY_CACHE_VERSION &&
  typeof (value as { entries?: unknown }).entries === 'object' &&
  (value as { entries?: unknown }).entries !== null;

/** Reads the cache; a missing, corrupt or older-version file reads as empty. */
export const readCapabilityCache = async (cacheDir: string): Promise<CacheFile> => {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(cacheDir, CAPABILITY_CACHE_FILE), 'utf8'));
    if (isCacheFile(parsed)) return parsed;
  } catch {
    // Missing or corrupt: probe again and rewrite it.
  }
  return { version: CAPABILITY_CACHE_VERSION, entries: {} };
};

/** Writes the cache atomically: a temp file in the same directory, then a rename over the old one. */
export const writeCapabilityCache = async (cacheDir: string, cache: CacheFile): Promise<void> => {
  // Owner-only, like the run records: it names the user's binaries and their versions.
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const target = join(cacheDir, CAPABILITY_CACHE_FILE);
  const temp = `${target}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(cache, null, 2)}\n`, { encoding: 'utf8', mode: 0o600 });
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
};

export const lookup = (
  cache: CacheFile,
  adapterId: AdapterId,
  identity: BinaryIdentity,
  envKey: string,
): CachedResult | undefined => {
  const entry = cache.entries[cacheKey(adapterId, identity, envKey)];
  if (entry === undefined || entry.adapterId !== adapterId) return undefined;
  if (entry.size !== identity.size || entry.mtimeMs !== identity.mtimeMs) return undefined;
  const result = entry.result;
  if (typeof result !== 'object' || result === null) return undefined;
  if (result.ok === true && typeof result.capabilities === 'object' && result.capabilities !== null)
    return result;
  if (result.ok === false && typeof result.error === 'object' && result.error !== null) return result;
  return undefined;
};

/** Only outcomes that depend on the binary alone are cached (not time-outs or spawn failures). */
export const cacheable = (result: ProbeResult): CachedResult | undefined => {
  if (result.ok) return { ok: true, capabilities: result.capabilities };
  if (result.error.kind !== 'UnsupportedFlag') return undefined;
  const { kind, message, hint, command, stderrExcerpt } = result.error;
  return {
    ok: false,
    error: { kind, message, hint, command: [...command], stderrExcerpt },
    ...(result.capabilities === undefined ? {} : { capabilities: result.capabilities }),
  };
};

export const fromCache = (adapterId: AdapterId, result: CachedResult, binary: string): ProbeResult => {
  if (result.ok) return { ok: true, capabilities: { ...result.capabilities, binary } };
  const { kind, message, hint, command, stderrExcerpt } = result.error;
  return {
    ok: false,
    error: new AdapterError({ kind, adapterId, message, hint, command, stderrExcerpt }),
    ...(result.capabilities === undefined ? {} : { capabilities: { ...result.capabilities, binary } }),
  };
};
