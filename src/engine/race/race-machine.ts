/**
 * Over 500 lines on purpose: it is the one XState definition of the race (states, guards, actions
 * in one `setup`), and split across files its states and their named guards would no longer read
 * together; its input builders and decisions are already out (race-inputs.ts, race-decisions.ts).
 *
 * The race, as a state machine a user would recognise:
 *
 *   checkingRepo → probing → creatingWorktrees → racing → reviewing → merging → done
 *                                                                    ↘ finishing → done
 *   CANCEL from any state → cancelled (agents stopped first, worktrees cleaned); errors → failed.
 *
 * More rounds (race-rounds.ts): reviewing → preparingRound → racing → reviewing, for a follow-up or
 * a rerun of one settled agent; a recorded run reopens as probing → reopening → reviewing.
 * ARCHITECTURE.md draws it (and the agent machine), generated from this definition by
 * `npm run diagram`.
 *
 * Machines decide, actors act: every side effect is a named actor (`checkRepo`, `probeAgents`,
 * `createWorkspace`, `agentRun`, `mergeAgent`, `cleanUp`, …), so tests replace them with
 * `machine.provide({ actors })`; every decision is a named guard (race-decisions.ts); actions only
 * assign, emit, raise and send. No input builder (race-inputs.ts) or assign throws: XState would
 * crash the actor instead of reaching onError. The context holds the snapshot a UI renders; each
 * batch of agent events is also emitted as `agentEvents`.
 *
 * Types do the checking: a named action narrows its event with `assertEvent`, and what an invoked
 * actor returned (or threw) reaches its action as typed `params`, never through a cast.
 */
import { assertEvent, assign, emit, enqueueActions, setup } from 'xstate';
import { agentMachine } from '../agent/index.js';
import { toErrorInfo } from '../errors.js';
import type { RepoCheck } from '../git/index.js';
import type { CrossTestOutput } from '../checks/index.js';
import type { AgentProbeReport } from '../probe-types.js';
import type { JudgeSummary, MergeResult } from '../records/index.js';
import {
  autoMergeDecision,
  childId,
  completedAndSettled,
  crossTestDue,
  mergeOf,
  raceSpendOver,
  everyoneSettled,
  forgetRemoved,
  judgeDue,
  isLive,
  launchChildId,
  roundProblem,
} from './race-decisions.js';
import * as update from './race-updates.js';
import type { AutoMergeDecision } from './race-decisions.js';
import { initialContext } from './race-context.js';
import * as inputs from './race-inputs.js';
import { prepareRoundLogic, reopenWorkspaceLogic } from './race-rounds.js';
import type { RoundStart } from './race-rounds.js';
import {
  baselineLogic,
  checkRepoLogic,
  cleanUpLogic,
  crossTestLogic,
  judgeLogic,
  createWorkspaceLogic,
  mergeAgentLogic,
  probeAgentsLogic,
} from './race-actors.js';
import type {
  CleanUpOutput,
  MergeRequestEvent,
  RaceContext,
  RaceEmitted,
  RaceEvent,
  RaceInput,
  ReopenedWorkspace,
  Workspace,
} from './race-types.js';
import * as snapshot from './snapshot.js';

export type { RaceEmitted, RaceEvent } from './race-types.js';

export const raceMachine = setup({
  types: {
    context: {} as RaceContext,
    events: {} as RaceEvent,
    input: {} as RaceInput,
    emitted: {} as RaceEmitted,
  },
  actors: {
    checkRepo: checkRepoLogic,
    probeAgents: probeAgentsLogic,
    createWorkspace: createWorkspaceLogic,
    reopenWorkspace: reopenWorkspaceLogic,
    prepareRound: prepareRoundLogic,
    agentRun: agentMachine,
    baselineRun: baselineLogic,
    crossTestRun: crossTestLogic,
    mergeAgent: mergeAgentLogic,
    cleanUp: cleanUpLogic,
    judgeRun: judgeLogic,
  },
  guards: {
    hasUsableAgent: (_, params: { reports: AgentProbeReport[] }) =>
      params.reports.some((report) => report.status === 'ready'),
    allSettled: ({ context }) => everyoneSettled(context),
    // Every result is in and the race has checks: each agent's new tests run on the others' (cross-test).
    crossTestDue: ({ context }) => everyoneSettled(context) && crossTestDue(context),
    // Everyone settled and the best results tie (or are within judge_margin): ask the judge first.
    allSettledJudgeDue: ({ context }) => everyoneSettled(context) && judgeDue(context),
    // After cross-testing (its evidence is in the scores): the best results still tie.
    judgeDue: ({ context }) => judgeDue(context),
    raceOverBudget: ({ context, event }) => {
      assertEvent(event, 'AGENT.OUTPUT');
      return raceSpendOver(context, event.agent, event.events);
    },
    allSettledAfterCancel: ({ context }) =>
      context.cancelRequested && context.launches.every((launch) => context.settled.includes(launch.agent)),
    mergeable: ({ context, event }) => {
      assertEvent(event, 'MERGE');
      return completedAndSettled(context, event.agent);
    },
    // --auto-merge best, once the race reviews: a winner to merge, or a reason to merge nothing.
    autoMergeWinner: ({ context }) => mergeOf(autoMergeDecision(context)) !== null,
    autoMergeDeclined: ({ context }) => {
      const decision = autoMergeDecision(context);
      return decision !== null && 'note' in decision;
    },
    cancelRequested: ({ context }) => context.cancelRequested,
    hasWorkspace: ({ context }) => context.launches.length > 0,
    reopening: ({ context }) => context.options.reopen !== undefined,
    reopenedForRound: ({ context }) => context.options.reopen?.round !== undefined,
    roundFromOptions: ({ context }) =>
      context.options.reopen?.round !== undefined && context.roundAttempts === 0,
    // A round is for an agent that settled with a branch to work on, and not while a merge is done.
    roundPossible: ({ context, event }) => {
      assertEvent(event, 'ROUND');
      return roundProblem(context, event.request) === null;
    },
  },
  actions: {
    applyRepo: assign(({ context }, params: { repo: RepoCheck }) => update.applyRepo(context, params.repo)),
    applyProbe: assign(({ context }, params: { reports: AgentProbeReport[] }) =>
      snapshot.applyProbeReports(context, params.reports),
    ),
    failNoUsableAgent: assign(({ context }, params: { reports: AgentProbeReport[] }) =>
      update.failNoUsableAgent(context, params.reports),
    ),
    failWith: assign((_, params: { error: unknown }) => ({
      error: toErrorInfo(params.error),
      endedAt: Date.now(),
    })),
    // The worktrees could not be made: the agents that were to race failed before starting, for
    // that reason (not for anything of theirs).
    failWorkspace: assign(({ context }, params: { error: unknown }) =>
      update.failWorkspace(context, params.error),
    ),
    applyWorkspace: assign(({ context }, workspace: Workspace) => update.applyWorkspace(context, workspace)),
    spawnAgents: enqueueActions(({ context, enqueue }) => {
      for (const launch of context.launches) {
        if (context.settled.includes(launch.agent)) continue;
        enqueue.spawnChild('agentRun', {
          id: childId(launch.agent, launch.round),
          input: { launch, processes: context.processes, checkSlots: context.checkSlots },
        });
      }
    }),
    // Once per race: a later round (a follow-up, a rerun) compares with the baseline already run. A
    // reopened run's recorded baseline has no runs to compare with: a round with checks runs it again.
    startBaseline: assign(({ context }) => ({
      baseline:
        context.baselineRuns !== null || (context.options.checks ?? []).length === 0
          ? context.baseline
          : { status: 'running' as const, checks: [], error: null },
    })),
    applyBaseline: assign(({ context, event }) => {
      assertEvent(event, 'BASELINE.DONE');
      return snapshot.applyBaseline(context, event);
    }),
    applyCrossTests: assign(({ context }, output: CrossTestOutput) =>
      update.applyCrossTests(context, output),
    ),
    failBaseline: assign(({ context }, params: { error: unknown }) =>
      snapshot.applyBaseline(context, { checks: [], error: toErrorInfo(params.error).message }),
    ),
    applyChecking: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.CHECKING');
      return snapshot.applyChecking(context, event);
    }),
    // The race's spend passed its budget: every agent still running is stopped, once.
    stopOverBudget: enqueueActions(({ context, enqueue, self }) => {
      enqueue.assign({ overBudget: true });
      for (const launch of context.launches) {
        if (
          isLive(context, launch.agent) &&
          self.getSnapshot().children[childId(launch.agent, launch.round)] !== undefined
        )
          enqueue.sendTo(childId(launch.agent, launch.round), { type: 'OVER_BUDGET' });
      }
    }),
    applyReopenProbe: assign(({ context }, params: { reports: AgentProbeReport[] }) =>
      update.applyReopenProbe(context, params.reports),
    ),
    applyReopened: assign(({ context }, workspace: ReopenedWorkspace) =>
      update.applyReopened(context, workspace),
    ),
    applyShell: assign(({ context, event }) => {
      assertEvent(event, 'SHELL_DONE');
      return update.applyShell(context, event);
    }),
    acceptRound: assign(({ event }) => {
      assertEvent(event, 'ROUND');
      return { pendingRound: event.request };
    }),
    rejectRound: assign(({ context, event }) => {
      assertEvent(event, 'ROUND');
      return {
        roundAttempts: context.roundAttempts + 1,
        roundError: roundProblem(context, event.request),
      };
    }),
    applyRound: enqueueActions(({ context, enqueue }, start: RoundStart) => {
      enqueue.assign(update.applyRound(context, start));
      enqueue.emit({
        type: 'agentEvents',
        records: [{ agent: start.agent.agent, at: Date.now(), event: start.divider }],
      });
    }),
    applyRoundError: assign(({ context }, params: { error: unknown }) =>
      update.applyRoundError(context, params.error),
    ),
    failRound: assign(({ context }, params: { error: unknown }) => update.failRound(context, params.error)),
    applySpawned: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.SPAWNED');
      return snapshot.applySpawned(context, event);
    }),
    applySetup: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.SETUP');
      return snapshot.applySetup(context, event);
    }),
    applyOutput: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.OUTPUT');
      return snapshot.applyOutput(context, event);
    }),
    applyResult: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.RESULT');
      return snapshot.applyResult(context, event);
    }),
    emitOutput: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'AGENT.OUTPUT');
      if (event.events.length === 0) return;
      enqueue.emit({
        type: 'agentEvents',
        records: event.events.map((item) => ({ agent: event.agent, at: event.at, event: item })),
      });
    }),
    applyExit: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.EXITED');
      return snapshot.applyExit(context, event);
    }),
    emitExit: emit(({ event }) => {
      assertEvent(event, 'AGENT.EXITED');
      return {
        type: 'agentEvents' as const,
        records: [{ agent: event.agent, at: event.at, event: event.terminal }],
      };
    }),
    applySettled: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.SETTLED');
      return snapshot.applySettled(context, event);
    }),
    stopAgent: enqueueActions(({ context, event, enqueue, self }) => {
      assertEvent(event, 'STOP_AGENT');
      const id = launchChildId(context, event.agent);
      if (isLive(context, event.agent) && self.getSnapshot().children[id] !== undefined) {
        enqueue.sendTo(id, { type: 'STOP' });
      }
    }),
    stopAllAgents: enqueueActions(({ context, enqueue, self }) => {
      for (const launch of context.launches) {
        const id = childId(launch.agent, launch.round);
        if (isLive(context, launch.agent) && self.getSnapshot().children[id] !== undefined) {
          enqueue.sendTo(id, { type: 'STOP' });
        }
      }
    }),
    // --auto-merge best decided to merge nothing (autoMergeDeclined): say why, once.
    noteAutoMerge: assign((_, params: { decision: AutoMergeDecision }) => ({
      mergeNote:
        params.decision !== null && 'note' in params.decision
          ? params.decision.note
          : '--auto-merge best merged nothing.',
    })),
    markCancelRequested: assign({ cancelRequested: true }),
    cancelBaseline: assign(({ context }) => update.cancelBaseline(context)),
    cancelUnstarted: assign(({ context }) => update.cancelUnstarted(context)),
    markEnded: assign(({ context }) => ({ endedAt: context.endedAt ?? Date.now() })),
    applyJudge: assign((_, params: { judge: JudgeSummary | null }) => ({ judge: params.judge })),
    // A merge asked for (MERGE), or the one --auto-merge best picked (autoMergeWinner).
    acceptMerge: assign(({ context }, params: { request: MergeRequestEvent | null }) => ({
      mergeRequest: params.request,
      mergeError: null,
      mergeAttempts: context.mergeAttempts + 1,
    })),
    rejectMerge: assign(({ context, event }) => {
      assertEvent(event, 'MERGE');
      return update.rejectMerge(context, event);
    }),
    applyMerge: assign(({ context }, merge: MergeResult) => ({
      merge,
      mergeError: null,
      warnings: [...context.warnings, ...(merge.warnings ?? [])],
      agents: forgetRemoved(context.agents, merge.removed),
    })),
    applyMergeError: assign(({ context }, params: { error: unknown }) =>
      update.applyMergeError(context, params.error),
    ),
    applyCleanUp: assign(({ context }, output: CleanUpOutput) => ({
      // After a merge, what the race's end removed is part of what the merge reports as removed.
      merge:
        context.merge === null
          ? null
          : { ...context.merge, removed: [...context.merge.removed, ...output.removed] },
      agents: forgetRemoved(context.agents, output.removed),
      warnings: [...context.warnings, ...(output.warnings ?? [])],
    })),
    warnCleanUp: assign(({ context }, params: { error: unknown }) =>
      update.warnCleanUp(context, params.error),
    ),
  },
}).createMachine({
  id: 'race',
  context: ({ input }) => initialContext(input),
  initial: 'checkingRepo',
  // A cancel ends the race at once, except where a state says otherwise: racing stops its agents
  // first, a merge is never interrupted, and finishing and cancelled are ending already.
  on: { CANCEL: { target: '.cancelled', actions: 'markCancelRequested' } },
  states: {
    checkingRepo: {
      invoke: {
        src: 'checkRepo',
        input: ({ context }) => inputs.checkRepoInput(context),
        onDone: {
          target: 'probing',
          actions: {
            type: 'applyRepo',
            params: ({ event }): { repo: RepoCheck } => ({ repo: event.output }),
          },
        },
        onError: { target: 'failed', actions: { type: 'failWith', params: ({ event }) => event } },
      },
    },
    probing: {
      invoke: {
        src: 'probeAgents',
        input: ({ context }) => inputs.probeInput(context),
        onDone: [
          {
            guard: 'reopening',
            target: 'reopening',
            actions: { type: 'applyReopenProbe', params: ({ event }) => ({ reports: event.output }) },
          },
          {
            guard: { type: 'hasUsableAgent', params: ({ event }) => ({ reports: event.output }) },
            target: 'creatingWorktrees',
            actions: { type: 'applyProbe', params: ({ event }) => ({ reports: event.output }) },
          },
          {
            target: 'failed',
            actions: { type: 'failNoUsableAgent', params: ({ event }) => ({ reports: event.output }) },
          },
        ],
        onError: { target: 'failed', actions: { type: 'failWith', params: ({ event }) => event } },
      },
    },
    creatingWorktrees: {
      invoke: {
        src: 'createWorkspace',
        // The workspace tells an agent's events before it starts (a dev container's build).
        input: ({ context, self }) =>
          inputs.workspaceInput(context, (agent, events) =>
            self.send({ type: 'AGENT.OUTPUT', agent, at: Date.now(), events }),
          ),
        onDone: {
          target: 'racing',
          actions: { type: 'applyWorkspace', params: ({ event }): Workspace => event.output },
        },
        onError: { target: 'failed', actions: { type: 'failWorkspace', params: ({ event }) => event } },
      },
      on: { 'AGENT.OUTPUT': { actions: ['applyOutput', 'emitOutput'] } },
    },
    // A recorded run, reopened: its agents are settled already.
    reopening: {
      invoke: {
        src: 'reopenWorkspace',
        input: ({ context }) => inputs.reopenInput(context),
        onDone: [
          {
            guard: 'reopenedForRound',
            target: 'preparingRound',
            actions: { type: 'applyReopened', params: ({ event }) => event.output },
          },
          { target: 'reviewing', actions: { type: 'applyReopened', params: ({ event }) => event.output } },
        ],
        onError: { target: 'failed', actions: { type: 'failWith', params: ({ event }) => event } },
      },
    },
    // Another round for one agent: its worktree made (again) and its command built, then it races.
    preparingRound: {
      invoke: {
        src: 'prepareRound',
        input: ({ context }) => inputs.roundInput(context),
        onDone: {
          target: 'racing',
          actions: { type: 'applyRound', params: ({ event }): RoundStart => event.output },
        },
        onError: [
          // `hydra continue` asked for this round and nothing else: its failure is the run's.
          {
            guard: 'roundFromOptions',
            target: 'reviewing',
            actions: { type: 'failRound', params: ({ event }) => event },
          },
          { target: 'reviewing', actions: { type: 'applyRoundError', params: ({ event }) => event } },
        ],
      },
    },
    racing: {
      entry: ['spawnAgents', 'startBaseline'],
      // The baseline's checks, on the base commit in a worktree of its own, beside the agents.
      invoke: {
        id: 'baseline',
        src: 'baselineRun',
        input: ({ context }) => inputs.baselineInput(context),
        // The baseline's actor itself failed: the baseline failed with its message, the race goes on.
        onError: { actions: { type: 'failBaseline', params: ({ event }) => event } },
      },
      always: [
        { guard: 'allSettledAfterCancel', target: 'cancelled', actions: 'markEnded' },
        { guard: 'crossTestDue', target: 'crossTesting', actions: 'markEnded' },
        { guard: 'allSettledJudgeDue', target: 'judging', actions: 'markEnded' },
        { guard: 'allSettled', target: 'reviewing', actions: 'markEnded' },
      ],
      on: {
        'AGENT.SETUP': { actions: 'applySetup' },
        'AGENT.SPAWNED': { actions: 'applySpawned' },
        'AGENT.OUTPUT': [
          { guard: 'raceOverBudget', actions: ['applyOutput', 'emitOutput', 'stopOverBudget'] },
          { actions: ['applyOutput', 'emitOutput'] },
        ],
        'AGENT.RESULT': { actions: 'applyResult' },
        'AGENT.CHECKING': { actions: 'applyChecking' },
        'BASELINE.DONE': { actions: 'applyBaseline' },
        'AGENT.EXITED': { actions: ['applyExit', 'emitExit'] },
        'AGENT.SETTLED': { actions: 'applySettled' },
        STOP_AGENT: { actions: 'stopAgent' },
        // The agents are stopped first; once they settled, allSettledAfterCancel ends the race.
        CANCEL: { actions: ['markCancelRequested', 'stopAllAgents'] },
      },
    },
    // Each agent's new tests on the base and on every result (checks/cross-test), before the score.
    crossTesting: {
      invoke: {
        src: 'crossTestRun',
        input: ({ context }) => inputs.crossTestInput(context),
        onDone: {
          target: 'weighing',
          actions: { type: 'applyCrossTests', params: ({ event }): CrossTestOutput => event.output },
        },
        onError: {
          target: 'weighing',
          actions: {
            type: 'applyCrossTests',
            params: ({ event }): CrossTestOutput => ({
              results: {},
              error: event.error instanceof Error ? event.error.message : String(event.error),
            }),
          },
        },
      },
    },
    // After cross-testing, with its evidence in the scores: the judge when the best still tie.
    weighing: {
      always: [{ guard: 'judgeDue', target: 'judging' }, { target: 'reviewing' }],
    },
    // --judge: the best results tie (or are within judge_margin); its ranking only breaks the tie.
    judging: {
      invoke: {
        src: 'judgeRun',
        input: ({ context }) => inputs.judgeInput(context),
        onDone: {
          target: 'reviewing',
          actions: { type: 'applyJudge', params: ({ event }) => ({ judge: event.output }) },
        },
        onError: { target: 'reviewing' },
      },
    },
    reviewing: {
      always: [
        {
          guard: 'autoMergeWinner',
          target: 'merging',
          actions: {
            type: 'acceptMerge',
            params: ({ context }) => ({ request: mergeOf(autoMergeDecision(context)) }),
          },
        },
        {
          guard: 'autoMergeDeclined',
          actions: {
            type: 'noteAutoMerge',
            params: ({ context }) => ({ decision: autoMergeDecision(context) }),
          },
        },
      ],
      on: {
        MERGE: [
          {
            guard: 'mergeable',
            target: 'merging',
            actions: {
              type: 'acceptMerge',
              params: ({ event }) => ({ request: { agent: event.agent, options: event.options } }),
            },
          },
          { actions: 'rejectMerge' },
        ],
        FINISH: { target: 'finishing' },
        SHELL_DONE: { actions: 'applyShell' },
        ROUND: [
          { guard: 'roundPossible', target: 'preparingRound', actions: 'acceptRound' },
          { actions: 'rejectRound' },
        ],
      },
    },
    merging: {
      invoke: {
        src: 'mergeAgent',
        input: ({ context }) => inputs.mergeInput(context),
        // One rule for every way a race ends: once merged, it ends as any other (finishing), so the
        // other agents' worktrees go and their results stay on their branches.
        onDone: {
          target: 'finishing',
          actions: { type: 'applyMerge', params: ({ event }): MergeResult => event.output },
        },
        onError: [
          {
            guard: 'cancelRequested',
            target: 'cancelled',
            actions: { type: 'applyMergeError', params: ({ event }) => event },
          },
          { target: 'reviewing', actions: { type: 'applyMergeError', params: ({ event }) => event } },
        ],
      },
      // A merge is never interrupted half-way: a cancel waits for it.
      on: { CANCEL: { actions: 'markCancelRequested' } },
    },
    finishing: {
      invoke: {
        src: 'cleanUp',
        input: ({ context }) => inputs.cleanUpInput(context),
        onDone: {
          target: 'done',
          actions: { type: 'applyCleanUp', params: ({ event }): CleanUpOutput => event.output },
        },
        onError: { target: 'done', actions: { type: 'warnCleanUp', params: ({ event }) => event } },
      },
      // Ending already: the clean-up runs to its end.
      on: { CANCEL: {} },
    },
    done: { type: 'final' },
    cancelled: {
      entry: ['cancelUnstarted', 'cancelBaseline'],
      initial: 'checking',
      // Cancelling already.
      on: { CANCEL: {} },
      states: {
        checking: { always: [{ guard: 'hasWorkspace', target: 'cleaning' }, { target: 'over' }] },
        cleaning: {
          invoke: {
            src: 'cleanUp',
            input: ({ context }) => inputs.cleanUpInput(context),
            onDone: {
              target: 'over',
              actions: { type: 'applyCleanUp', params: ({ event }): CleanUpOutput => event.output },
            },
            onError: { target: 'over', actions: { type: 'warnCleanUp', params: ({ event }) => event } },
          },
        },
        over: { type: 'final' },
      },
    },
    failed: { type: 'final' },
  },
});
