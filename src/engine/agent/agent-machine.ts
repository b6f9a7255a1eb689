/**
 * One agent's life: preparing (waiting for room on a container host, its worktree's setup) →
 * spawning → running → stopping (when hydra stops it) → finalizing (its work is committed and
 * diffed) → checking → settled as completed, failed, timed out or cancelled. Machines decide, actors
 * act: the process, the setup, the commit and the checks are named actors (agent-process.ts,
 * agent-actors.ts), the timers named delays, the actions (agent-actions.ts) only assign and send, and
 * the actors' inputs are built by agent-inputs.ts; tests swap in fakes with `machine.provide` and
 * drive time with fake timers.
 */
import { assertEvent, setup } from 'xstate';
import type { AgentEvent } from '../../core/events.js';
import { roomDue } from '../container/index.js';
import type { SetupOutcome } from '../setup/index.js';
import { agentProcessLogic } from './agent-process.js';
import {
  finalizeResultLogic,
  knowRepositoryLogic,
  runChecksLogic,
  runSetupLogic,
  waitForRoomLogic,
} from './agent-actors.js';
import { agentActions } from './agent-actions.js';
import { checksInput, finalizeInput } from './agent-inputs.js';
import type { AgentContext, AgentInput, AgentMachineEvent, FinalizeOutput } from './agent-types.js';

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

/** The latest running cost the events report (a usage event's estimate), or null. */
const latestCost = (events: readonly AgentEvent[]): number | null => {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    if (event?.kind === 'usage') return event.usage.costUsd;
  }
  return null;
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
    stoppedBeforeStart: ({ context }) => context.stopAtStart,
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
  actions: agentActions,
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
    stopAtStart: input.stopAtStart === true,
  }),
  initial: 'preparing',
  states: {
    // A container agent first waits for room on its host (`max_agents`), then its worktree's setup
    // (`[setup] run`): warm from the pool, nothing to run, or run now.
    preparing: {
      always: [
        // Stopped while the race made the worktrees: nothing starts.
        { guard: 'stoppedBeforeStart', target: 'settled', actions: 'markSetupStopped' },
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
        STOP_EARLY: { target: 'settled', actions: 'markStoppedEarly' },
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
      on: {
        STOP: { target: 'settled', actions: 'markSetupStopped' },
        STOP_EARLY: { target: 'settled', actions: 'markStoppedEarly' },
      },
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
        STOP_EARLY: {
          guard: 'notStopped',
          target: '.stopping',
          actions: { type: 'markStopped', params: { reason: 'first_verified' } },
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
        input: ({ context }) => finalizeInput(context),
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
        input: ({ context }) => checksInput(context),
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
