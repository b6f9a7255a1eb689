/**
 * Pure updates of the race context's agent snapshots, from what the probes and the agent machines
 * report. Objects are replaced, never mutated, so a UI can compare by identity; recent events are
 * bounded per agent.
 */
import { addCounts, emptyUsage } from '../../core/events.js';
import type { AgentEvent, ErrorInfo, Usage } from '../../core/events.js';
import type { AgentReport } from '../agent/index.js';
import type { RaceContext } from './race-types.js';
import { siblingPathsIn, siblingReachWarning, summarizeChecks } from '../checks/index.js';
import type { BaselineOutput } from '../checks/index.js';
import type { AgentName } from '../agent-name.js';
import type { AgentProbeReport } from '../probe-types.js';
import type { AgentRound } from '../records/index.js';
import type { AgentSnapshot } from './race-handle.js';

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
