/**
 * The race's summary (summary.json, `hydra show`, the scores): each agent's figures over its rounds,
 * its checks against the baseline, its scope and its score, and what was merged.
 */
import { agentNameOf } from '../agent-name.js';
import {
  DEFAULT_SCORE_WEIGHTS,
  contractOf,
  outsideAllowedPaths,
  raceScoreReference,
  scoreRace,
} from '../checks/index.js';
import type { RaceContext } from './race-types.js';
import type { AgentSnapshot, BaselineSnapshot } from './race-handle.js';
import type { AgentSummary, RaceSummary } from '../records/index.js';
import type { CheckSummary, ScoreReference } from '../check-types.js';

/** What the summary says of an agent's setup: null when none ran (or it never finished). */
const setupSummary = (setup: AgentSnapshot['setup']): AgentSummary['setup'] =>
  setup === undefined || setup.durationMs === null
    ? null
    : { durationMs: setup.durationMs, exitCode: setup.exitCode, source: setup.source, warm: setup.warm };

const summaryStatus = (agent: AgentSnapshot): AgentSummary['status'] => {
  switch (agent.status) {
    case 'pending':
    case 'setting_up':
    case 'spawning':
    case 'running':
      return agent.startedAt === null ? 'skipped' : 'cancelled';
    default:
      return agent.status;
  }
};

/**
 * A completed agent's checks, with each one it should have run but did not (the race was cancelled
 * while they waited or ran) recorded as `error`: an interrupted gate must not score as passed.
 */
const withUnrunChecks = (context: RaceContext, index: number, ran: CheckSummary[]): CheckSummary[] => {
  const agent = context.agents[index];
  // Only a cancel leaves a completed agent's checks unfinished: every other race waits for them.
  if (!context.cancelRequested || agent?.status !== 'completed') return ran;
  const plan = context.options.agents.find((item) => agentNameOf(item) === agent.agent);
  const expected = plan?.checks ?? context.options.checks ?? [];
  const missing = expected.filter((check) => !ran.some((item) => item.name === check.name));
  return [
    ...ran,
    ...missing.map((check): CheckSummary => ({
      name: check.name,
      gate: check.gate,
      status: 'error',
      exitCode: null,
      durationMs: 0,
      tests: null,
      newlyFailing: null,
      newlyPassing: null,
      output: 'not run: the race was cancelled before this check finished',
    })),
  ];
};

/** The summary with each agent's checks (against the baseline), scope and score. */
/**
 * When the race ended, for its summary: its own end, else (a reopened run that started no round)
 * the recorded one, else now (a race still going).
 */
export const raceEnd = (context: Pick<RaceContext, 'endedAt' | 'recordedEndedAt'>): number =>
  context.endedAt ?? context.recordedEndedAt ?? Date.now();

export const buildSummary = (context: RaceContext, endedAt: number): RaceSummary => {
  const summary = {
    ...plainSummary(context, endedAt),
    ...mergedPart(context),
    ...(context.stoppedEarly === null || context.stoppedEarly.agents.length === 0
      ? {}
      : { stoppedEarly: context.stoppedEarly }),
  };
  if (context.launches.length === 0) return summary;
  const allowed = context.options.allowedPaths;
  // Race-wide checks (run on the baseline too), or an agent's own.
  const hasChecks =
    context.baseline !== null ||
    context.options.agents.some((plan) => (plan.checks ?? []).length > 0) ||
    // A reopened run's recorded checks count, whatever the config it was reopened with.
    context.agents.some((agent) => agent.checks !== null);
  const agents = summary.agents.map((agent, index): AgentSummary => {
    const snapshot = context.agents[index];
    const files = snapshot?.diff?.files.map((file) => file.path) ?? [];
    const checks = withUnrunChecks(context, index, snapshot?.checks ?? []);
    const contract = hasChecks ? contractOf(checks) : null;
    return {
      ...agent,
      ...(hasChecks ? { checks } : {}),
      ...(contract === null ? {} : { contract }),
      ...(allowed === undefined || allowed.length === 0
        ? {}
        : { outsideAllowed: outsideAllowedPaths(files, allowed) }),
    };
  });
  const weights = context.options.scoreWeights ?? DEFAULT_SCORE_WEIGHTS;
  const allowTestChanges = context.options.allowTestChanges === true;
  const scores = scoreRace(agents, weights, allowTestChanges, context.scoreReference);
  return {
    ...summary,
    agents: agents.map((agent, index) => {
      const score = scores[index];
      return score === undefined ? agent : { ...agent, score };
    }),
    ...(context.baseline === null ? {} : { baseline: baselineSummary(context.baseline) }),
    scoreWeights: { ...weights },
    ...(context.scoreReference === null ? {} : { scoreReference: context.scoreReference }),
    ...(context.judge === null ? {} : { judge: context.judge }),
    ...(allowTestChanges ? { allowTestChanges } : {}),
  };
};

/** The score's yardsticks from the race's results as they are at `endedAt` (checks/score.ts). */
export const scoreReferenceAt = (context: RaceContext, endedAt: number): ScoreReference =>
  raceScoreReference(buildSummary({ ...context, scoreReference: null }, endedAt).agents);

const baselineSummary = (baseline: BaselineSnapshot): NonNullable<RaceSummary['baseline']> => ({
  status: baseline.status,
  ...(baseline.error === null ? {} : { error: baseline.error }),
  checks: baseline.checks,
});

/** What was merged (with the agent's branch), or null and why. */
const mergedPart = (context: RaceContext): Pick<RaceSummary, 'merged' | 'mergeReason'> => {
  const merge = context.merge;
  if (merge !== null) {
    // A later round (a rerun) launches other agents: the merged one's branch is in its snapshot.
    const branch =
      context.launches.find((item) => item.agent === merge.agent)?.branch ??
      context.agents.find((item) => item.agent === merge.agent)?.branch ??
      '';
    return {
      merged: {
        agent: merge.agent,
        branch,
        method: merge.method,
        ...(merge.protectedFiles === undefined ? {} : { protectedFiles: merge.protectedFiles }),
      },
    };
  }
  return {
    merged: null,
    mergeReason:
      context.mergeNote ??
      (context.options.autoMerge === 'best'
        ? 'the race ended before a result could be merged'
        : 'no merge was asked for (--auto-merge best merges the top score; or `hydra merge <run> <agent>`)'),
  };
};

/**
 * An agent's time: over every round it ran, as its usage and cost are (a round adds its time, never
 * replaces the earlier rounds'). A round without times (records from before rounds kept them) leaves
 * the agent's own span, which a reopened agent has from its recorded duration.
 */
const durationOf = (agent: AgentSnapshot, endedAt: number): number => {
  const span = (start: number | null, end: number | null): number =>
    start === null ? 0 : Math.max(0, (end ?? endedAt) - start);
  const rounds = agent.rounds ?? [];
  // The last round may not have started yet (its agent has no start either).
  const timed =
    rounds.length > 0 &&
    rounds.every(
      (round, index) => round.startedAt !== null || (index === rounds.length - 1 && agent.startedAt === null),
    );
  if (!timed) return span(agent.startedAt, agent.endedAt);
  return rounds.reduce((sum, round) => sum + span(round.startedAt, round.endedAt), 0);
};

/**
 * Every agent's figures as the score compares them: its totals over every round it ran (time and
 * cost added up) and its last result (diff, checks). Scores are relative (score.ts: the fastest,
 * cheapest, smallest eligible result sets each part's 1), and those yardsticks are the race's as its
 * agents first ended (`RaceContext.scoreReference`, recorded as `scoreReference`): a round only adds
 * to its own agent's figures and is measured against them, so it never moves another agent's score.
 */
const plainSummary = (context: RaceContext, endedAt: number): RaceSummary => ({
  runId: context.runId,
  prompt: context.options.prompt,
  baseRef: context.repo?.baseRef ?? null,
  baseBranch: context.repo?.baseBranch ?? null,
  startedAt: context.startedAt,
  endedAt,
  agents: context.agents.map((agent) => ({
    agent: agent.agent,
    adapter: agent.adapter,
    status: summaryStatus(agent),
    exitCode: agent.exitCode,
    durationMs: durationOf(agent, endedAt),
    usage: agent.usage,
    diff: {
      filesChanged: agent.diff?.filesChanged ?? 0,
      insertions: agent.diff?.insertions ?? 0,
      deletions: agent.diff?.deletions ?? 0,
    },
    branch: agent.branch,
    worktree: agent.worktree,
    ...(agent.error === null ? {} : { error: agent.error }),
    ...(agent.warnings.length === 0 ? {} : { warnings: agent.warnings }),
    ...(agent.sessionId === undefined ? {} : { sessionId: agent.sessionId }),
    ...(agent.rounds === undefined ? {} : { rounds: agent.rounds }),
    ...(agent.rerunOf === undefined ? {} : { rerunOf: agent.rerunOf }),
    ...(agent.newTests === undefined ? {} : { newTests: agent.newTests }),
    ...(agent.sandbox === undefined ? {} : { sandbox: agent.sandbox }),
    ...(agent.port === undefined ? {} : { port: agent.port }),
    setup: setupSummary(agent.setup),
    ...(agent.runner === undefined ? {} : { runner: agent.runner }),
    ...(agent.host === undefined ? {} : { host: agent.host }),
  })),
  error: context.error,
});
