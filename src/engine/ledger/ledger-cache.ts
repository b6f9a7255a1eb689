/**
 * What `hydra stats` learnt from each run record, kept between runs of it: per run, the stamp of
 * its record (the run directory's mtime, which every atomic write of meta.json, summary.json or
 * merge.json moves, and summary.json's own mtime and size, for an edit in place) and what the
 * record came to (the agents' facts, or damaged, or unfinished). A run whose stamp still matches
 * is not read again, so 10,000 records cost a stat or two each. In the user's cache directory
 * (`$XDG_CACHE_HOME/hydra/ledger/<repo key>.json`), never in the repository: a clone cannot bring
 * one. A cache that does not read is dropped and rebuilt; one that cannot be written is skipped.
 * A race adds its run as it writes the record (`journalRun`: one appended line in
 * `<repo key>.journal`, folded into the cache by the next `hydra stats`), so a first `hydra stats`
 * after many races need not read their records either.
 */
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoKey, runRecordDir } from '../records/index.js';
import type { AgentFact } from './tally.js';

const VERSION = 2;

/** What one run's record came to. */
export type CachedRun =
  | { kind: 'ok'; startedAt: number; facts: AgentFact[]; damagedAgents: number }
  | { kind: 'damaged' }
  | { kind: 'unfinished' };

type Entry = CachedRun & { stamp: string };

export interface LedgerCache {
  file: string;
  runs: Map<string, Entry>;
  changed: boolean;
  /** The journal taken into this cache (renamed away from the races' appends), removed once saved. */
  taken: string | null;
}

/** Past this size a journal takes no more lines (`hydra stats` never ran): the records are read then. */
const MAX_JOURNAL_BYTES = 8 * 1024 * 1024;

const journalOf = (cacheFile: string): string => cacheFile.replace(/\.json$/, '.journal');

/** `$XDG_CACHE_HOME/hydra/ledger/<repo key>.json`, else under `~/.cache`. */
const cacheFile = (repoRoot: string, env: NodeJS.ProcessEnv): string => {
  const xdg = env['XDG_CACHE_HOME'];
  const base =
    xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(env['HOME'] ?? os.homedir(), '.cache');
  return path.join(base, 'hydra', 'ledger', `${repoKey(repoRoot)}.json`);
};

/** A run's record now: its stamp, and what the stamp was made of (quick-read.ts reuses them). */
export interface RecordStat {
  stamp: string;
  dir: Stats;
  summary: Stats | undefined;
}

/** The stamp of a run's record now, or null when its directory is not there. */
export const recordStat = (repoRoot: string, runId: string): RecordStat | null => {
  const dir = runRecordDir(repoRoot, runId);
  const dirStat = lstatSync(dir, { throwIfNoEntry: false });
  if (dirStat === undefined) return null;
  const summary = lstatSync(path.join(dir, 'summary.json'), { throwIfNoEntry: false });
  const stamp = `${dirStat.mtimeMs}:${summary === undefined ? '-' : `${summary.mtimeMs}:${summary.size}`}`;
  return { stamp, dir: dirStat, summary };
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An entry as this version writes it; anything else is not used. */
const validEntry = (value: unknown): value is Entry => {
  if (!isObject(value) || typeof value['stamp'] !== 'string') return false;
  if (value['kind'] === 'damaged' || value['kind'] === 'unfinished') return true;
  return (
    value['kind'] === 'ok' &&
    typeof value['startedAt'] === 'number' &&
    typeof value['damagedAgents'] === 'number' &&
    Array.isArray(value['facts']) &&
    value['facts'].every((fact) => isObject(fact) && typeof fact['agent'] === 'string')
  );
};

export const loadLedgerCache = (repoRoot: string, env: NodeJS.ProcessEnv): LedgerCache => {
  const file = cacheFile(repoRoot, env);
  const runs = new Map<string, Entry>();
  try {
    const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (isObject(json) && json['version'] === VERSION && isObject(json['runs']))
      for (const [runId, entry] of Object.entries(json['runs']))
        if (validEntry(entry)) runs.set(runId, entry);
  } catch {
    // None yet, or unreadable: every record is read.
  }
  const taken = takeJournal(file, runs);
  return { file, runs, changed: taken !== null, taken };
};

/**
 * The races' journal, renamed away first (a race appending meanwhile starts a new one) and read
 * into `runs`, later lines over earlier ones; its new name, or null when there was none.
 */
const takeJournal = (file: string, runs: Map<string, Entry>): string | null => {
  const taken = `${journalOf(file)}.${process.pid}`;
  try {
    renameSync(journalOf(file), taken);
  } catch {
    return null;
  }
  let text = '';
  try {
    text = readFileSync(taken, 'utf8');
  } catch {
    return taken;
  }
  for (const line of text.split('\n')) {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      // Empty, or torn (a race killed mid-append): that run's record is read instead.
      continue;
    }
    if (!isObject(entry)) continue;
    const { runId, ...rest } = entry;
    if (typeof runId === 'string' && validEntry(rest)) runs.set(runId, rest);
  }
  return taken;
};

/** A race wrote its run's record: what it came to, for the next `hydra stats`. Never fails a race. */
export const journalRun = (
  repoRoot: string,
  runId: string,
  stamp: string,
  run: CachedRun,
  env: NodeJS.ProcessEnv,
): void => {
  const journal = journalOf(cacheFile(repoRoot, env));
  try {
    if ((lstatSync(journal, { throwIfNoEntry: false })?.size ?? 0) > MAX_JOURNAL_BYTES) return;
    mkdirSync(path.dirname(journal), { recursive: true, mode: 0o700 });
    appendFileSync(journal, `${JSON.stringify({ runId, ...run, stamp })}\n`, { mode: 0o600 });
  } catch {
    // A read-only cache directory: `hydra stats` reads the record itself.
  }
};

/** The cached outcome of a run whose record has not changed since, or undefined. */
export const cachedRun = (cache: LedgerCache, runId: string, stamp: string): CachedRun | undefined => {
  const entry = cache.runs.get(runId);
  return entry !== undefined && entry.stamp === stamp ? entry : undefined;
};

export const rememberRun = (cache: LedgerCache, runId: string, stamp: string, run: CachedRun): void => {
  cache.runs.set(runId, { ...run, stamp });
  cache.changed = true;
};

/** Drops the runs no longer recorded (cleaned), so the cache does not grow without end. */
export const forgetOthers = (cache: LedgerCache, recorded: ReadonlySet<string>): void => {
  for (const runId of cache.runs.keys())
    if (!recorded.has(runId)) {
      cache.runs.delete(runId);
      cache.changed = true;
    }
};

/** Writes the cache when it changed (owner-only, atomically); a failure only costs the next read. */
export const saveLedgerCache = (cache: LedgerCache): void => {
  if (!cache.changed) return;
  try {
    mkdirSync(path.dirname(cache.file), { recursive: true, mode: 0o700 });
    const temp = `${cache.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ version: VERSION, runs: Object.fromEntries(cache.runs) }), {
      mode: 0o600,
    });
    renameSync(temp, cache.file);
    if (cache.taken !== null) rmSync(cache.taken, { force: true });
  } catch {
    // A read-only cache directory: the next `hydra stats` reads the records again.
  }
};
