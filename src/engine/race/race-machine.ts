/**
 * The race, as a state machine a user would recognise:
 *
 *   checkingRepo → probing → creatingWorktrees → racing → reviewing → merging → done
 *                                                                    ↘ finishing → done
 *   CANCEL from any state → cancelled (agents stopped first, worktrees cleaned); errors → failed.
 *
 * More rounds (race-rounds.ts): reviewing → preparingRound → racing → reviewing, for a follow-up or
 * a rerun of one settled agent; a recorded run reopens (race-reopen.ts) as probing → reopening →
 * reviewing. ARCHITECTURE.md draws it (and the agent machine), generated from this definition by
 * `npm run diagram`.
 *
 * Machines decide, actors act: every side effect is a named actor (race-actors.ts, workspace.ts,
 * clean-up.ts, the agent machine …), so tests replace them with `machine.provide({ actors })`; every
 * decision is a named guard (on race-decisions.ts); the actions (race-actions.ts) only assign, emit
 * and send. No input builder (race-inputs.ts) or assign throws: XState would crash the actor instead
 * of reaching onError. The context holds the snapshot a UI renders; each batch of agent events is
 * also emitted as `agentEvents`.
 *
 * Types do the checking: a named action narrows its event with `assertEvent`, and what an invoked
 * actor returned (or threw) reaches its action as typed `params`, never through a cast.
 */
import { assertEvent, setup } from 'xstate';
import { agentMachine } from '../agent/index.js';
import type { RepoCheck } from '../git/index.js';
import type { CrossTestOutput } from '../checks/index.js';
import type { AgentProbeReport } from '../probe-types.js';
import type { MergeResult } from '../records/index.js';
import {
  autoMergeDecision,
  completedAndSettled,
  crossTestDue,
  mergeOf,
  raceSpendOver,
  everyoneSettled,
  firstVerified,
  judgeDue,
  reproductionsDue,
  roundProblem,
} from './race-decisions.js';
import { raceActions } from './race-actions.js';
import { initialContext } from './race-context.js';
import * as inputs from './race-inputs.js';
import { prepareRoundLogic } from './race-rounds.js';
import { reopenWorkspaceLogic } from './race-reopen.js';
import type { RoundStart } from './race-rounds.js';
import {
  baselineLogic,
  checkRepoLogic,
  crossTestLogic,
  judgeLogic,
  verifyLogic,
  mergeAgentLogic,
  probeAgentsLogic,
} from './race-actors.js';
import { createWorkspaceLogic } from './workspace.js';
import { cleanUpLogic } from './clean-up.js';
import type {
  CleanUpOutput,
  RaceContext,
  RaceEvent,
  RaceInput,
  RaceEmitted,
  Workspace,
} from './race-types.js';

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
    verifyRun: verifyLogic,
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
    // --stop first-verified: a result passed every check while others still run.
    firstVerifiedDue: ({ context }) => firstVerified(context) !== null,
    // ... and cross-testing is on and a rival settled: its reproductions run on that result first.
    verifyDue: ({ context }) => {
      const candidate = firstVerified(context);
      return candidate !== null && reproductionsDue(context, candidate);
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
    reviewOnly: ({ context }) =>
      context.options.reopen !== undefined && context.options.reopen.round === undefined,
    reopenedForRound: ({ context }) => context.options.reopen?.round !== undefined,
    roundFromOptions: ({ context }) =>
      context.options.reopen?.round !== undefined && context.roundAttempts === 0,
    // A round is for an agent that settled with a branch to work on, and not while a merge is done.
    roundPossible: ({ context, event }) => {
      assertEvent(event, 'ROUND');
      return roundProblem(context, event.request) === null;
    },
  },
  actions: raceActions,
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
        onDone: [
          // A review of a recorded run probes nothing (a round asked for later probes its agent).
          {
            guard: 'reviewOnly',
            target: 'reopening',
            actions: {
              type: 'applyRepo',
              params: ({ event }): { repo: RepoCheck } => ({ repo: event.output }),
            },
          },
          {
            target: 'probing',
            actions: {
              type: 'applyRepo',
              params: ({ event }): { repo: RepoCheck } => ({ repo: event.output }),
            },
          },
        ],
        onError: { target: 'failed', actions: { type: 'failWith', params: ({ event }) => event } },
      },
      // A stop before the agents start is held, and they start stopped (spawnAgents).
      on: { STOP_AGENT: { actions: 'holdStop' } },
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
      on: { STOP_AGENT: { actions: 'holdStop' } },
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
      on: {
        'AGENT.OUTPUT': { actions: ['applyOutput', 'emitOutput'] },
        STOP_AGENT: { actions: 'holdStop' },
      },
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
      exit: 'stopVerify',
      always: [
        { guard: 'verifyDue', actions: 'startVerify' },
        { guard: 'firstVerifiedDue', actions: 'markFirstVerified' },
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
        STOP_EARLY: { actions: 'stopUnverified' },
        'VERIFY.DONE': { actions: 'applyVerification' },
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
        RELEASE_AUTO_MERGE: { actions: 'releaseAutoMerge' },
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
