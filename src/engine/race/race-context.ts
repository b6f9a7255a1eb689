/** The race machine's context as a race starts (or a recorded run is reopened). */
import { availableParallelism } from 'node:os';
import { adapterOf } from '../../adapters/registry.js';
import { agentNameOf } from '../agent-name.js';
import { createLimiter } from '../process/index.js';
import { createPortLeases } from '../setup/index.js';
import type { AgentSnapshot, BaselineSnapshot } from './race-handle.js';
import type { RaceSummary } from '../records/index.js';
import { nothingYet } from './fresh-agent.js';
import { reopenedAgent } from './race-reopen.js';
import type { RaceContext, RaceInput, ResolvedRaceOptions } from './race-types.js';

const initialAgent = (plan: ResolvedRaceOptions['agents'][number]): AgentSnapshot => {
  const adapter = adapterOf(plan.adapterId);
  const name = agentNameOf(plan);
  return {
    agent: name,
    adapter: adapter.id,
    // An agent named after its CLI reads as the CLI ("Claude Code"); a named one by its name.
    displayName: name === adapter.id ? adapter.displayName : name,
    adapterName: adapter.displayName,
    tier: adapter.tier,
    model: plan.model ?? null,
    status: 'pending',
    ...nothingYet(),
    branch: null,
    worktree: null,
    inferredFlags: false,
    capabilities: null,
  };
};

/** A reopened run's baseline as it was recorded (a round that runs checks runs it again). */
const recordedBaseline = (recorded: RaceSummary['baseline']): BaselineSnapshot | null =>
  recorded === undefined
    ? null
    : { status: recorded.status ?? 'done', checks: recorded.checks, error: recorded.error ?? null };

export const initialContext = (input: RaceInput): RaceContext => ({
  options: input.options,
  runId: input.options.runId,
  startedAt: input.options.reopen?.startedAt ?? input.startedAt,
  processes: input.processes,
  repo: null,
  reports: [],
  agents:
    input.options.reopen === undefined
      ? input.options.agents.map(initialAgent)
      : input.options.reopen.agents.map((agent) =>
          reopenedAgent(agent, input.options.reopen?.startedAt ?? input.startedAt),
        ),
  launches: [],
  recordDir: null,
  settled: [],
  warnings: [],
  error: null,
  mergeError: null,
  mergeRequest: null,
  mergeAttempts: 0,
  cancelRequested: false,
  endedAt: null,
  // `hydra continue` and `rerun` start a round at once: the race goes on, and so does its end.
  recordedEndedAt: input.options.reopen?.round === undefined ? (input.options.reopen?.endedAt ?? null) : null,
  baseline: recordedBaseline(input.options.reopen?.baseline),
  checkSlots: createLimiter(input.options.checkConcurrency ?? availableParallelism()),
  ports:
    input.ports ??
    createPortLeases({
      runId: input.options.runId,
      ...(input.options.portRange === undefined ? {} : { range: input.options.portRange }),
    }),
  overBudget: false,
  stoppedEarly: null,
  verifying: null,
  unverified: [],
  mergeNote: null,
  autoMergeHeld: input.options.holdAutoMerge === true,
  judge: null,
  scoreReference: input.options.reopen?.scoreReference ?? null,
  checkRuns: {},
  baselineRuns: null,
  merge: input.options.reopen?.merge ?? null,
  pendingRound: null,
  roundAttempts: 0,
  roundError: null,
  earlyStops: [],
});
