/**
 * Pure updates of the race context's agent snapshots. Objects are replaced, never mutated, so a UI
 * can compare by identity; recent events are bounded per agent.
 */
import type { StateValue } from 'xstate';
import { addCounts, emptyUsage } from '../../core/events.js';
import type { AgentEvent, ErrorInfo, Usage } from '../../core/events.js';
import type { AgentReport } from '../agent/index.js';
import type { RaceContext } from './race-types.js';
import { agentNameOf } from '../agent-name.js';
import {
  DEFAULT_SCORE_WEIGHTS,
  outsideAllowedPaths,
  scoreRace,
  siblingPathsIn,
  siblingReachWarning,
  summarizeChecks,
} from '../checks/index.js';
import type { BaselineOutput } from '../checks/index.js';
import type { AgentName } from '../agent-name.js';
import type { AgentProbeReport } from '../probe-types.js';
import type { AgentRound, AgentSummary, RaceSummary } from '../records/index.js';
import type { AgentSnapshot, BaselineSnapshot, RacePhase, RaceSnapshot } from './race-handle.js';
import type { CheckSummary } from '../check-types.js';

const RECENT_EVENTS_LIMIT = 200;

export const updateAgent = (
  agents: AgentSnapshot[],
  id: AgentName,
  update: (agent: AgentSnapshot) => AgentSnapshot,
): AgentSnapshot[] => agents.map((agent) => (agent.agent === id ? update(agent) : agent));

const appendEvents = (agent: AgentSnapshot, events: readonly AgentEvent[]): AgentSnapshot => {
  if (events.length === 0) return agent;
  const combined = agent.recentEvents.length + events.length;
  const recentEvents =
    combined <= RECENT_EVENTS_LIMIT
      ? [...agent.recentEvents, ...events]
      : [...agent.recentEvents, ...events].slice(combined - RECENT_EVENTS_LIMIT);
  let { model, sessionId } = agent;
  // Events carry the usage of the process that runs: in a later round, that is this round's, never
  // the total over rounds the agent shows (starting from that total counted the earlier rounds
  // again with every batch that carried no usage: the live cost ran away during a follow-up).
  let usage = agent.rounds?.at(-1)?.usage ?? agent.usage;
  for (const event of events) {
    if (event.kind === 'usage') usage = event.usage;
    if ((event.kind === 'completed' || event.kind === 'failed') && event.usage !== undefined)
      usage = event.usage;
    if (event.kind === 'progress' && event.model !== undefined && model === null) model = event.model;
    if (event.kind === 'progress' && event.sessionId !== undefined) sessionId = event.sessionId;
  }
  const next = { ...agent, recentEvents, eventCount: agent.eventCount + events.length, model };
  if (sessionId !== undefined) next.sessionId = sessionId;
  // A CLI reports its usage for the process it runs: in a later round, that is this round's.
  return agent.rounds === undefined ? { ...next, usage } : withRoundUsage(next, agent.rounds, usage);
};

/** The current (last) round's usage replaced, and the agent's usage the sum of every round's. */
const withRoundUsage = (
  agent: AgentSnapshot,
  rounds: readonly AgentRound[],
  current: Usage,
): AgentSnapshot => {
  const updated = rounds.map((round, index) =>
    index === rounds.length - 1 ? { ...round, usage: current } : round,
  );
  return { ...agent, rounds: updated, usage: sumUsage(updated.map((round) => round.usage)) };
};

/**
 * Usage added up over rounds: token counts as far as reported; the cost only when every round that
 * used anything has one (an unknown part makes the total unknown, never smaller).
 */
export const sumUsage = (usages: readonly Usage[]): Usage => {
  const used = usages.filter((usage) => usage.costSource !== 'unknown' || usage.inputTokens !== null);
  const costKnown = used.length > 0 && used.every((usage) => usage.costUsd !== null);
  return usages.reduce<Usage>(
    (total, usage) => ({
      inputTokens: addCounts(total.inputTokens, usage.inputTokens),
      outputTokens: addCounts(total.outputTokens, usage.outputTokens),
      cacheReadTokens: addCounts(total.cacheReadTokens, usage.cacheReadTokens),
      cacheWriteTokens: addCounts(total.cacheWriteTokens, usage.cacheWriteTokens),
      turns: addCounts(total.turns, usage.turns),
      costUsd: costKnown ? (total.costUsd ?? 0) + (usage.costUsd ?? 0) : null,
      costSource: !costKnown
        ? 'unknown'
        : total.costSource === 'estimated' || usage.costSource === 'estimated'
          ? 'estimated'
          : 'reported',
    }),
    { ...emptyUsage(), costSource: costKnown ? 'reported' : 'unknown' },
  );
};

/** Ends a message with a full stop unless it already ends a sentence. */
const sentence = (text: string): string => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/** `Claude Code`, or `opus (Claude Code)` for a named agent. */
const agentLabel = (report: AgentProbeReport): string =>
  report.agent === report.adapterId ? report.displayName : `${report.agent} (${report.displayName})`;

const notReadyWarning = (report: AgentProbeReport): string => {
  const reason = sentence(report.error?.message ?? report.status);
  const hint = report.error?.hint ? ` ${sentence(report.error.hint)}` : '';
  return `${agentLabel(report)} will not race: ${reason}${hint}`;
};

export const applyProbeReports = (
  context: RaceContext,
  reports: AgentProbeReport[],
): Partial<RaceContext> => {
  const warnings = [...context.warnings];
  let agents = context.agents;
  for (const report of reports) {
    const ready = report.status === 'ready';
    if (!ready && report.status !== 'disabled') warnings.push(notReadyWarning(report));
    agents = updateAgent(agents, report.agent, (agent) => ({
      ...agent,
      status: ready ? 'pending' : 'skipped',
      capabilities: report.capabilities,
      inferredFlags: report.capabilities?.confidence === 'inferred',
      warnings: [
        ...report.warnings,
        ...(report.capabilities?.warnings ?? []).filter((warning) => !report.warnings.includes(warning)),
      ],
      error: ready
        ? null
        : (report.error ?? {
            kind: 'BinaryMissing',
            message: `${report.displayName} is ${report.status}.`,
            hint: 'Run `hydra doctor` for details.',
          }),
    }));
  }
  return { reports, agents, warnings };
};

export const noUsableAgentError = (reports: AgentProbeReport[]): ErrorInfo => {
  const reasons = reports.map((report) => `${agentLabel(report)}: ${report.error?.message ?? report.status}`);
  const allMissing = reports.length > 0 && reports.every((report) => report.status === 'missing');
  return {
    kind: allMissing
      ? 'BinaryMissing'
      : (reports.find((report) => report.error !== null)?.error?.kind ?? 'BinaryMissing'),
    message:
      reports.length === 0
        ? 'No agent was selected for the race.'
        : `No usable agent, so nothing was started. ${reasons.join('; ')}.`,
    hint: 'Run `hydra doctor` to see what is missing and how to install it, or `hydra demo` to try hydra with simulated agents.',
  };
};

/** The current (last) round of an agent that has rounds, changed; an agent without rounds as it is. */
const withCurrentRound = (
  agent: AgentSnapshot,
  change: (round: AgentRound) => AgentRound,
): Pick<AgentSnapshot, 'rounds'> =>
  agent.rounds === undefined
    ? {}
    : {
        rounds: agent.rounds.map((round, index, all) => (index === all.length - 1 ? change(round) : round)),
      };

/** Its worktree's setup started (the agent is setting up) or ended well (it starts next). */
export const applySetup = (
  context: RaceContext,
  event: Extract<AgentReport, { type: 'AGENT.SETUP' }>,
): Partial<RaceContext> => ({
  agents: updateAgent(context.agents, event.agent, (agent) => ({
    ...agent,
    setup: event.setup,
    ...(agent.status === 'spawning' || agent.status === 'setting_up'
      ? { status: event.setup.durationMs === null ? ('setting_up' as const) : ('spawning' as const) }
      : {}),
  })),
});

export const applySpawned = (
  context: RaceContext,
  event: Extract<AgentReport, { type: 'AGENT.SPAWNED' }>,
): Partial<RaceContext> => ({
  agents: updateAgent(context.agents, event.agent, (agent) => ({
    ...agent,
    status: 'running',
    startedAt: event.at,
    lastOutputAt: null,
    ...withCurrentRound(agent, (round) => ({ ...round, startedAt: event.at })),
  })),
});

export const applyOutput = (
  context: RaceContext,
  event: Extract<AgentReport, { type: 'AGENT.OUTPUT' }>,
): Partial<RaceContext> => ({
  agents: updateAgent(context.agents, event.agent, (agent) =>
    withSiblingReach(context, { ...appendEvents(agent, event.events), lastOutputAt: event.at }, event.events),
  ),
});

/** An agent whose tool calls named another agent's directory gets a warning (checks/sibling-reach.ts). */
const withSiblingReach = (
  context: RaceContext,
  agent: AgentSnapshot,
  events: readonly AgentEvent[],
): AgentSnapshot => {
  if (agent.worktree === null) return agent;
  const own = {
    worktree: agent.worktree,
    siblings: context.agents.map((item) => item.agent).filter((name) => name !== agent.agent),
  };
  const paths = events.flatMap((event) => siblingPathsIn(event, own));
  if (paths.length === 0) return agent;
  const warning = siblingReachWarning([...new Set(paths)]);
  return agent.warnings.includes(warning) ? agent : { ...agent, warnings: [...agent.warnings, warning] };
};

/**
 * The stream carried the agent's final result while its process may still be running: from now on
 * it is shown as what it reported (completed or failed), not as running. Its exit confirms it.
 */
export const applyResult = (
  context: RaceContext,
  event: Extract<AgentReport, { type: 'AGENT.RESULT' }>,
): Partial<RaceContext> => ({
  agents: updateAgent(context.agents, event.agent, (agent) =>
    agent.status === 'running'
      ? {
          ...agent,
          status: event.terminal.kind === 'completed' ? 'completed' : 'failed',
          error: event.terminal.kind === 'failed' ? event.terminal.error : null,
        }
      : agent,
  ),
});

export const applyExit = (
  context: RaceContext,
  event: Extract<AgentReport, { type: 'AGENT.EXITED' }>,
): Partial<RaceContext> => ({
  agents: updateAgent(context.agents, event.agent, (agent) => {
    const next = appendEvents(agent, [event.terminal]);
    return {
      ...next,
      status: event.status,
      endedAt: event.at,
      startedAt: agent.startedAt ?? event.at,
      exitCode: event.exitCode,
      error: event.terminal.kind === 'failed' ? event.terminal.error : null,
      ...withCurrentRound(next, (round) => ({
        ...round,
        startedAt: round.startedAt ?? agent.startedAt ?? event.at,
        endedAt: event.at,
      })),
    };
  }),
});

export const applySettled = (
  context: RaceContext,
  event: Extract<AgentReport, { type: 'AGENT.SETTLED' }>,
): Partial<RaceContext> => ({
  settled: context.settled.includes(event.agent) ? context.settled : [...context.settled, event.agent],
  agents: updateAgent(context.agents, event.agent, (agent) => ({
    ...agent,
    status: event.status,
    diff: event.diff,
    endedAt: agent.endedAt ?? event.at,
    ...(event.error === null ? {} : { error: event.error }),
    warnings: [...agent.warnings, ...event.warnings.filter((warning) => !agent.warnings.includes(warning))],
    checks: event.checks === null ? null : summarizeChecks(event.checks, context.baselineRuns),
    checking: false,
  })),
  ...(event.checks === null ? {} : { checkRuns: { ...context.checkRuns, [event.agent]: event.checks } }),
});

/** The baseline's checks are in: every agent's checks are compared with them again. */
export const applyBaseline = (context: RaceContext, event: BaselineOutput): Partial<RaceContext> => ({
  baselineRuns: event.checks,
  baseline: {
    status: event.error === null ? 'done' : 'failed',
    checks: summarizeChecks(event.checks, null),
    error: event.error,
  },
  agents: context.agents.map((agent) => {
    const runs = context.checkRuns[agent.agent];
    return runs === undefined ? agent : { ...agent, checks: summarizeChecks(runs, event.checks) };
  }),
});

/** Its result is committed and its checks run: the diff is known already. */
export const applyChecking = (
  context: RaceContext,
  event: Extract<AgentReport, { type: 'AGENT.CHECKING' }>,
): Partial<RaceContext> => ({
  agents: updateAgent(context.agents, event.agent, (agent) => ({
    ...agent,
    diff: event.diff,
    checking: true,
  })),
});

/** The phase a user sees for a machine state value. */
export const phaseOf = (value: StateValue): RacePhase => {
  const top = typeof value === 'string' ? value : Object.keys(value)[0];
  switch (top) {
    case 'checkingRepo':
      return 'checking_repo';
    case 'probing':
      return 'probing';
    case 'creatingWorktrees':
      return 'creating_worktrees';
    case 'racing':
    case 'preparingRound':
      return 'racing';
    // Weighing decides, at once, whether the judge is asked after the cross-tests.
    case 'crossTesting':
    case 'weighing':
      return 'cross_testing';
    case 'judging':
      return 'judging';
    case 'reopening':
      return 'creating_worktrees';
    case 'reviewing':
      return 'reviewing';
    case 'merging':
      return 'merging';
    case 'finishing':
    case 'done':
      return 'done';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'failed';
  }
};

/** Phases in which every agent and the baseline have settled: the scores compare final figures. */
const SCORED_PHASES: readonly RacePhase[] = ['reviewing', 'merging', 'done'];

/** The agents with their scores, once the race is scored; the same numbers as the summary's. */
const scoredAgents = (context: RaceContext, phase: RacePhase): AgentSnapshot[] => {
  if (!SCORED_PHASES.includes(phase) || context.launches.length === 0) return context.agents;
  const summary = buildSummary(context, context.endedAt ?? Date.now());
  return context.agents.map((agent, index) => ({ ...agent, score: summary.agents[index]?.score ?? null }));
};

export const toRaceSnapshot = (context: RaceContext, phase: RacePhase, now: number): RaceSnapshot => ({
  runId: context.runId,
  prompt: context.options.prompt,
  phase,
  repoRoot: context.repo?.root ?? null,
  baseBranch: context.repo?.baseBranch ?? null,
  baseRef: context.repo?.baseRef ?? null,
  startedAt: context.startedAt,
  now,
  agents: scoredAgents(context, phase),
  error: context.error,
  warnings: context.warnings,
  merge: context.merge,
  baseline: context.baseline,
  mergeNote: context.mergeNote,
  judge: context.judge,
});

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
export const buildSummary = (context: RaceContext, endedAt: number): RaceSummary => {
  const summary = { ...plainSummary(context, endedAt), ...mergedPart(context) };
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
    return {
      ...agent,
      ...(hasChecks ? { checks: withUnrunChecks(context, index, snapshot?.checks ?? []) } : {}),
      ...(allowed === undefined || allowed.length === 0
        ? {}
        : { outsideAllowed: outsideAllowedPaths(files, allowed) }),
    };
  });
  const weights = context.options.scoreWeights ?? DEFAULT_SCORE_WEIGHTS;
  const allowTestChanges = context.options.allowTestChanges === true;
  const scores = scoreRace(agents, weights, allowTestChanges);
  return {
    ...summary,
    agents: agents.map((agent, index) => {
      const score = scores[index];
      return score === undefined ? agent : { ...agent, score };
    }),
    ...(context.baseline === null ? {} : { baseline: baselineSummary(context.baseline) }),
    scoreWeights: { ...weights },
    ...(context.judge === null ? {} : { judge: context.judge }),
    ...(allowTestChanges ? { allowTestChanges } : {}),
  };
};

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
    return { merged: { agent: merge.agent, branch, method: merge.method } };
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
 * cheapest, smallest eligible result sets each part's 1), so the rule that keeps a follow-up from
 * moving the others' scores for nothing is that a round only adds to its own agent's figures: time
 * and cost never fall, and the others' figures are kept as recorded. Another agent's score then
 * moves only where its result is compared with a result that really changed (a smaller diff, a
 * result that now completes), never because one agent's later round was short.
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
