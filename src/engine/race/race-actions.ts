/**
 * The race machine's named actions: they only assign, emit and send (to the agent machines), and
 * what they assign is computed by pure functions (race-updates.ts, agent-updates.ts). Each narrows
 * its event with `assertEvent` or takes what an invoked actor returned (or threw) as typed `params`.
 */
import { assertEvent, assign, emit, enqueueActions } from 'xstate';
import type { Assigner, ParameterizedObject, PropertyAssigner } from 'xstate';
import type { agentMachine } from '../agent/index.js';
import type { verifyLogic } from './race-actors.js';
import { toErrorInfo } from '../errors.js';
import type { RepoCheck } from '../git/index.js';
import type { CrossTestOutput } from '../checks/index.js';
import type { AgentProbeReport } from '../probe-types.js';
import type { AgentName } from '../agent-name.js';
import type { JudgeSummary, MergeResult } from '../records/index.js';
import { protectedFilesNote } from '../results/index.js';
import {
  childId,
  failedReproductions,
  firstVerified,
  forgetRemoved,
  isLive,
  launchChildId,
  roundProblem,
} from './race-decisions.js';
import type { AutoMergeDecision } from './race-decisions.js';
import * as update from './race-updates.js';
import { verifyInput } from './race-inputs.js';
import { raceEnd, scoreReferenceAt } from './race-summary.js';
import * as agentUpdates from './agent-updates.js';
import type { RoundStart } from './race-rounds.js';
import type {
  CleanUpOutput,
  MergeRequestEvent,
  RaceContext,
  RaceEmitted,
  RaceEvent,
  ReopenedWorkspace,
  Workspace,
} from './race-types.js';

// XState's action creators typed for the race machine: outside `setup`, nothing infers its context,
// events, children or an action's params.
type Params = ParameterizedObject['params'] | undefined;
type Context = RaceContext;
type Event = RaceEvent;
/** The children an action spawns: an agent machine (`spawnAgents`), the rivals' reproductions (`startVerify`). */
type AgentRun =
  | { src: 'agentRun'; logic: typeof agentMachine; id: string | undefined }
  | { src: 'verifyRun'; logic: typeof verifyLogic; id: string | undefined };

/** The child running the settled rivals' reproductions on a candidate (`--stop first-verified`). */
const VERIFY_CHILD = 'verify';

const assignRace = <P extends Params = undefined>(
  assignment: Assigner<Context, Event, P, Event, never> | PropertyAssigner<Context, Event, P, Event, never>,
) => assign<Context, Event, P, Event, never>(assignment);

const enqueueRace = <P extends Params = undefined>(
  collect: Parameters<
    typeof enqueueActions<Context, Event, P, Event, AgentRun, never, never, never, RaceEmitted>
  >[0],
) => enqueueActions<Context, Event, P, Event, AgentRun, never, never, never, RaceEmitted>(collect);

const emitRace = (event: Parameters<typeof emit<Context, Event, undefined, Event, RaceEmitted>>[0]) =>
  emit<Context, Event, undefined, Event, RaceEmitted>(event);

const applyRepo = assignRace(({ context }, params: { repo: RepoCheck }) =>
  update.applyRepo(context, params.repo),
);

const applyProbe = assignRace(({ context }, params: { reports: AgentProbeReport[] }) =>
  agentUpdates.applyProbeReports(context, params.reports),
);

const failNoUsableAgent = assignRace(({ context }, params: { reports: AgentProbeReport[] }) =>
  update.failNoUsableAgent(context, params.reports),
);

const failWith = assignRace((_, params: { error: unknown }) => ({
  error: toErrorInfo(params.error),
  endedAt: Date.now(),
}));

// The worktrees could not be made: the agents that were to race failed before starting, for
// that reason (not for anything of theirs).
const failWorkspace = assignRace(({ context }, params: { error: unknown }) =>
  update.failWorkspace(context, params.error),
);

const applyWorkspace = assignRace(({ context }, workspace: Workspace) =>
  update.applyWorkspace(context, workspace),
);

const spawnAgents = enqueueRace(({ context, enqueue }) => {
  for (const launch of context.launches) {
    if (context.settled.includes(launch.agent)) continue;
    enqueue.spawnChild('agentRun', {
      id: childId(launch.agent, launch.round),
      input: {
        launch,
        processes: context.processes,
        checkSlots: context.checkSlots,
        ...(context.earlyStops.includes(launch.agent) ? { stopAtStart: true } : {}),
      },
    });
  }
});

// A stop asked before the agents started (the worktrees are being made): held for spawnAgents.
const holdStop = assignRace(({ context, event }) => {
  assertEvent(event, 'STOP_AGENT');
  return context.earlyStops.includes(event.agent) ? {} : { earlyStops: [...context.earlyStops, event.agent] };
});

// Once per race: a later round (a follow-up, a rerun) compares with the baseline already run. A
// reopened run's recorded baseline has no runs to compare with: a round with checks runs it again.
const startBaseline = assignRace(({ context }) => ({
  baseline:
    context.baselineRuns !== null || (context.options.checks ?? []).length === 0
      ? context.baseline
      : { status: 'running' as const, checks: [], error: null },
}));

const applyBaseline = assignRace(({ context, event }) => {
  assertEvent(event, 'BASELINE.DONE');
  return agentUpdates.applyBaseline(context, event);
});

const applyCrossTests = assignRace(({ context }, output: CrossTestOutput) =>
  update.applyCrossTests(context, output),
);

const failBaseline = assignRace(({ context }, params: { error: unknown }) =>
  agentUpdates.applyBaseline(context, { checks: [], error: toErrorInfo(params.error).message }),
);

const applyChecking = assignRace(({ context, event }) => {
  assertEvent(event, 'AGENT.CHECKING');
  return agentUpdates.applyChecking(context, event);
});

// `--stop first-verified`: one result passed every check; the others are stopped after the grace.
const markFirstVerified = enqueueRace(({ context, enqueue }) => {
  const by = firstVerified(context);
  if (by === null) return;
  enqueue.assign({ stoppedEarly: { by, agents: [] } });
  enqueue.raise({ type: 'STOP_EARLY' }, { delay: context.options.stopFirstVerified?.graceMs ?? 0 });
});

// `--stop first-verified` with cross-testing: a result passed every check; the settled rivals'
// reproductions run on it before it counts as verified (the `verify` child, VERIFY.DONE).
const startVerify = enqueueRace(({ context, enqueue }) => {
  const candidate = firstVerified(context);
  if (candidate === null) return;
  enqueue.assign({ verifying: candidate });
  enqueue.spawnChild('verifyRun', { id: VERIFY_CHILD, input: verifyInput(context, candidate) });
});

// The rivals' reproductions ran on the candidate: it passed them all (the others are stopped after
// the grace), or it is not verified and the race goes on, saying why.
const applyVerification = enqueueRace(({ context, event, enqueue }) => {
  assertEvent(event, 'VERIFY.DONE');
  if (context.verifying !== event.agent) return;
  const failed = failedReproductions(event.output, event.agent);
  if (failed.length === 0 && context.stoppedEarly === null) {
    enqueue.assign({ verifying: null, stoppedEarly: { by: event.agent, agents: [] } });
    enqueue.raise({ type: 'STOP_EARLY' }, { delay: context.options.stopFirstVerified?.graceMs ?? 0 });
    return;
  }
  enqueue.assign({
    verifying: null,
    unverified: [...context.unverified, event.agent],
    warnings: [
      ...context.warnings,
      `${event.agent}'s result passed every check but not ${failed.join(', ')}: it is not verified, and the others race on (--stop first-verified)`,
    ],
  });
});

// The race left racing (everyone settled, or a cancel) while the rivals' reproductions ran.
const stopVerify = enqueueRace(({ context, enqueue }) => {
  if (context.verifying === null) return;
  enqueue.stopChild(VERIFY_CHILD);
  enqueue.assign({ verifying: null });
});

// `--attempts`: the last attempt is in; the reviewing state's auto-merge decides now.
const releaseAutoMerge = assignRace({ autoMergeHeld: false });

/** Still working (not settling its result or running its checks): what `--stop first-verified` stops. */
const STOPPABLE: readonly string[] = ['pending', 'setting_up', 'spawning', 'running'];

// The grace is over: every agent still working is stopped (its work stays on its branch).
const stopUnverified = enqueueRace(({ context, enqueue, self }) => {
  if (context.stoppedEarly === null) return;
  const stopped: AgentName[] = [];
  for (const launch of context.launches) {
    const id = childId(launch.agent, launch.round);
    const status = context.agents.find((agent) => agent.agent === launch.agent)?.status ?? 'pending';
    if (
      isLive(context, launch.agent) &&
      STOPPABLE.includes(status) &&
      self.getSnapshot().children[id] !== undefined
    ) {
      enqueue.sendTo(id, { type: 'STOP_EARLY' });
      stopped.push(launch.agent);
    }
  }
  enqueue.assign({ stoppedEarly: { ...context.stoppedEarly, agents: stopped } });
});

// The race's spend passed its budget: every agent still running is stopped, once.
const stopOverBudget = enqueueRace(({ context, enqueue, self }) => {
  enqueue.assign({ overBudget: true });
  for (const launch of context.launches) {
    if (
      isLive(context, launch.agent) &&
      self.getSnapshot().children[childId(launch.agent, launch.round)] !== undefined
    )
      enqueue.sendTo(childId(launch.agent, launch.round), { type: 'OVER_BUDGET' });
  }
});

const applyReopenProbe = assignRace(({ context }, params: { reports: AgentProbeReport[] }) =>
  update.applyReopenProbe(context, params.reports),
);

const applyReopened = assignRace(({ context }, workspace: ReopenedWorkspace) =>
  update.applyReopened(context, workspace),
);

const applyShell = assignRace(({ context, event }) => {
  assertEvent(event, 'SHELL_DONE');
  return update.applyShell(context, event);
});

const acceptRound = assignRace(({ event }) => {
  assertEvent(event, 'ROUND');
  return { pendingRound: event.request, recordedEndedAt: null };
});

const rejectRound = assignRace(({ context, event }) => {
  assertEvent(event, 'ROUND');
  return {
    roundAttempts: context.roundAttempts + 1,
    roundError: roundProblem(context, event.request),
  };
});

const applyRound = enqueueRace(({ context, enqueue }, start: RoundStart) => {
  enqueue.assign(update.applyRound(context, start));
  enqueue.emit({
    type: 'agentEvents',
    records: [{ agent: start.agent.agent, at: Date.now(), event: start.divider }],
  });
});

const applyRoundError = assignRace(({ context }, params: { error: unknown }) =>
  update.applyRoundError(context, params.error),
);

const failRound = assignRace(({ context }, params: { error: unknown }) =>
  update.failRound(context, params.error),
);

const applySpawned = assignRace(({ context, event }) => {
  assertEvent(event, 'AGENT.SPAWNED');
  return agentUpdates.applySpawned(context, event);
});

const applySetup = assignRace(({ context, event }) => {
  assertEvent(event, 'AGENT.SETUP');
  return agentUpdates.applySetup(context, event);
});

const applyOutput = assignRace(({ context, event }) => {
  assertEvent(event, 'AGENT.OUTPUT');
  return agentUpdates.applyOutput(context, event);
});

const applyResult = assignRace(({ context, event }) => {
  assertEvent(event, 'AGENT.RESULT');
  return agentUpdates.applyResult(context, event);
});

const emitOutput = enqueueRace(({ event, enqueue }) => {
  assertEvent(event, 'AGENT.OUTPUT');
  if (event.events.length === 0) return;
  enqueue.emit({
    type: 'agentEvents',
    records: event.events.map((item) => ({ agent: event.agent, at: event.at, event: item })),
  });
});

const applyExit = assignRace(({ context, event }) => {
  assertEvent(event, 'AGENT.EXITED');
  return agentUpdates.applyExit(context, event);
});

const emitExit = emitRace(({ event }) => {
  assertEvent(event, 'AGENT.EXITED');
  return {
    type: 'agentEvents' as const,
    records: [{ agent: event.agent, at: event.at, event: event.terminal }],
  };
});

const applySettled = assignRace(({ context, event }) => {
  assertEvent(event, 'AGENT.SETTLED');
  return agentUpdates.applySettled(context, event);
});

const stopAgent = enqueueRace(({ context, event, enqueue, self }) => {
  assertEvent(event, 'STOP_AGENT');
  const id = launchChildId(context, event.agent);
  if (isLive(context, event.agent) && self.getSnapshot().children[id] !== undefined) {
    enqueue.sendTo(id, { type: 'STOP' });
  }
});

const stopAllAgents = enqueueRace(({ context, enqueue, self }) => {
  for (const launch of context.launches) {
    const id = childId(launch.agent, launch.round);
    if (isLive(context, launch.agent) && self.getSnapshot().children[id] !== undefined) {
      enqueue.sendTo(id, { type: 'STOP' });
    }
  }
});

// --auto-merge best decided to merge nothing (autoMergeDeclined): say why, once.
const noteAutoMerge = assignRace((_, params: { decision: AutoMergeDecision }) => ({
  mergeNote:
    params.decision !== null && 'note' in params.decision
      ? params.decision.note
      : '--auto-merge best merged nothing.',
}));

const markCancelRequested = assignRace({ cancelRequested: true });

const cancelBaseline = assignRace(({ context }) => update.cancelBaseline(context));

const cancelUnstarted = assignRace(({ context }) => update.cancelUnstarted(context));

/** The race's end; the first time, the score's yardsticks are taken from its results (race-summary.ts). */
const markEnded = assignRace(({ context }) => {
  const endedAt = raceEnd(context);
  return { endedAt, scoreReference: context.scoreReference ?? scoreReferenceAt(context, endedAt) };
});

const applyJudge = assignRace((_, params: { judge: JudgeSummary | null }) => ({ judge: params.judge }));

// A merge asked for (MERGE), or the one --auto-merge best picked (autoMergeWinner).
const acceptMerge = assignRace(({ context }, params: { request: MergeRequestEvent | null }) => ({
  mergeRequest: params.request,
  mergeError: null,
  mergeAttempts: context.mergeAttempts + 1,
}));

const rejectMerge = assignRace(({ context, event }) => {
  assertEvent(event, 'MERGE');
  return update.rejectMerge(context, event);
});

const applyMerge = assignRace(({ context }, merge: MergeResult) => ({
  merge,
  mergeError: null,
  warnings: [
    ...context.warnings,
    ...(merge.warnings ?? []),
    ...[protectedFilesNote(merge)].filter((note): note is string => note !== null),
  ],
  agents: forgetRemoved(context.agents, merge.removed),
}));

const applyMergeError = assignRace(({ context }, params: { error: unknown }) =>
  update.applyMergeError(context, params.error),
);

const applyCleanUp = assignRace(({ context }, output: CleanUpOutput) => ({
  // After a merge, what the race's end removed is part of what the merge reports as removed.
  merge:
    context.merge === null
      ? null
      : { ...context.merge, removed: [...context.merge.removed, ...output.removed] },
  agents: forgetRemoved(context.agents, output.removed),
  warnings: [...context.warnings, ...(output.warnings ?? [])],
}));

const warnCleanUp = assignRace(({ context }, params: { error: unknown }) =>
  update.warnCleanUp(context, params.error),
);

/** Every named action, as `setup` takes them. */
export const raceActions = {
  applyRepo,
  applyProbe,
  failNoUsableAgent,
  failWith,
  failWorkspace,
  applyWorkspace,
  spawnAgents,
  startBaseline,
  applyBaseline,
  applyCrossTests,
  failBaseline,
  applyChecking,
  stopOverBudget,
  applyReopenProbe,
  applyReopened,
  applyShell,
  acceptRound,
  rejectRound,
  applyRound,
  applyRoundError,
  failRound,
  applySpawned,
  applySetup,
  applyOutput,
  applyResult,
  emitOutput,
  applyExit,
  emitExit,
  applySettled,
  stopAgent,
  holdStop,
  stopAllAgents,
  markFirstVerified,
  startVerify,
  applyVerification,
  releaseAutoMerge,
  stopVerify,
  stopUnverified,
  noteAutoMerge,
  markCancelRequested,
  cancelBaseline,
  cancelUnstarted,
  markEnded,
  applyJudge,
  acceptMerge,
  rejectMerge,
  applyMerge,
  applyMergeError,
  applyCleanUp,
  warnCleanUp,
};
