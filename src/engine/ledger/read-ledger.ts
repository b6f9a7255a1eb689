/**
 * `hydra stats`: the run records of one repository (or of every repository in the index) read
 * into the ledger. Only meta.json, summary.json and merge.json are read (never the events), checked
 * by hand for what the ledger uses (quick-read.ts; the records' schemas only for one that fails
 * that), each run's outcome is cached until its record changes (ledger-cache.ts), and a run older than `since`
 * (by the time its id carries) is not looked at. A damaged record, a committed one, a run not
 * finished and a repository that is gone are counted, never fatal.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { readRecordDir, recordedRunIds, runIdTime, runRecordDir, trackedRunIds } from '../records/index.js';
import {
  cachedRun,
  forgetOthers,
  journalRun,
  loadLedgerCache,
  recordStat,
  rememberRun,
  saveLedgerCache,
  type CachedRun,
  type RecordStat,
} from './ledger-cache.js';
import { quickReadRun } from './quick-read.js';
import { indexedRepositories } from './repo-index.js';
import { runFacts, tallyFacts, type AgentFact, type AgentLedger } from './tally.js';

export interface LedgerOptions {
  /** The repositories to read (their roots). */
  repos: readonly string[];
  /** Only runs started at or after this time (ms since the epoch). */
  since?: number;
  /** Where the cache and the index are (XDG_CACHE_HOME, HOME); process.env by default. */
  env?: NodeJS.ProcessEnv;
}

/** What was left out of the figures, and why. */
export interface LedgerSkipped {
  /** Records that do not read (a damaged meta.json or summary.json, a damaged agent entry). */
  damaged: number;
  /** Runs still going, or whose hydra died before the summary. */
  unfinished: number;
  /** Records committed to a repository: someone else's, never read. */
  foreign: number;
  /** Repositories in the index that are no longer there. */
  missingRepos: number;
}

export interface Ledger {
  repos: string[];
  runs: number;
  since: number | null;
  skipped: LedgerSkipped;
  agents: AgentLedger[];
}

const isDirectory = (dir: string): boolean =>
  lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;

/**
 * A run's record read and checked, down to what the ledger keeps of it: quickly (quick-read.ts),
 * else with the records' schemas, which say whether it is damaged or unfinished.
 */
const readOutcome = (root: string, runId: string, stat: RecordStat): CachedRun => {
  const dir = runRecordDir(root, runId);
  const quick = quickReadRun(dir, runId, stat);
  if (quick !== null)
    return { kind: 'ok', startedAt: quick.startedAt, facts: runFacts(quick), damagedAgents: 0 };
  const loaded = readRecordDir(dir, runId, false);
  if (loaded.kind !== 'ok') return { kind: 'damaged' };
  const { meta, summary, merge, damagedAgents = [] } = loaded.record;
  if (summary === null) return { kind: 'unfinished' };
  const facts = runFacts({
    meta,
    summary,
    mergedAgent: merge?.agent ?? null,
    damagedAgents: damagedAgents.map((item) => item.agent),
  });
  return { kind: 'ok', startedAt: meta.startedAt, facts, damagedAgents: damagedAgents.length };
};

/** The facts of one repository's finished runs, counting what was skipped on the way. */
const readRepo = async (
  root: string,
  options: LedgerOptions,
  skipped: LedgerSkipped,
): Promise<{ runs: number; facts: AgentFact[] }> => {
  const { since } = options;
  const recorded = recordedRunIds(root);
  // Whole seconds: a run id carries its start to the second.
  const ids = recorded.filter((id) => since === undefined || runIdTime(id) >= since - (since % 1000));
  if (ids.length === 0) return { runs: 0, facts: [] };
  let tracked: Set<string>;
  try {
    tracked = await trackedRunIds(root);
  } catch {
    // No longer a git repository: its records are not hydra's to trust.
    skipped.missingRepos += 1;
    return { runs: 0, facts: [] };
  }
  const cache = loadLedgerCache(root, options.env ?? process.env);
  const facts: AgentFact[] = [];
  let runs = 0;
  for (const runId of ids) {
    if (tracked.has(runId)) {
      skipped.foreign += 1;
      continue;
    }
    const stat = recordStat(root, runId);
    if (stat === null) continue;
    let outcome = cachedRun(cache, runId, stat.stamp);
    if (outcome === undefined) {
      outcome = readOutcome(root, runId, stat);
      rememberRun(cache, runId, stat.stamp, outcome);
    }
    if (outcome.kind === 'damaged') skipped.damaged += 1;
    else if (outcome.kind === 'unfinished') skipped.unfinished += 1;
    else if (since === undefined || outcome.startedAt >= since) {
      runs += 1;
      skipped.damaged += outcome.damagedAgents;
      facts.push(...outcome.facts);
    }
  }
  forgetOthers(cache, new Set(recorded));
  saveLedgerCache(cache);
  return { runs, facts };
};

/**
 * A race wrote (or rewrote) its run's summary: what the record comes to goes to the ledger cache's
 * journal (ledger-cache.ts), read the quick way; a record that does not read so is left to
 * `hydra stats`. Never fails the race.
 */
export const journalRecord = (
  repoRoot: string,
  runId: string,
  env: NodeJS.ProcessEnv = process.env,
): void => {
  try {
    const stat = recordStat(repoRoot, runId);
    const quick = stat === null ? null : quickReadRun(runRecordDir(repoRoot, runId), runId, stat);
    if (stat === null || quick === null) return;
    const outcome: CachedRun = {
      kind: 'ok',
      startedAt: quick.startedAt,
      facts: runFacts(quick),
      damagedAgents: 0,
    };
    journalRun(repoRoot, runId, stat.stamp, outcome, env);
  } catch {
    // The next `hydra stats` reads the record itself.
  }
};

/** The ledger over `repos` (read one after the other). */
export async function readLedger(options: LedgerOptions): Promise<Ledger> {
  const skipped: LedgerSkipped = { damaged: 0, unfinished: 0, foreign: 0, missingRepos: 0 };
  const repos: string[] = [];
  const facts: AgentFact[] = [];
  let runs = 0;
  for (const root of new Set(options.repos.map((repo) => path.resolve(repo)))) {
    if (!isDirectory(root)) {
      skipped.missingRepos += 1;
      continue;
    }
    repos.push(root);
    const read = await readRepo(root, options, skipped);
    runs += read.runs;
    facts.push(...read.facts);
  }
  return { repos, runs, since: options.since ?? null, skipped, agents: tallyFacts(facts) };
}

/** The repositories `--all` reads: the index, with this one first. */
export const ledgerRepos = (here: string | null, env: NodeJS.ProcessEnv = process.env): string[] => {
  const indexed = indexedRepositories(env);
  return here === null ? indexed : [here, ...indexed.filter((repo) => repo !== here)];
};
