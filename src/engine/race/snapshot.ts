/**
 * The snapshot a UI renders: the race's phase (from the machine's state) and its agents, scored
 * once the race reviews. What updates the agents is agent-updates.ts; the summary race-summary.ts.
 */
import type { StateValue } from 'xstate';
import type { RaceContext } from './race-types.js';
import type { AgentSnapshot, RacePhase, RaceSnapshot } from './race-handle.js';
import { buildSummary, raceEnd } from './race-summary.js';

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

/** An agent whose process may still run (its status says so). */
const LIVE: ReadonlySet<string> = new Set(['pending', 'setting_up', 'spawning', 'running']);

/**
 * The phase the snapshot shows: as phaseOf says, except that a race whose agents all ended while
 * checks run (an agent's, or the baseline's) is `checking`, not `racing`.
 */
export const shownPhase = (value: StateValue, context: RaceContext): RacePhase => {
  const phase = phaseOf(value);
  const top = typeof value === 'string' ? value : Object.keys(value)[0];
  if (top !== 'racing' || context.launches.length === 0) return phase;
  const live = context.launches.some((launch) => {
    const agent = context.agents.find((item) => item.agent === launch.agent);
    return agent === undefined || LIVE.has(agent.status);
  });
  const checking = context.baseline?.status === 'running' || context.agents.some((agent) => agent.checking);
  return !live && checking ? 'checking' : phase;
};

/** Phases in which every agent and the baseline have settled: the scores compare final figures. */
const SCORED_PHASES: readonly RacePhase[] = ['reviewing', 'merging', 'done'];

/** The agents with their scores, once the race is scored; the same numbers as the summary's. */
const scoredAgents = (context: RaceContext, phase: RacePhase): AgentSnapshot[] => {
  if (!SCORED_PHASES.includes(phase) || context.launches.length === 0) return context.agents;
  const summary = buildSummary(context, raceEnd(context));
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
  ...(context.options.reopen === undefined ? {} : { reopened: true }),
  ...(context.recordedEndedAt === null ? {} : { endedAt: context.recordedEndedAt }),
  agents: scoredAgents(context, phase),
  error: context.error,
  warnings: context.warnings,
  merge: context.merge,
  baseline: context.baseline,
  mergeNote: context.mergeNote,
  judge: context.judge,
});
