/**
 * Reopening a recorded run (`hydra continue`, `hydra rerun`, the dashboard of a finished run): its
 * agents come back settled, as recorded. The race machine's `reopenWorkspace` actor names the
 * launches whose branches are still there; nothing is started or made.
 */
import { existsSync } from 'node:fs';
import { fromPromise } from 'xstate';
import { emptyUsage } from '../../core/events.js';
import { adapterIds, adapterOf } from '../../adapters/registry.js';
import { isSessionId } from '../../adapters/types.js';
import type { AdapterId } from '../../adapters/types.js';
import type { AgentLaunch } from '../agent/index.js';
import { EngineError } from '../errors.js';
import { branchExists, diffSummary } from '../git/index.js';
import { raceScoreReference } from '../checks/index.js';
import type { RepoCheck } from '../git/index.js';
import { processInfo } from '../process/index.js';
import { branchName, readRecordDir, runRecordDir, writeMeta } from '../records/index.js';
import type { AgentName } from '../agent-name.js';
import type { AgentProbeReport } from '../probe-types.js';
import type { AgentSnapshot } from './race-handle.js';
import type { AgentSummary, RunRecord } from '../records/index.js';
import type { DiffSummary } from '../git/index.js';
import type { ReopenRun, RoundRequest } from '../config/index.js';
import type { ReopenedWorkspace, ResolvedRaceOptions } from './race-types.js';
import { launchFor, planNameOf, reviewLaunchFor } from './round-launch.js';
import { usable } from './prepared.js';
import type { Prepared } from './prepared.js';

/**
 * A checked run record as a race to reopen. The record is untrusted: branches are this run's own
 * names (never what the record says), and a session id is kept only when it has a session id's
 * shape (it goes into a command line).
 */
export const reopenFromRecord = (record: RunRecord, round?: RoundRequest): ReopenRun => {
  const recorded = record.summary?.agents ?? [];
  // An adapter this hydra does not have (a record from elsewhere, or forged) cannot run again.
  const known = new Set(adapterIds());
  const agents = record.meta.agents
    .filter((meta) => known.has(meta.adapter))
    .map((meta): AgentSummary => {
      const summary = recorded.find((item) => item.agent === meta.agent);
      const { sessionId, ...rest } = summary ?? unfinishedSummary(meta.agent, meta.adapter);
      return {
        ...rest,
        adapter: meta.adapter,
        branch: branchName(record.runId, meta.agent),
        ...(isSessionId(sessionId) ? { sessionId } : {}),
      };
    });
  return {
    runId: record.runId,
    startedAt: record.meta.startedAt,
    ...(record.summary === null ? {} : { endedAt: record.summary.endedAt }),
    baseRef: record.meta.baseRef,
    baseBranch: record.meta.baseBranch,
    agents,
    merge: record.merge,
    ...(record.summary?.baseline === undefined ? {} : { baseline: record.summary.baseline }),
    ...(round === undefined ? {} : { round }),
    // The race's yardsticks; a record from before they were kept: its results as they were recorded.
    ...(record.summary === null
      ? {}
      : { scoreReference: record.summary.scoreReference ?? raceScoreReference(agents) }),
  };
};

/** An agent of a run that never wrote its summary (hydra was killed): what is left is its branch. */
const unfinishedSummary = (agent: AgentName, adapter: AdapterId): AgentSummary => ({
  agent,
  adapter,
  status: 'cancelled',
  exitCode: null,
  durationMs: 0,
  usage: emptyUsage(),
  diff: { filesChanged: 0, insertions: 0, deletions: 0 },
  branch: null,
  worktree: null,
});

/** A recorded agent as the dashboard shows it: settled, with its recorded figures. */
export const reopenedAgent = (summary: AgentSummary, startedAt: number): AgentSnapshot => {
  const adapter = adapterOf(summary.adapter);
  return {
    agent: summary.agent,
    adapter: adapter.id,
    displayName: summary.agent === adapter.id ? adapter.displayName : summary.agent,
    adapterName: adapter.displayName,
    tier: adapter.tier,
    model: null,
    status: summary.status,
    startedAt: summary.durationMs > 0 ? startedAt : null,
    endedAt: summary.durationMs > 0 ? startedAt + summary.durationMs : null,
    lastOutputAt: null,
    recentEvents: [],
    eventCount: 0,
    usage: summary.usage,
    diff: { ...summary.diff, files: [] },
    error: summary.error ?? null,
    exitCode: summary.exitCode,
    branch: summary.branch,
    worktree: null,
    inferredFlags: false,
    warnings: summary.warnings ?? [],
    capabilities: null,
    checks: summary.checks ?? null,
    checking: false,
    score: summary.score ?? null,
    ...(summary.sessionId === undefined ? {} : { sessionId: summary.sessionId }),
    ...(summary.rounds === undefined ? {} : { rounds: summary.rounds }),
    ...(summary.rerunOf === undefined ? {} : { rerunOf: summary.rerunOf }),
    ...(summary.newTests === undefined ? {} : { newTests: summary.newTests }),
    // The block it last ran with (a new round takes one of this process's).
    ...(summary.port === undefined ? {} : { port: summary.port }),
    ...(summary.runner === undefined ? {} : { runner: summary.runner }),
    ...(summary.host === undefined ? {} : { host: summary.host }),
  };
};

export interface ReopenInput {
  options: ResolvedRaceOptions;
  repo: RepoCheck;
  reports: AgentProbeReport[];
  reopen: ReopenRun;
}

/**
 * Launches for the recorded agents whose branch is still there (nothing is started or made), and
 * which of their worktrees are still on disk. A review builds them unprobed (reviewLaunchFor); a
 * reopen for a round (`hydra continue`, `rerun`) from the probe's reports.
 */
export const reopenWorkspaceLogic = fromPromise<ReopenedWorkspace, Prepared<ReopenInput>>(async (args) => {
  const input = usable(args.input);
  const { options, repo, reopen } = input;
  const launches: AgentLaunch[] = [];
  // A review (no round asked for) probes nothing: a round asked for later probes its one agent.
  const review = reopen.round === undefined;
  for (const agent of reopen.agents) {
    const branch = branchName(reopen.runId, agent.agent);
    if (!(await branchExists(repo.root, branch))) continue;
    const planName = planNameOf(agent);
    if (review) {
      const launch = reviewLaunchFor(options, repo, agent.agent, planName);
      if (launch !== null) launches.push(launch);
      continue;
    }
    const report = input.reports.find((item) => item.agent === planName && item.status === 'ready');
    if (report?.capabilities === null || report === undefined) continue;
    launches.push(
      await launchFor(input.options, repo, agent.agent, planName, report.capabilities, {
        prompt: options.prompt,
      }),
    );
  }
  // This hydra is the run's owner now: `hydra clean` leaves the run alone while it lives.
  claimRecord(repo.root, reopen.runId);
  const worktreesOnDisk = launches
    .map((launch) => launch.worktree)
    .filter((worktree) => existsSync(worktree));
  return {
    recordDir: runRecordDir(repo.root, reopen.runId),
    launches,
    worktreesOnDisk,
    diffs: await branchDiffs(repo.root, reopen.baseRef, launches),
  };
});

/**
 * Each branch's changes since the race's base (the record keeps only the counts, and compare lists
 * the files). One that cannot be read keeps its recorded counts.
 */
async function branchDiffs(
  root: string,
  baseRef: string,
  launches: readonly AgentLaunch[],
): Promise<Record<AgentName, DiffSummary>> {
  const diffs = await Promise.all(
    launches.map(async (launch) => {
      const diff = await diffSummary(root, baseRef, `refs/heads/${launch.branch}`).catch(() => null);
      return diff === null ? [] : [[launch.agent, diff] as const];
    }),
  );
  return Object.fromEntries(diffs.flat());
}

/** Writes this process as the run's owner into meta.json (what `hydra clean` and `hydra runs` check). */
function claimRecord(root: string, runId: string): void {
  const dir = runRecordDir(root, runId);
  const loaded = readRecordDir(dir, runId, false);
  if (loaded.kind !== 'ok') {
    throw new EngineError({
      kind: 'Refused',
      message: `The record of run ${runId} cannot be reopened: ${loaded.problem}.`,
      hint: '`hydra clean` removes the run; start a new race.',
    });
  }
  writeMeta(dir, {
    ...loaded.record.meta,
    pid: process.pid,
    pidStartTime: processInfo(process.pid)?.startTime ?? null,
  });
}
