/**
 * The agent machine's named actions: they only assign and send (to the race machine, or to the
 * agent's process actor). Each narrows its event with `assertEvent` or takes what an invoked actor
 * returned as typed `params`.
 */
import { assertEvent, assign, enqueueActions, sendParent, sendTo } from 'xstate';
import type { AnyActorRef, Assigner, ParameterizedObject, PropertyAssigner, SendExpr } from 'xstate';
import type { CompletedEvent, ErrorInfo, FailedEvent } from '../../core/events.js';
import { ev } from '../../core/events.js';
import { asClause } from '../../core/text.js';
import { toErrorInfo } from '../errors.js';
import type { CheckRun } from '../check-types.js';
import { setupFailure } from '../setup/index.js';
import type { SetupOutcome } from '../setup/index.js';
import { leaveRoom as leaveHostRoom } from '../container/index.js';
import type {
  AgentContext,
  AgentMachineEvent,
  AgentProcessCommand,
  AgentReport,
  FinalizeOutput,
  SettledStatus,
  StopReason,
} from './agent-types.js';

/** The stage of the `progress` events that say how the worktree's setup goes (the pane, NDJSON, the record). */
const SETUP_STAGE = 'setup';

/** The stage of the `progress` events of a container agent waiting for room on its host (`max_agents`). */
export const QUEUED_STAGE = 'queued';

// XState's action creators typed for the agent machine: outside `setup`, nothing infers its context,
// events or an action's params.
type Params = ParameterizedObject['params'] | undefined;
type Context = AgentContext;
type Event = AgentMachineEvent;

const assignAgent = <P extends Params = undefined>(
  assignment: Assigner<Context, Event, P, Event, never> | PropertyAssigner<Context, Event, P, Event, never>,
) => assign<Context, Event, P, Event, never>(assignment);

const sendToRace = <P extends Params = undefined>(report: SendExpr<Context, Event, P, AgentReport, Event>) =>
  sendParent<Context, Event, P, AgentReport, Event>(report);

const enqueueAgent = <P extends Params = undefined>(
  collect: Parameters<typeof enqueueActions<Context, Event, P, Event, never, never, never, never, never>>[0],
) => enqueueActions<Context, Event, P, Event, never, never, never, never, never>(collect);

const sendToProcess = (
  command: AgentProcessCommand | SendExpr<Context, Event, undefined, AgentProcessCommand, Event>,
) => sendTo<Context, Event, undefined, AnyActorRef, Event>('process', command);

const statusOf = (terminal: CompletedEvent | FailedEvent, stoppedBy: StopReason | null): SettledStatus => {
  if (stoppedBy === 'cancel') return 'cancelled';
  // Stopped because another result was verified first: it did not finish, nor fail on its own.
  if (stoppedBy === 'first_verified') return terminal.kind === 'completed' ? 'completed' : 'cancelled';
  // Stopped for its spend: not a result to take, whatever the stream said last.
  if (stoppedBy === 'budget' || stoppedBy === 'race_budget') return 'failed';
  // An agent that reported its result and then lingered until hydra stopped it did finish.
  if (terminal.kind === 'completed') return 'completed';
  // It reported its own failure: that, not the stop, is what it ended with.
  if (stoppedBy === 'after_result') return 'failed';
  if (stoppedBy === 'idle_timeout' || stoppedBy === 'timeout') return 'timed_out';
  return 'failed';
};

const reportQueued = sendToRace(({ context, event }): AgentReport => {
  assertEvent(event, 'QUEUED');
  return {
    type: 'AGENT.OUTPUT',
    agent: context.launch.agent,
    at: Date.now(),
    events: [ev({ kind: 'progress', stage: QUEUED_STAGE, detail: event.detail })],
  };
});

const takeRoom = assignAgent({ roomTaken: true });

// Its container is gone (or never started): the next agent waiting on its host may start.
const leaveRoom = ({ context }: { context: AgentContext }): void => {
  if (context.roomTaken) leaveHostRoom(context.launch);
};

// The race passed its budget while it waited: it never starts.
const failQueuedOverBudget = assignAgent(({ context }) => ({
  status: 'failed' as const,
  stoppedBy: 'race_budget' as const,
  error: {
    kind: 'BudgetExceeded' as const,
    message: `The race passed its budget of $${context.launch.raceMaxCostUsd ?? 0} while ${context.launch.displayName} waited for room on its container host, so it did not start.`,
    hint: 'Raise the budget (--max-cost-usd <usd>, or race.max_cost_usd in hydra.toml) or race fewer agents.',
  },
}));

const reportSettingUp = enqueueAgent(({ context, enqueue }) => {
  const at = Date.now();
  const plan = context.launch.setup;
  if (plan === undefined || plan === null) return;
  enqueue.sendParent({
    type: 'AGENT.SETUP',
    agent: context.launch.agent,
    at,
    setup: { source: plan.source, warm: false, startedAt: at, durationMs: null, exitCode: null },
  } satisfies AgentReport);
  enqueue.sendParent({
    type: 'AGENT.OUTPUT',
    agent: context.launch.agent,
    at,
    events: [
      ev({ kind: 'progress', stage: SETUP_STAGE, detail: `setting up: ${plan.commands.join(' && ')}` }),
    ],
  } satisfies AgentReport);
});

const reportWarm = enqueueAgent(({ context, enqueue }) => {
  const at = Date.now();
  const plan = context.launch.setup;
  if (plan === undefined || plan === null) return;
  enqueue.sendParent({
    type: 'AGENT.SETUP',
    agent: context.launch.agent,
    at,
    setup: { source: plan.source, warm: true, startedAt: at, durationMs: 0, exitCode: null },
  } satisfies AgentReport);
  const kept = plan.warm?.kept ?? [];
  enqueue.sendParent({
    type: 'AGENT.OUTPUT',
    agent: context.launch.agent,
    at,
    events: [
      ev({
        kind: 'progress',
        stage: SETUP_STAGE,
        detail: `setup: warm${kept.length === 0 ? '' : ` (kept ${kept.join(', ')})`}`,
      }),
    ],
  } satisfies AgentReport);
});

const reportSetUp = enqueueAgent(({ context, enqueue }, params: SetupOutcome) => {
  const at = Date.now();
  enqueue.sendParent({
    type: 'AGENT.SETUP',
    agent: context.launch.agent,
    at,
    setup: {
      source: params.source,
      warm: false,
      startedAt: at - params.durationMs,
      durationMs: params.durationMs,
      exitCode: params.exitCode,
    },
  } satisfies AgentReport);
  enqueue.sendParent({
    type: 'AGENT.OUTPUT',
    agent: context.launch.agent,
    at,
    events: [
      ev({
        kind: 'progress',
        stage: SETUP_STAGE,
        detail: `set up in ${Math.round(params.durationMs / 100) / 10}s`,
      }),
    ],
  } satisfies AgentReport);
});

// Its setup failed (or could not run): nothing else starts for it, and it fails with SetupFailed.
const failSetup = enqueueAgent(
  ({ context, enqueue }, params: { outcome: SetupOutcome | null; error?: unknown }) => {
    const at = Date.now();
    const error: ErrorInfo =
      params.outcome === null
        ? {
            kind: 'SetupFailed',
            message: `The setup could not run: ${asClause(params.error instanceof Error ? params.error.message : String(params.error))}.`,
            hint: 'Run `hydra doctor`; if it says the setup is ready, please report this bug.',
          }
        : setupFailure(params.outcome);
    if (params.outcome !== null)
      enqueue.sendParent({
        type: 'AGENT.SETUP',
        agent: context.launch.agent,
        at,
        setup: {
          source: params.outcome.source,
          warm: false,
          startedAt: at - params.outcome.durationMs,
          durationMs: params.outcome.durationMs,
          exitCode: params.outcome.exitCode,
        },
      } satisfies AgentReport);
    const cancelled = params.outcome?.status === 'cancelled';
    enqueue.assign({
      status: cancelled ? ('cancelled' as const) : ('failed' as const),
      error: cancelled ? null : error,
    });
  },
);

const markSetupStopped = assignAgent({ status: 'cancelled' as const, stoppedBy: 'cancel' as const });

// `--stop first-verified` before it started (queued for room, or in its setup): it never runs.
const markStoppedEarly = assignAgent(({ context }) => ({
  status: 'cancelled' as const,
  stoppedBy: 'first_verified' as const,
  error: {
    kind: 'Interrupted' as const,
    message: `${context.launch.displayName} was stopped before it started: another agent's result passed every check first (--stop first-verified).`,
    hint: 'Nothing to do: rerun it with hydra rerun if you want its attempt too.',
  },
}));

const reportSpawned = sendToRace(({ context, event }): AgentReport => {
  assertEvent(event, 'SPAWNED');
  return { type: 'AGENT.SPAWNED', agent: context.launch.agent, at: event.at, pid: event.pid };
});

const reportOutput = sendToRace(({ context, event }): AgentReport => {
  assertEvent(event, 'OUTPUT');
  return { type: 'AGENT.OUTPUT', agent: context.launch.agent, at: event.at, events: event.events };
});

const reportResult = sendToRace(({ context, event }): AgentReport => {
  assertEvent(event, 'RESULT');
  return { type: 'AGENT.RESULT', agent: context.launch.agent, at: event.at, terminal: event.terminal };
});

const recordExit = assignAgent(({ event }) => {
  assertEvent(event, 'EXITED');
  return {
    terminal: event.terminal,
    stoppedBy: event.stoppedBy,
    status: statusOf(event.terminal, event.stoppedBy),
  };
});

const reportExit = sendToRace(({ context, event }): AgentReport => {
  assertEvent(event, 'EXITED');
  return {
    type: 'AGENT.EXITED',
    agent: context.launch.agent,
    at: event.at,
    terminal: event.terminal,
    exitCode: event.exitCode,
    status: statusOf(event.terminal, event.stoppedBy),
  };
});

// The process actor itself failed (its adapter or the spawn threw): the agent fails with that
// error as if its process had exited with it, and its race goes on (the error is not the race's).
const failProcess = enqueueAgent(({ context, enqueue }, params: { error: unknown }) => {
  const error = toErrorInfo(
    params.error,
    'Run `hydra doctor`; if it says the agent is ready, please report this bug.',
  );
  const terminal: FailedEvent = ev({
    kind: 'failed',
    error: {
      ...error,
      message: `${context.launch.displayName} could not be run: ${asClause(error.message)}.`,
    },
  });
  enqueue.assign({ terminal, status: 'failed' as const });
  enqueue.sendParent({
    type: 'AGENT.EXITED',
    agent: context.launch.agent,
    at: Date.now(),
    terminal,
    exitCode: null,
    status: 'failed',
  } satisfies AgentReport);
});

const markStopped = assignAgent((_, params: { reason: StopReason }) => ({ stoppedBy: params.reason }));

const terminateProcess = sendToProcess(({ context }) => ({
  type: 'TERMINATE' as const,
  reason: context.stoppedBy ?? 'cancel',
}));

const killProcess = sendToProcess({ type: 'KILL' as const });

const applyFinalized = assignAgent(({ context }, params: FinalizeOutput) => ({
  diff: params.diff,
  commit: params.commit,
  warnings: [...context.warnings, ...(params.warnings ?? [])],
  // The agent broke its worktree: nothing was committed, and it fails.
  ...(params.failure === undefined ? {} : { status: 'failed' as const, error: params.failure }),
}));

const warnUncommitted = assignAgent(({ context }, params: { error: unknown }) => {
  const why = `Could not commit the agent's work: ${asClause(params.error instanceof Error ? params.error.message : String(params.error))}.`;
  const kept = `Its files are kept in ${context.launch.worktree} until \`hydra clean\` or \`hydra merge\`.`;
  return {
    warnings: [...context.warnings, `${why} ${kept}`],
    // Nothing was committed: not a completed result, whatever the agent said.
    ...(context.status === 'completed'
      ? { status: 'failed' as const, error: { kind: 'AgentFailed' as const, message: why, hint: kept } }
      : {}),
  };
});

const reportChecking = sendToRace(({ context }): AgentReport => ({
  type: 'AGENT.CHECKING',
  agent: context.launch.agent,
  at: Date.now(),
  diff: context.diff,
}));

const applyChecks = assignAgent((_, params: { checks: CheckRun[] }) => ({ checks: params.checks }));

const warnChecks = assignAgent(({ context }, params: { error: unknown }) => ({
  warnings: [
    ...context.warnings,
    `Its checks could not run: ${asClause(params.error instanceof Error ? params.error.message : String(params.error))}.`,
  ],
}));

const reportSettled = sendToRace(({ context }): AgentReport => ({
  type: 'AGENT.SETTLED',
  agent: context.launch.agent,
  at: Date.now(),
  status: context.status ?? 'failed',
  diff: context.diff,
  commit: context.commit,
  warnings: context.warnings,
  error: context.error,
  checks: context.checks,
}));

/** Every named action, as `setup` takes them. */
export const agentActions = {
  reportQueued,
  takeRoom,
  leaveRoom,
  failQueuedOverBudget,
  reportSettingUp,
  reportWarm,
  reportSetUp,
  failSetup,
  markSetupStopped,
  markStoppedEarly,
  reportSpawned,
  reportOutput,
  reportResult,
  recordExit,
  reportExit,
  failProcess,
  markStopped,
  terminateProcess,
  killProcess,
  applyFinalized,
  warnUncommitted,
  reportChecking,
  applyChecks,
  warnChecks,
  reportSettled,
};
