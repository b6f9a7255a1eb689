/**
 * One agent's life: spawning → running → stopping (when hydra stops it) → finalizing (its work is
 * committed and diffed) → settled as completed, failed, timed out or cancelled. The process and the
 * commit are named actors (`agentProcess`, `finalizeResult`), and the timers are named delays, so
 * tests swap in fakes and drive time with fake timers. Named actions narrow their event with
 * `assertEvent`; the commit step's result reaches its actions as `params`.
 */
import {
  assertEvent,
  assign,
  enqueueActions,
  fromCallback,
  fromPromise,
  sendParent,
  sendTo,
  setup,
} from 'xstate';
import type { AgentEvent, CompletedEvent, FailedEvent } from '../../core/events.js';
import { asClause } from '../../core/text.js';
import { ev } from '../../core/events.js';
import { toErrorInfo } from '../errors.js';
import { HydraError } from '../../core/hydra-error.js';
import { agentProcessLogic } from './agent-process.js';
import type {
  AgentInput,
  AgentLaunch,
  AgentProcessEvent,
  AgentReport,
  FinalizeInput,
  FinalizeOutput,
  SettledStatus,
  StopReason,
} from './agent-types.js';
import type { ProcessRegistry } from '../process/index.js';
import type { CheckRun } from '../check-types.js';
import type { DiffSummary } from '../git/index.js';
import { checkoutDirOf, runChecksOnCommit } from '../checks/index.js';
import type { CommitCheckPlace } from '../checks/index.js';
import type { Limiter } from '../process/index.js';
import { knownSecrets } from '../records/index.js';
import path from 'node:path';
import type { ErrorInfo } from '../../core/events.js';
import { commitSubject, knowRepository } from '../git/index.js';
import { finalizeWork } from './finalize.js';
import { treePolicy } from '../sandbox/index.js';
import { runSetup, setupFailure, worktreeShares, writeSetupRecord } from '../setup/index.js';
import type { SetupOutcome } from '../setup/index.js';
import { checksContainer, leaveRoom, roomDue, setupContainer, waitForRoom } from '../container/index.js';

/** The stage of the `progress` events that say how the worktree's setup goes (the pane, NDJSON, the record). */
const SETUP_STAGE = 'setup';

/** The stage of the `progress` events of a container agent waiting for room on its host (`max_agents`). */
export const QUEUED_STAGE = 'queued';

/** Waits for room on a container agent's host (container/slots.ts), saying why while it waits. */
const waitForRoomLogic = fromCallback<
  { type: 'NONE' },
  { launch: AgentLaunch },
  { type: 'QUEUED'; detail: string } | { type: 'ROOM' }
>(({ input, sendBack }) => {
  const controller = new AbortController();
  void waitForRoom(input.launch, controller.signal, (detail) => sendBack({ type: 'QUEUED', detail })).then(
    (room) => {
      // Stopped as the room came: it goes to the next in line.
      if (controller.signal.aborted) leaveRoom(input.launch);
      else if (room) sendBack({ type: 'ROOM' });
    },
  );
  return () => controller.abort();
});

const finalizeResultLogic = fromPromise<FinalizeOutput, FinalizeInput>(({ input }) => finalizeWork(input));

/** What the agent's checks need: its launch, where they run, and the race's check slots. */
export interface ChecksInput {
  launch: AgentLaunch;
  place: Omit<CommitCheckPlace, 'signal' | 'slots'>;
  /** Null only if checks were started without the race's slots (checksDue requires them). */
  slots: Limiter | null;
}

/** The agent's checks, in a clean checkout of its committed result (never its worktree). */
const runChecksLogic = fromPromise<CheckRun[], ChecksInput>(async ({ input, signal }) => {
  if (input.slots === null) throw new Error(`Checks of ${input.launch.agent} were due with no check slots.`);
  // A sandboxed agent's checks run sandboxed too, with their clean checkout writable.
  const sandbox = input.launch.sandbox ? treePolicy(input.launch.sandbox, input.place.dir) : null;
  const specs = input.launch.checks ?? [];
  return runChecksOnCommit(specs, {
    ...input.place,
    slots: input.slots,
    signal,
    sandbox,
    setup: input.launch.checksSetup ?? null,
    // A container agent's checks run in its image (on a local engine: container/exec.ts).
    container: checksContainer(input.launch),
  }).catch((error: unknown) => {
    // Its checkout's setup failed: every check is an error (a gate fails), saying why.
    if (!(error instanceof HydraError) || error.kind !== 'SetupFailed') throw error;
    return specs.map((spec): CheckRun => ({
      name: spec.name,
      run: spec.run,
      gate: spec.gate,
      status: 'error',
      exitCode: null,
      durationMs: 0,
      tests: null,
      output: `${error.message}\n${error.hint}`,
    }));
  });
});

/**
 * The worktree's setup commands (src/engine/setup), in the agent's sandbox when it has one; what
 * they made is recorded for the pool. A stop (cancel) ends them.
 */
const runSetupLogic = fromPromise<SetupOutcome, { launch: AgentLaunch; processes: ProcessRegistry }>(
  async ({ input, signal }) => {
    const { launch } = input;
    if (launch.setup === undefined || launch.setup === null) throw new Error('setup was due with no plan');
    const container = setupContainer(launch);
    const outcome = await runSetup(launch.setup, {
      cwd: launch.worktree,
      repoRoot: launch.repoRoot,
      runId: launch.runId,
      owner: `setup:${launch.agent}`,
      processes: input.processes,
      graceMs: launch.graceMs,
      signal,
      secrets: knownSecrets(launch.env),
      sandbox: launch.sandbox ?? null,
      shares: worktreeShares(launch.shared ?? [], launch.worktree),
      identity: { agent: launch.agent, port: launch.port ?? null },
      container,
    });
    // On a remote engine what it made is in the agent's volume, not in a worktree the pool keeps.
    if (outcome.status === 'ok' && container?.workspace === undefined)
      await writeSetupRecord(launch.setup, outcome.produced);
    return outcome;
  },
);

/**
 * Asks git where the repository's common directory is while the agent runs (settling will pin the
 * worktree to it), so the question is off the path from the agent's exit to its result.
 */
const knowRepositoryLogic = fromPromise<void, { repoRoot: string }>(async ({ input }) =>
  knowRepository(input.repoRoot),
);

/** The latest running cost the events report (a usage event's estimate), or null. */
const latestCost = (events: readonly AgentEvent[]): number | null => {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    if (event?.kind === 'usage') return event.usage.costUsd;
  }
  return null;
};

export interface AgentContext {
  launch: AgentLaunch;
  processes: ProcessRegistry;
  checkSlots: Limiter | null;
  checks: CheckRun[] | null;
  stoppedBy: StopReason | null;
  status: SettledStatus | null;
  terminal: CompletedEvent | FailedEvent | null;
  diff: DiffSummary | null;
  commit: string | null;
  warnings: string[];
  /** Set when settling failed the agent (its worktree was broken). */
  error: ErrorInfo | null;
  /** A container agent has had its room on its host (`max_agents`): it does not wait again. */
  roomTaken: boolean;
}

/** STOP: the user or a cancel; OVER_BUDGET: the race's total spend passed its budget. */
export type AgentMachineEvent =
  | AgentProcessEvent
  | { type: 'STOP' }
  | { type: 'OVER_BUDGET' }
  | { type: 'QUEUED'; detail: string }
  | { type: 'ROOM' };

/**
 * How long a process may outlive the result it printed before hydra stops it and keeps the result:
 * a CLI that is done exits within a second or two; Claude Code and Cursor are known to hang.
 */
const RESULT_GRACE_MS = 3_000;

/**
 * The longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days). A longer one fires after
 * 1 ms, which would stop an agent at once when the user asked for a very long limit.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

const timerDelay = (ms: number): number => Math.min(ms, MAX_TIMER_MS);

const statusOf = (terminal: CompletedEvent | FailedEvent, stoppedBy: StopReason | null): SettledStatus => {
  if (stoppedBy === 'cancel') return 'cancelled';
  // Stopped for its spend: not a result to take, whatever the stream said last.
  if (stoppedBy === 'budget' || stoppedBy === 'race_budget') return 'failed';
  // An agent that reported its result and then lingered until hydra stopped it did finish.
  if (terminal.kind === 'completed') return 'completed';
  // It reported its own failure: that, not the stop, is what it ended with.
  if (stoppedBy === 'after_result') return 'failed';
  if (stoppedBy === 'idle_timeout' || stoppedBy === 'timeout') return 'timed_out';
  return 'failed';
};

/** An error message as a clause inside a sentence: one line, without its full stop. */

const commitMessage = (launch: AgentLaunch, status: SettledStatus): string => {
  const subject = commitSubject(launch.prompt);
  // A named agent says which CLI it ran: `agent opus (claude)`.
  const cli = launch.adapter === launch.agent ? '' : ` (${launch.adapter})`;
  const round = launch.round === undefined || launch.round === 1 ? '' : `, round ${launch.round}`;
  return `hydra: ${launch.agent} result (${status}${round}): ${subject}\n\nRun ${launch.runId}, agent ${launch.agent}${cli}${round}, status ${status}.\n`;
};

export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentMachineEvent,
    input: {} as AgentInput,
  },
  actors: {
    agentProcess: agentProcessLogic,
    finalizeResult: finalizeResultLogic,
    runChecks: runChecksLogic,
    knowRepository: knowRepositoryLogic,
    runSetup: runSetupLogic,
    waitForRoom: waitForRoomLogic,
  },
  delays: {
    idleTimeout: ({ context }) => timerDelay(context.launch.idleTimeoutMs),
    overallTimeout: ({ context }) => timerDelay(context.launch.timeoutMs),
    killGrace: ({ context }) => timerDelay(context.launch.graceMs),
    resultGrace: ({ context }) => timerDelay(context.launch.resultGraceMs ?? RESULT_GRACE_MS),
  },
  guards: {
    roomDue: ({ context }) => !context.roomTaken && roomDue(context.launch),
    setupDue: ({ context }) => (context.launch.setup ?? null) !== null && context.launch.setup?.warm === null,
    setupWarm: ({ context }) => (context.launch.setup?.warm ?? null) !== null,
    setupOk: (_, params: SetupOutcome) => params.status === 'ok',
    notStopped: ({ context }) => context.stoppedBy === null,
    hasIdleTimeout: ({ context }) => context.launch.idleTimeoutMs > 0 && context.stoppedBy === null,
    hasOverallTimeout: ({ context }) => context.launch.timeoutMs > 0 && context.stoppedBy === null,
    overBudget: ({ context, event }) => {
      assertEvent(event, 'OUTPUT');
      const limit = context.launch.maxCostUsd;
      const cost = latestCost(event.events);
      return limit !== undefined && cost !== null && cost > limit && context.stoppedBy === null;
    },
    // Checks run on a completed, committed result only.
    checksDue: ({ context }, params: FinalizeOutput) =>
      (context.launch.checks ?? []).length > 0 &&
      context.checkSlots !== null &&
      context.status === 'completed' &&
      params.commit !== null &&
      params.failure === undefined,
  },
  actions: {
    reportQueued: sendParent(({ context, event }): AgentReport => {
      assertEvent(event, 'QUEUED');
      return {
        type: 'AGENT.OUTPUT',
        agent: context.launch.agent,
        at: Date.now(),
        events: [ev({ kind: 'progress', stage: QUEUED_STAGE, detail: event.detail })],
      };
    }),
    takeRoom: assign({ roomTaken: true }),
    // Its container is gone (or never started): the next agent waiting on its host may start.
    leaveRoom: ({ context }) => {
      if (context.roomTaken) leaveRoom(context.launch);
    },
    // The race passed its budget while it waited: it never starts.
    failQueuedOverBudget: assign(({ context }) => ({
      status: 'failed' as const,
      stoppedBy: 'race_budget' as const,
      error: {
        kind: 'BudgetExceeded' as const,
        message: `The race passed its budget of $${context.launch.raceMaxCostUsd ?? 0} while ${context.launch.displayName} waited for room on its container host, so it did not start.`,
        hint: 'Raise the budget (--max-cost-usd <usd>, or race.max_cost_usd in hydra.toml) or race fewer agents.',
      },
    })),
    reportSettingUp: enqueueActions(({ context, enqueue }) => {
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
    }),
    reportWarm: enqueueActions(({ context, enqueue }) => {
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
    }),
    reportSetUp: enqueueActions(({ context, enqueue }, params: SetupOutcome) => {
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
    }),
    // Its setup failed (or could not run): nothing else starts for it, and it fails with SetupFailed.
    failSetup: enqueueActions(
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
    ),
    markSetupStopped: assign({ status: 'cancelled' as const, stoppedBy: 'cancel' as const }),
    reportSpawned: sendParent(({ context, event }): AgentReport => {
      assertEvent(event, 'SPAWNED');
      return { type: 'AGENT.SPAWNED', agent: context.launch.agent, at: event.at, pid: event.pid };
    }),
    reportOutput: sendParent(({ context, event }): AgentReport => {
      assertEvent(event, 'OUTPUT');
      return { type: 'AGENT.OUTPUT', agent: context.launch.agent, at: event.at, events: event.events };
    }),
    reportResult: sendParent(({ context, event }): AgentReport => {
      assertEvent(event, 'RESULT');
      return { type: 'AGENT.RESULT', agent: context.launch.agent, at: event.at, terminal: event.terminal };
    }),
    recordExit: assign(({ event }) => {
      assertEvent(event, 'EXITED');
      return {
        terminal: event.terminal,
        stoppedBy: event.stoppedBy,
        status: statusOf(event.terminal, event.stoppedBy),
      };
    }),
    reportExit: sendParent(({ context, event }): AgentReport => {
      assertEvent(event, 'EXITED');
      return {
        type: 'AGENT.EXITED',
        agent: context.launch.agent,
        at: event.at,
        terminal: event.terminal,
        exitCode: event.exitCode,
        status: statusOf(event.terminal, event.stoppedBy),
      };
    }),
    // The process actor itself failed (its adapter or the spawn threw): the agent fails with that
    // error as if its process had exited with it, and its race goes on (the error is not the race's).
    failProcess: enqueueActions(({ context, enqueue }, params: { error: unknown }) => {
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
    }),
    markStopped: assign((_, params: { reason: StopReason }) => ({ stoppedBy: params.reason })),
    terminateProcess: sendTo('process', ({ context }) => ({
      type: 'TERMINATE' as const,
      reason: context.stoppedBy ?? 'cancel',
    })),
    killProcess: sendTo('process', { type: 'KILL' as const }),
    applyFinalized: assign(({ context }, params: FinalizeOutput) => ({
      diff: params.diff,
      commit: params.commit,
      warnings: [...context.warnings, ...(params.warnings ?? [])],
      // The agent broke its worktree: nothing was committed, and it fails.
      ...(params.failure === undefined ? {} : { status: 'failed' as const, error: params.failure }),
    })),
    warnUncommitted: assign(({ context }, params: { error: unknown }) => {
      const why = `Could not commit the agent's work: ${asClause(params.error instanceof Error ? params.error.message : String(params.error))}.`;
      const kept = `Its files are kept in ${context.launch.worktree} until \`hydra clean\` or \`hydra merge\`.`;
      return {
        warnings: [...context.warnings, `${why} ${kept}`],
        // Nothing was committed: not a completed result, whatever the agent said.
        ...(context.status === 'completed'
          ? { status: 'failed' as const, error: { kind: 'AgentFailed' as const, message: why, hint: kept } }
          : {}),
      };
    }),
    reportChecking: sendParent(({ context }): AgentReport => ({
      type: 'AGENT.CHECKING',
      agent: context.launch.agent,
      at: Date.now(),
      diff: context.diff,
    })),
    applyChecks: assign((_, params: { checks: CheckRun[] }) => ({ checks: params.checks })),
    warnChecks: assign(({ context }, params: { error: unknown }) => ({
      warnings: [
        ...context.warnings,
        `Its checks could not run: ${asClause(params.error instanceof Error ? params.error.message : String(params.error))}.`,
      ],
    })),
    reportSettled: sendParent(({ context }): AgentReport => ({
      type: 'AGENT.SETTLED',
      agent: context.launch.agent,
      at: Date.now(),
      status: context.status ?? 'failed',
      diff: context.diff,
      commit: context.commit,
      warnings: context.warnings,
      error: context.error,
      checks: context.checks,
    })),
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({
    launch: input.launch,
    processes: input.processes,
    checkSlots: input.checkSlots ?? null,
    checks: null,
    stoppedBy: null,
    status: null,
    terminal: null,
    diff: null,
    commit: null,
    warnings: [],
    error: null,
    roomTaken: false,
  }),
  initial: 'preparing',
  states: {
    // A container agent first waits for room on its host (`max_agents`), then its worktree's setup
    // (`[setup] run`): warm from the pool, nothing to run, or run now.
    preparing: {
      always: [
        { guard: 'roomDue', target: 'queued' },
        { guard: 'setupWarm', target: 'live', actions: 'reportWarm' },
        { guard: 'setupDue', target: 'settingUp' },
        { target: 'live' },
      ],
    },
    // No idle or overall timer runs while it waits; a stop (cancel) ends the wait, and nothing starts.
    queued: {
      invoke: {
        src: 'waitForRoom',
        input: ({ context }) => ({ launch: context.launch }),
        // The line itself failed (never expected): the agent starts rather than waiting forever.
        onError: { target: 'preparing', actions: 'takeRoom' },
      },
      on: {
        QUEUED: { actions: 'reportQueued' },
        ROOM: { target: 'preparing', actions: 'takeRoom' },
        STOP: { target: 'settled', actions: 'markSetupStopped' },
        OVER_BUDGET: { target: 'settled', actions: 'failQueuedOverBudget' },
      },
    },
    settingUp: {
      entry: 'reportSettingUp',
      invoke: {
        src: 'runSetup',
        input: ({ context }) => ({ launch: context.launch, processes: context.processes }),
        onDone: [
          {
            guard: { type: 'setupOk', params: ({ event }) => event.output },
            target: 'live',
            actions: { type: 'reportSetUp', params: ({ event }) => event.output },
          },
          {
            target: 'settled',
            actions: { type: 'failSetup', params: ({ event }) => ({ outcome: event.output }) },
          },
        ],
        onError: {
          target: 'settled',
          actions: { type: 'failSetup', params: ({ event }) => ({ outcome: null, error: event.error }) },
        },
      },
      on: { STOP: { target: 'settled', actions: 'markSetupStopped' } },
    },
    live: {
      invoke: {
        id: 'process',
        src: 'agentProcess',
        input: ({ context }) => ({ launch: context.launch, processes: context.processes }),
        onError: {
          target: 'finalizing',
          actions: { type: 'failProcess', params: ({ event }) => ({ error: event.error }) },
        },
      },
      initial: 'spawning',
      on: {
        OUTPUT: { actions: 'reportOutput' },
        EXITED: { target: 'finalizing', actions: ['recordExit', 'reportExit'] },
        OVER_BUDGET: {
          guard: 'notStopped',
          target: '.stopping',
          actions: { type: 'markStopped', params: { reason: 'race_budget' } },
        },
      },
      after: {
        overallTimeout: {
          guard: 'hasOverallTimeout',
          target: '.stopping',
          actions: { type: 'markStopped', params: { reason: 'timeout' } },
        },
      },
      states: {
        spawning: {
          on: {
            SPAWNED: { target: 'running', actions: 'reportSpawned' },
            STOP: { target: 'stopping', actions: { type: 'markStopped', params: { reason: 'cancel' } } },
          },
        },
        running: {
          // Its settling will pin the worktree to the repository: git is asked now, not after it exits.
          // A warm-up only: should it fail, settling asks git again.
          invoke: {
            src: 'knowRepository',
            input: ({ context }) => ({ repoRoot: context.launch.repoRoot }),
            onError: {},
          },
          initial: 'watching',
          on: {
            OUTPUT: [
              {
                guard: 'overBudget',
                target: 'stopping',
                actions: ['reportOutput', { type: 'markStopped', params: { reason: 'budget' } }],
              },
              { target: '.watching', reenter: true, actions: 'reportOutput' },
            ],
            RESULT: { target: '.lingering', actions: 'reportResult' },
            STOP: { target: 'stopping', actions: { type: 'markStopped', params: { reason: 'cancel' } } },
          },
          states: {
            watching: {
              after: {
                idleTimeout: {
                  guard: 'hasIdleTimeout',
                  target: '#agent.live.stopping',
                  actions: { type: 'markStopped', params: { reason: 'idle_timeout' } },
                },
              },
            },
            // The stream already carried the result: the agent is done. Give the process a short
            // grace to exit on its own (Claude Code and Cursor are known to hang here), then stop
            // it and keep the result. More output does not extend the grace, and a stop (`x`, a
            // cancel) during it keeps the result too.
            lingering: {
              on: {
                OUTPUT: [
                  {
                    guard: 'overBudget',
                    target: '#agent.live.stopping',
                    actions: ['reportOutput', { type: 'markStopped', params: { reason: 'budget' } }],
                  },
                  { actions: 'reportOutput' },
                ],
                RESULT: {},
                STOP: {
                  target: '#agent.live.stopping',
                  actions: { type: 'markStopped', params: { reason: 'after_result' } },
                },
              },
              after: {
                resultGrace: {
                  target: '#agent.live.stopping',
                  actions: { type: 'markStopped', params: { reason: 'after_result' } },
                },
              },
            },
          },
        },
        stopping: {
          entry: 'terminateProcess',
          after: { killGrace: { actions: 'killProcess' } },
        },
      },
    },
    finalizing: {
      entry: 'leaveRoom',
      invoke: {
        src: 'finalizeResult',
        input: ({ context }) => ({
          repoRoot: context.launch.repoRoot,
          worktree: context.launch.worktree,
          branch: context.launch.branch,
          baseRef: context.launch.baseRef,
          message: commitMessage(context.launch, context.status ?? 'failed'),
          agent: context.launch.agent,
          ...(context.launch.refsAtStart === undefined ? {} : { refsAtStart: context.launch.refsAtStart }),
        }),
        onDone: [
          {
            guard: { type: 'checksDue', params: ({ event }) => event.output },
            target: 'checking',
            actions: { type: 'applyFinalized', params: ({ event }) => event.output },
          },
          {
            target: 'settled',
            actions: { type: 'applyFinalized', params: ({ event }) => event.output },
          },
        ],
        onError: {
          target: 'settled',
          actions: { type: 'warnUncommitted', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    // The result is committed; the checks run in a clean checkout of it. A stop (cancel) ends them.
    checking: {
      entry: 'reportChecking',
      invoke: {
        src: 'runChecks',
        input: ({ context }) => ({
          launch: context.launch,
          place: {
            repoRoot: context.launch.repoRoot,
            commit: context.commit ?? context.launch.baseRef,
            dir: checkoutDirOf(path.dirname(context.launch.worktree), context.launch.agent),
            area: path.dirname(context.launch.worktree),
            base: context.launch.baseRef,
            secrets: knownSecrets(context.launch.env),
            copy: context.launch.copy ?? [],
            runId: context.launch.runId,
            owner: `check:${context.launch.agent}`,
            // Its checks are who it is, with its ports (HYDRA_AGENT, HYDRA_PORT: setup/env.ts).
            identity: { agent: context.launch.agent, port: context.launch.port ?? null },
            processes: context.processes,
            graceMs: context.launch.graceMs,
            ...(context.launch.shared === undefined ? {} : { shared: context.launch.shared }),
          },
          slots: context.checkSlots,
        }),
        onDone: {
          target: 'settled',
          actions: { type: 'applyChecks', params: ({ event }) => ({ checks: event.output }) },
        },
        onError: {
          target: 'settled',
          actions: { type: 'warnChecks', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { STOP: { target: 'settled' } },
    },
    settled: { type: 'final', entry: ['leaveRoom', 'reportSettled'] },
  },
});
