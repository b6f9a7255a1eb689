/**
 * What the race machine decides, as pure functions of its context: its named guards call these,
 * and so do the input builders that must agree with them (race-inputs.ts).
 */
import type { AgentEvent, ErrorInfo } from '../../core/events.js';
import { DEFAULT_JUDGE_MARGIN, isReproduction, mergeContenders, pickBest } from '../checks/index.js';
import type { CrossTestOutput } from '../checks/index.js';
import type { AgentName } from '../agent-name.js';
import type { AgentSnapshot } from './race-handle.js';
import type { RoundRequest } from '../config/index.js';
import type { MergeRequestEvent, RaceContext } from './race-types.js';
import { buildSummary, raceEnd } from './race-summary.js';

/** A round after the first is a new child: the one before it may not have been removed yet. */
export const childId = (agent: AgentName, round = 1): string =>
  round > 1 ? `agent:${agent}:${round}` : `agent:${agent}`;

export const launchChildId = (context: RaceContext, agent: AgentName): string =>
  childId(agent, context.launches.find((launch) => launch.agent === agent)?.round);

/** Every agent settled, and the baseline's checks are done (or there are none). */
export const everyoneSettled = (context: RaceContext): boolean =>
  context.launches.every((launch) => context.settled.includes(launch.agent)) &&
  (context.baseline === null || context.baseline.status !== 'running');

/** The agents whose results cross-testing runs tests on: completed, settled, with a committed change. */
export const crossTestAgents = (context: RaceContext): Array<{ agent: AgentName; branch: string }> =>
  context.launches.flatMap((launch) => {
    const agent = context.agents.find((item) => item.agent === launch.agent);
    return agent?.status === 'completed' &&
      context.settled.includes(launch.agent) &&
      (agent.diff?.filesChanged ?? 0) > 0
      ? [{ agent: launch.agent, branch: launch.branch }]
      : [];
  });

/** Cross-testing is due once everyone settled: it is on, the race has checks (its tests may run) and a result. */
export const crossTestDue = (context: RaceContext): boolean =>
  !context.cancelRequested &&
  context.options.crossTest !== false &&
  (context.options.checks ?? []).length > 0 &&
  crossTestAgents(context).length > 0;

export const isLive = (context: RaceContext, agent: AgentName): boolean =>
  context.launches.some((launch) => launch.agent === agent) && !context.settled.includes(agent);

/** Launched agents that settled without a diff: committing their work failed, it is only in their worktree. */
export const uncommittedAgents = (context: RaceContext): AgentName[] =>
  context.launches
    .map((launch) => launch.agent)
    .filter(
      (agent) =>
        context.settled.includes(agent) &&
        holdsUncommittedWork(context.agents.find((snapshot) => snapshot.agent === agent)),
    );

/**
 * An agent settled with nothing committed may have left work in its worktree; one stopped before it
 * started (no process, no setup ran: a stop while the worktrees were made) left nothing there.
 */
const holdsUncommittedWork = (snapshot: RaceContext['agents'][number] | undefined): boolean =>
  snapshot !== undefined &&
  snapshot.diff === null &&
  !(snapshot.startedAt === null && snapshot.setup === undefined && snapshot.status === 'cancelled');

/** Why a round cannot start for this agent now, or null when it can. */
export const roundProblem = (context: RaceContext, request: RoundRequest): ErrorInfo | null => {
  const agent = context.agents.find((item) => item.agent === request.agent);
  const launch = context.launches.find((item) => item.agent === request.agent);
  if (agent === undefined || launch === undefined)
    return {
      kind: 'Refused',
      message: `${request.agent} has no result in run ${context.runId} to work on.`,
      hint: `Pick an agent whose branch is still there (\`hydra show ${context.runId}\` lists them).`,
    };
  if (!context.settled.includes(request.agent))
    return {
      kind: 'Refused',
      message: `${agent.displayName} is still running.`,
      hint: 'Wait for it to settle.',
    };
  if (context.merge !== null && request.kind === 'follow_up' && context.merge.agent === request.agent)
    return {
      kind: 'Refused',
      message: `${agent.displayName}'s result was merged already.`,
      hint: 'Start a new race from the merged branch.',
    };
  return null;
};

/** Every scored agent's score, as the summary computes it. */
const raceScores = (context: RaceContext) =>
  buildSummary(context, raceEnd(context)).agents.flatMap((agent) =>
    agent.score === undefined || agent.status === 'skipped' ? [] : [{ agent: agent.agent, ...agent.score }],
  );

const judgeMarginOf = (context: RaceContext): number => context.options.judgeMargin ?? DEFAULT_JUDGE_MARGIN;

/** What `--auto-merge best` and the judge go by: the user's allowances, and merit (checks/separation.ts). */
const pickOptions = (context: RaceContext) => ({
  allowTestChanges: context.options.allowTestChanges === true,
  allowUnverified: context.options.allowUnverified === true,
  requireSeparation: true,
  ...(context.options.scoreWeights === undefined ? {} : { weights: context.options.scoreWeights }),
  sameChange: (a: string, b: string) => {
    const tree = (agent: string) => context.agents.find((item) => item.agent === agent)?.diff?.tree;
    return a === b || (tree(a) !== undefined && tree(a) === tree(b));
  },
});

/**
 * The results the judge ranks: within the margin of the top or sharing the best merit (the score
 * without time and cost), and evidence-backed (verified, or the user allowed unverified merges);
 * empty unless a judge is configured.
 */
export const judgeContenders = (context: RaceContext): AgentName[] => {
  if (context.options.judge === undefined) return [];
  const scores = raceScores(context);
  const contenders = mergeContenders(scores, {
    ...pickOptions(context),
    judgeMargin: judgeMarginOf(context),
  });
  const unverified = scores.some((score) => contenders.includes(score.agent) && !score.verified);
  return unverified && context.options.allowUnverified !== true ? [] : contenders;
};

/** Once per race, when the best results tie or are within the margin: ask the judge. */
export const judgeDue = (context: RaceContext): boolean =>
  context.options.judge !== undefined &&
  context.judge === null &&
  !context.cancelRequested &&
  judgeContenders(context).length > 1;

/** What `--auto-merge best` does now the race reviews: merge an agent, say why not, or nothing. */
export type AutoMergeDecision = { merge: AgentName } | { note: string } | null;

/**
 * Once per race (before any merge was tried or a note written): the top score, or why nothing is
 * merged. Null when `--auto-merge best` was not asked for, is held (`--attempts`: until the last
 * attempt is in), or it has decided already.
 */
export const autoMergeDecision = (context: RaceContext): AutoMergeDecision => {
  if (context.options.autoMerge !== 'best' || context.autoMergeHeld) return null;
  if (context.mergeAttempts > 0 || context.mergeNote !== null) return null;
  const ranking = context.judge?.ranking ?? null;
  const pick = pickBest(raceScores(context), {
    ...pickOptions(context),
    ...(context.options.judge === undefined ? {} : { judgeMargin: judgeMarginOf(context) }),
    ...(ranking === null ? {} : { ranking: ranking.map((item) => item.agent) }),
  });
  return pick.agent === null
    ? { note: `--auto-merge best merged nothing: ${pick.reason}` }
    : { merge: pick.agent };
};

/** The agents with the worktrees and branches in `removed` no longer named. */
export const forgetRemoved = (agents: AgentSnapshot[], removed: readonly string[]): AgentSnapshot[] => {
  const gone = new Set(removed);
  if (gone.size === 0) return agents;
  return agents.map((agent) => ({
    ...agent,
    branch: agent.branch !== null && gone.has(agent.branch) ? null : agent.branch,
    worktree: agent.worktree !== null && gone.has(agent.worktree) ? null : agent.worktree,
  }));
};

/** The race's spend, with this agent's latest reported cost, passed the race's budget (once). */
export const raceSpendOver = (
  context: RaceContext,
  agent: AgentName,
  events: readonly AgentEvent[],
): boolean => {
  const limit = context.options.maxCostUsd;
  if (context.overBudget || limit === undefined) return false;
  const usage = [...events].reverse().find((item) => item.kind === 'usage');
  const latest = usage?.kind === 'usage' ? usage.usage.costUsd : null;
  const spend = context.agents.reduce(
    (sum, item) => sum + ((item.agent === agent ? latest : null) ?? item.usage.costUsd ?? 0),
    0,
  );
  return spend > limit;
};

/** Only a completed agent that has settled (its result committed) can be merged. */
export const completedAndSettled = (context: RaceContext, agent: AgentName): boolean =>
  context.agents.some((snapshot) => snapshot.agent === agent && snapshot.status === 'completed') &&
  context.settled.includes(agent);

/** The merge `--auto-merge best` decided on, or null. */
export const mergeOf = (decision: AutoMergeDecision): MergeRequestEvent | null =>
  decision !== null && 'merge' in decision ? { agent: decision.merge, options: {} } : null;

/**
 * `--stop first-verified`: the first completed result whose every check ran and passed (and that
 * did not fail a rival's reproduction), while another agent still runs; null when the race does not
 * stop early, has already, is running the rivals' reproductions on one, or nobody is verified.
 */
export const firstVerified = (context: RaceContext): AgentName | null => {
  if (context.options.stopFirstVerified === undefined || context.stoppedEarly !== null) return null;
  if (context.verifying !== null) return null;
  if (context.launches.every((launch) => context.settled.includes(launch.agent))) return null;
  const verified = context.agents.find(
    (agent) =>
      agent.status === 'completed' &&
      context.settled.includes(agent.agent) &&
      !context.unverified.includes(agent.agent) &&
      (agent.checks ?? []).length > 0 &&
      (agent.checks ?? []).every((check) => check.status === 'passed'),
  );
  return verified?.agent ?? null;
};

/**
 * With cross-testing on, a result that passed its checks is verified only once it also passes the
 * reproductions its settled rivals wrote: due when there is such a rival (a completed, committed
 * result other than its own). Rivals still running have written none yet.
 */
export const reproductionsDue = (context: RaceContext, candidate: AgentName): boolean =>
  context.options.crossTest !== false &&
  (context.options.checks ?? []).length > 0 &&
  crossTestAgents(context).some((item) => item.agent !== candidate);

/**
 * The rivals' reproductions (a test that fails on the base and passes on its author's result) that
 * do not pass on `candidate`'s result, as `<author>'s <file>`; cross-testing that could not run is
 * one too, since nothing then says the result passes them.
 */
export const failedReproductions = (output: CrossTestOutput, candidate: AgentName): string[] => {
  if (output.error !== null) return [`the rivals' tests, which could not run (${output.error})`];
  return Object.entries(output.results).flatMap(([author, summary]) =>
    author === candidate
      ? []
      : summary.tests
          .filter((test) => isReproduction(test) && test.onOthers[candidate] !== 'passed')
          .map((test) => `${author}'s ${test.file}`),
  );
};
