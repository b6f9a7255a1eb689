/** `hydra runs`: every recorded run of a repository, newest first, with its state and totals. */
import { lstatSync, readdirSync } from 'node:fs';
import { processStillRuns } from '../process/index.js';
import type { RaceSummary, RunListEntry } from './record-types.js';
import { RUN_ID_PATTERN, recordsRoot } from './paths.js';
import { loadRun, repoRootOrThrow, trackedRunIds, type LoadedRun } from './read-run.js';
import type { RunMeta } from './schema.js';

/** Whether the hydra process that wrote a record is still running. */
export const ownerAlive = (meta: RunMeta): boolean => processStillRuns(meta.pid, meta.pidStartTime ?? null);

/** finished: it has a summary; running: no summary and its hydra is alive; dead: neither. */
const runState = (meta: RunMeta, summary: RaceSummary | null): 'finished' | 'running' | 'dead' => {
  if (summary !== null) return 'finished';
  return ownerAlive(meta) ? 'running' : 'dead';
};

/** Run ids with a record directory (or a symbolic link in its place), newest first. */
export const recordedRunIds = (root: string): string[] => {
  const dir = recordsRoot(root);
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (stat === undefined || !stat.isDirectory()) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && RUN_ID_PATTERN.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .reverse();
};

const totalCost = (summary: RaceSummary | null): number | null => {
  const costs = (summary?.agents ?? [])
    .map((agent) => agent.usage.costUsd)
    .filter((cost): cost is number => cost !== null);
  return costs.length === 0 ? null : costs.reduce((sum, cost) => sum + cost, 0);
};

/** The start time a run id carries (`20261123-052233-a1b2` is 2026-11-23 05:22:33 UTC). */
export const runIdTime = (runId: string): number => {
  const match = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(runId);
  if (match === null) return 0;
  const [, y, mo, d, h, mi, s] = match.map(Number);
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
};

/** A damaged or foreign run: listed, so that it is seen, with what is wrong and what to do. */
const troubledRun = (loaded: Exclude<LoadedRun, { kind: 'ok' }>): RunListEntry => ({
  runId: loaded.runId,
  prompt:
    loaded.kind === 'damaged'
      ? `(damaged record: ${loaded.problem}; \`hydra clean\` removes it)`
      : `(not hydra's: ${loaded.problem})`,
  startedAt:
    loaded.kind === 'damaged' && loaded.meta !== null ? loaded.meta.startedAt : runIdTime(loaded.runId),
  endedAt: null,
  state: loaded.kind,
  problem: loaded.problem,
  baseBranch: null,
  agentIds:
    loaded.kind === 'damaged' && loaded.meta !== null ? loaded.meta.agents.map((agent) => agent.agent) : [],
  agents: [],
  totalCostUsd: null,
  merged: null,
});

export async function listRuns(repoPath: string): Promise<RunListEntry[]> {
  const root = await repoRootOrThrow(repoPath);
  const tracked = await trackedRunIds(root);
  return recordedRunIds(root).map((runId) => {
    const loaded = loadRun(root, runId, tracked, false);
    if (loaded.kind !== 'ok') return troubledRun(loaded);
    const { meta, summary, merge } = loaded.record;
    return {
      runId,
      prompt: meta.prompt,
      startedAt: meta.startedAt,
      endedAt: summary?.endedAt ?? null,
      state: runState(meta, summary),
      problem: null,
      baseBranch: meta.baseBranch,
      agentIds: meta.agents.map((agent) => agent.agent),
      agents: summary?.agents ?? [],
      totalCostUsd: totalCost(summary),
      merged: merge === null ? null : { agent: merge.agent, commit: merge.commit },
    };
  });
}
