/**
 * `hydra stats`: the run records of one repository (or of every repository in the index) read
 * into the ledger. Only meta.json, summary.json and merge.json are read (never the events), and a
 * run older than `since` (by the time its id carries) is not opened at all. A damaged record, a
 * committed one, a run not finished and a repository that is gone are counted, never fatal.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { readRecordDir, recordedRunIds, runIdTime, runRecordDir, trackedRunIds } from '../records/index.js';
import { indexedRepositories } from './repo-index.js';
import { tallyRuns, type AgentLedger, type LedgerRun } from './tally.js';

export interface LedgerOptions {
  /** The repositories to read (their roots). */
  repos: readonly string[];
  /** Only runs started at or after this time (ms since the epoch). */
  since?: number;
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

/** The finished runs of one repository, counting what was skipped on the way. */
const readRepo = async (
  root: string,
  since: number | undefined,
  skipped: LedgerSkipped,
): Promise<LedgerRun[]> => {
  // Whole seconds: a run id carries its start to the second.
  const ids = recordedRunIds(root).filter(
    (id) => since === undefined || runIdTime(id) >= since - (since % 1000),
  );
  if (ids.length === 0) return [];
  let tracked: Set<string>;
  try {
    tracked = await trackedRunIds(root);
  } catch {
    // No longer a git repository: its records are not hydra's to trust.
    skipped.missingRepos += 1;
    return [];
  }
  const runs: LedgerRun[] = [];
  for (const runId of ids) {
    if (tracked.has(runId)) {
      skipped.foreign += 1;
      continue;
    }
    const loaded = readRecordDir(runRecordDir(root, runId), runId, false);
    if (loaded.kind !== 'ok') {
      skipped.damaged += 1;
      continue;
    }
    const { meta, summary, merge, damagedAgents } = loaded.record;
    if (since !== undefined && meta.startedAt < since) continue;
    if (summary === null) {
      skipped.unfinished += 1;
      continue;
    }
    skipped.damaged += damagedAgents?.length ?? 0;
    runs.push({
      meta,
      summary,
      mergedAgent: merge?.agent ?? null,
      damagedAgents: (damagedAgents ?? []).map((item) => item.agent),
    });
  }
  return runs;
};

/** The ledger over `repos` (read one after the other: each is a handful of small files a run). */
export async function readLedger(options: LedgerOptions): Promise<Ledger> {
  const skipped: LedgerSkipped = { damaged: 0, unfinished: 0, foreign: 0, missingRepos: 0 };
  const repos: string[] = [];
  const runs: LedgerRun[] = [];
  for (const root of new Set(options.repos.map((repo) => path.resolve(repo)))) {
    if (!isDirectory(root)) {
      skipped.missingRepos += 1;
      continue;
    }
    repos.push(root);
    runs.push(...(await readRepo(root, options.since, skipped)));
  }
  return { repos, runs: runs.length, since: options.since ?? null, skipped, agents: tallyRuns(runs) };
}

/** The repositories `--all` reads: the index, with this one first when it has records of its own. */
export const ledgerRepos = (here: string | null, env: NodeJS.ProcessEnv = process.env): string[] => {
  const indexed = indexedRepositories(env);
  return here === null ? indexed : [here, ...indexed.filter((repo) => repo !== here)];
};
