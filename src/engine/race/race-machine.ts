/**
 * The race, as a state machine a user would recognise:
 *
 *   checkingRepo → probing → creatingWorktrees → racing → reviewing → merging → done
 *                                                                    ↘ finishing → done
 *   CANCEL from any state → cancelled (agents stopped first, worktrees cleaned); errors → failed.
 *
 * More rounds (race-rounds.ts): reviewing → preparingRound → racing → reviewing, for a follow-up or
 * a rerun of one settled agent; a recorded run reopens as probing → reopening → reviewing.
 *
 * Every side effect is a named actor (`checkRepo`, `probeAgents`, `createWorkspace`, `agentRun`,
 * `mergeAgent`, `cleanUp`), so tests replace them with `machine.provide({ actors })`. The context
 * holds the snapshot a UI renders; each batch of agent events is also emitted as `agentEvents`.
 *
 * Types do the checking: a named action narrows its event with `assertEvent`, and what an invoked
 * actor returned (or threw) reaches its action as typed `params`, never through a cast.
 */
import { assertEvent, assign, emit, enqueueActions, setup } from 'xstate';
import { emptyUsage } from '../../core/events.js';
import { adapterOf } from '../../adapters/registry.js';
import { agentNameOf } from '../agent-name.js';
import { agentMachine } from '../agent/index.js';
import type { AgentReport } from '../agent/index.js';
import { toErrorInfo } from '../errors.js';
import { availableParallelism } from 'node:os';
import { createLimiter, pickBest } from '../checks/index.js';
import type { BaselineInput, BaselineOutput } from '../checks/index.js';
import { knownSecrets, runWorktreesDir, worktreePoolDir } from '../records/index.js';
import { existsSync } from 'node:fs';
import type { ErrorInfo } from '../../core/events.js';
import { EngineError } from '../errors.js';
import type {
  CleanUpInput,
  CleanUpOutput,
  MergeInput,
  MergeRequestEvent,
  ProbeInput,
  RaceContext,
  RaceInput,
  ResolvedRaceOptions,
  Workspace,
  WorkspaceInput,
} from './race-types.js';
import type { RepoCheck } from '../git/index.js';
import {
  applyBaseline,
  applyChecking,
  applyExit,
  applyOutput,
  applyProbeReports,
  applyResult,
  applySettled,
  applySpawned,
  buildSummary,
  noUsableAgentError,
  updateAgent,
} from './snapshot.js';
import type {
  AgentEventRecord,
  AgentName,
  AgentProbeReport,
  AgentSnapshot,
  DiffSummary,
  MergeResult,
  RoundRequest,
} from '../types.js';
import { prepareRoundLogic, reopenedAgent, reopenWorkspaceLogic } from './race-rounds.js';
import type { ReopenInput, RoundInput, RoundStart } from './race-rounds.js';
import {
  baselineLogic,
  cleanUpLogic,
  checkRepoLogic,
  createWorkspaceLogic,
  mergeAgentLogic,
  probeAgentsLogic,
} from './race-actors.js';

export type RaceEvent =
  | AgentReport
  | { type: 'STOP_AGENT'; agent: AgentName }
  | { type: 'CANCEL' }
  | ({ type: 'MERGE' } & MergeRequestEvent)
  | { type: 'FINISH' }
  | ({ type: 'BASELINE.DONE' } & BaselineOutput)
  | { type: 'ROUND'; request: RoundRequest }
  | { type: 'SHELL_DONE'; agent: AgentName; worktree: string; diff: DiffSummary | null; warnings: string[] };

/** The events of one batch of an agent's output (or its final event), in order. */
export interface RaceEmitted {
  type: 'agentEvents';
  records: AgentEventRecord[];
}

/** A round after the first is a new child: the one before it may not have been removed yet. */
const childId = (agent: AgentName, round = 1): string =>
  round > 1 ? `agent:${agent}:${round}` : `agent:${agent}`;

const launchChildId = (context: RaceContext, agent: AgentName): string =>
  childId(agent, context.launches.find((launch) => launch.agent === agent)?.round);

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
    startedAt: null,
    endedAt: null,
    lastOutputAt: null,
    recentEvents: [],
    eventCount: 0,
    usage: emptyUsage(),
    diff: null,
    error: null,
    exitCode: null,
    branch: null,
    worktree: null,
    inferredFlags: false,
    warnings: [],
    capabilities: null,
    checks: null,
    checking: false,
    score: null,
  };
};

/** Every agent settled, and the baseline's checks are done (or there are none). */
const everyoneSettled = (context: RaceContext): boolean =>
  context.launches.every((launch) => context.settled.includes(launch.agent)) &&
  (context.baseline === null || context.baseline.status !== 'running');

const isLive = (context: RaceContext, agent: AgentName): boolean =>
  context.launches.some((launch) => launch.agent === agent) && !context.settled.includes(agent);

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
    mergeAgent: mergeAgentLogic,
    cleanUp: cleanUpLogic,
  },
  guards: {
    hasUsableAgent: (_, params: { reports: AgentProbeReport[] }) =>
      params.reports.some((report) => report.status === 'ready'),
    allSettled: ({ context }) => everyoneSettled(context),
    raceOverBudget: ({ context, event }) => {
      assertEvent(event, 'AGENT.OUTPUT');
      const limit = context.options.maxCostUsd;
      if (context.overBudget || limit === undefined) return false;
      const usage = [...event.events].reverse().find((item) => item.kind === 'usage');
      const latest = usage?.kind === 'usage' ? usage.usage.costUsd : null;
      const spend = context.agents.reduce(
        (sum, agent) => sum + ((agent.agent === event.agent ? latest : null) ?? agent.usage.costUsd ?? 0),
        0,
      );
      return spend > limit;
    },
    allSettledAfterCancel: ({ context }) =>
      context.cancelRequested && context.launches.every((launch) => context.settled.includes(launch.agent)),
    mergeable: ({ context, event }) => {
      assertEvent(event, 'MERGE');
      return (
        context.agents.some(
          (snapshot) => snapshot.agent === event.agent && snapshot.status === 'completed',
        ) && context.settled.includes(event.agent)
      );
    },
    cancelRequested: ({ context }) => context.cancelRequested,
    hasWorkspace: ({ context }) => context.launches.length > 0,
    reopening: ({ context }) => context.options.reopen !== undefined,
    hasPendingRound: ({ context }) => context.pendingRound !== null,
    roundFromOptions: ({ context }) =>
      context.options.reopen?.round !== undefined && context.roundAttempts === 0,
    // A round is for an agent that settled with a branch to work on, and not while a merge is done.
    roundPossible: ({ context, event }) => {
      assertEvent(event, 'ROUND');
      return roundProblem(context, event.request) === null;
    },
  },
  actions: {
    applyRepo: assign(({ context }, params: { repo: RepoCheck }) => ({
      repo: params.repo,
      // Warnings the caller gave (e.g. ignored keys of an untrusted hydra.toml) come first.
      warnings: [...(context.options.warnings ?? []), ...params.repo.warnings],
    })),
    applyProbe: assign(({ context }, params: { reports: AgentProbeReport[] }) =>
      applyProbeReports(context, params.reports),
    ),
    failNoUsableAgent: assign(({ context }, params: { reports: AgentProbeReport[] }) => ({
      ...applyProbeReports(context, params.reports),
      error: noUsableAgentError(params.reports),
      endedAt: Date.now(),
    })),
    failWith: assign((_, params: { error: unknown }) => ({
      error: toErrorInfo(params.error),
      endedAt: Date.now(),
    })),
    // The worktrees could not be made: the agents that were to race failed before starting, for
    // that reason (not for anything of theirs).
    failWorkspace: assign(({ context }, params: { error: unknown }) => {
      const error = toErrorInfo(params.error);
      return {
        error,
        endedAt: Date.now(),
        agents: context.agents.map((agent) =>
          agent.status === 'pending' ? { ...agent, status: 'failed' as const, error } : agent,
        ),
      };
    }),
    applyWorkspace: assign(({ context }, workspace: Workspace) => {
      let agents = context.agents;
      for (const launch of workspace.launches) {
        agents = updateAgent(agents, launch.agent, (agent) => ({
          ...agent,
          status: 'spawning',
          branch: launch.branch,
          worktree: launch.worktree,
        }));
      }
      return { launches: workspace.launches, recordDir: workspace.recordDir, agents };
    }),
    // Every launched agent that has not settled: all of them in a race, the one of a new round after.
    spawnAgents: enqueueActions(({ context, enqueue }) => {
      for (const launch of context.launches) {
        if (context.settled.includes(launch.agent)) continue;
        enqueue.spawnChild('agentRun', {
          id: childId(launch.agent, launch.round),
          input: { launch, processes: context.processes, checkSlots: context.checkSlots },
        });
      }
    }),
    // Once per race: a later round (a follow-up, a rerun) compares with the baseline already run.
    startBaseline: assign(({ context }) => ({
      baseline:
        context.baseline !== null
          ? context.baseline
          : (context.options.checks ?? []).length === 0
            ? null
            : { status: 'running' as const, checks: [], error: null },
    })),
    applyBaseline: assign(({ context, event }) => {
      assertEvent(event, 'BASELINE.DONE');
      return applyBaseline(context, event);
    }),
    applyChecking: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.CHECKING');
      return applyChecking(context, event);
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
    applyReopenProbe: assign(({ context }, params: { reports: AgentProbeReport[] }) => ({
      reports: params.reports,
      agents: context.agents.map((agent) => {
        const report = params.reports.find((item) => item.agent === (agent.rerunOf ?? agent.agent));
        return report === undefined ? agent : { ...agent, capabilities: report.capabilities };
      }),
    })),
    applyReopened: assign(({ context }, workspace: Workspace) => ({
      launches: workspace.launches,
      recordDir: workspace.recordDir,
      settled: context.agents.map((agent) => agent.agent),
      agents: context.agents.map((agent) => {
        const launch = workspace.launches.find((item) => item.agent === agent.agent);
        if (launch === undefined) return { ...agent, branch: null, worktree: null };
        return { ...agent, worktree: existsSync(launch.worktree) ? launch.worktree : null };
      }),
      pendingRound: context.options.reopen?.round ?? null,
    })),
    applyShell: assign(({ context, event }) => {
      assertEvent(event, 'SHELL_DONE');
      return {
        agents: updateAgent(context.agents, event.agent, (agent) => ({
          ...agent,
          worktree: event.worktree,
          diff: event.diff ?? agent.diff,
          warnings: [
            ...agent.warnings,
            ...event.warnings.filter((warning) => !agent.warnings.includes(warning)),
          ],
        })),
      };
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
      const known = context.agents.some((agent) => agent.agent === start.agent.agent);
      enqueue.assign({
        roundAttempts: context.roundAttempts + 1,
        roundError: null,
        pendingRound: null,
        launches: [...context.launches.filter((launch) => launch.agent !== start.launch.agent), start.launch],
        settled: context.settled.filter((agent) => agent !== start.launch.agent),
        agents: known
          ? updateAgent(context.agents, start.agent.agent, () => ({
              ...start.agent,
              recentEvents: [...start.agent.recentEvents, start.divider],
              eventCount: start.agent.eventCount + 1,
            }))
          : [...context.agents, { ...start.agent, recentEvents: [start.divider], eventCount: 1 }],
      });
      enqueue.emit({
        type: 'agentEvents',
        records: [{ agent: start.agent.agent, at: Date.now(), event: start.divider }],
      });
    }),
    applyRoundError: assign(({ context }, params: { error: unknown }) => {
      const error = toErrorInfo(params.error);
      return {
        roundAttempts: context.roundAttempts + 1,
        roundError: error,
        pendingRound: null,
        warnings: [...context.warnings, `${error.message} ${error.hint}`],
      };
    }),
    failRound: assign(({ context }, params: { error: unknown }) => ({
      roundAttempts: context.roundAttempts + 1,
      roundError: toErrorInfo(params.error),
      pendingRound: null,
      error: toErrorInfo(params.error),
    })),
    applySpawned: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.SPAWNED');
      return applySpawned(context, event);
    }),
    applyOutput: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.OUTPUT');
      return applyOutput(context, event);
    }),
    applyResult: assign(({ context, event }) => {
      assertEvent(event, 'AGENT.RESULT');
      return applyResult(context, event);
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
      return applyExit(context, event);
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
      return applySettled(context, event);
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
    // --auto-merge best: merge the top score, or say why nothing is merged.
    autoMerge: enqueueActions(({ context, enqueue }) => {
      if (context.options.autoMerge !== 'best' || context.mergeAttempts > 0) return;
      const summary = buildSummary(context, context.endedAt ?? Date.now());
      const pick = pickBest(
        summary.agents.flatMap((agent) =>
          agent.score === undefined || agent.status === 'skipped'
            ? []
            : [{ agent: agent.agent, ...agent.score }],
        ),
        { allowTestChanges: context.options.allowTestChanges === true },
      );
      if (pick.agent === null)
        enqueue.assign({ mergeNote: `--auto-merge best merged nothing: ${pick.reason}` });
      // Unattended, nobody is there to choose again: the merge cleans up as before (discardOthers).
      else enqueue.raise({ type: 'MERGE', agent: pick.agent, options: { discardOthers: true } });
    }),
    markCancelRequested: assign({ cancelRequested: true }),
    // The race was cancelled before the baseline's checks finished: they were stopped, with the race.
    cancelBaseline: assign(({ context }) =>
      context.baseline?.status === 'running'
        ? {
            baseline: {
              status: 'cancelled' as const,
              checks: [],
              error: "The race was cancelled before the baseline's checks finished.",
            },
          }
        : {},
    ),
    // Cancelled before they were launched (during the repository check, probing or worktree
    // creation): they were stopped, not skipped for being unusable.
    cancelUnstarted: assign(({ context }) => ({
      agents: context.agents.map((agent) =>
        agent.status === 'pending' && agent.startedAt === null
          ? {
              ...agent,
              status: 'cancelled' as const,
              error: {
                kind: 'Interrupted' as const,
                message: `The race was cancelled before ${agent.displayName} started.`,
                hint: 'Nothing was left behind; start a new race when ready.',
              },
            }
          : agent,
      ),
    })),
    markEnded: assign(({ context }) => ({ endedAt: context.endedAt ?? Date.now() })),
    acceptMerge: assign(({ context }) => ({
      mergeError: null,
      mergeAttempts: context.mergeAttempts + 1,
    })),
    rejectMerge: assign(({ context, event }) => {
      assertEvent(event, 'MERGE');
      const agent = context.agents.find((snapshot) => snapshot.agent === event.agent);
      const message =
        agent === undefined
          ? `${event.agent} did not take part in this race.`
          : `${agent.displayName} did not complete (status: ${agent.status}), so there is nothing to merge.`;
      return {
        mergeAttempts: context.mergeAttempts + 1,
        mergeError: {
          kind: 'Refused' as const,
          message,
          hint: 'Pick an agent whose status is completed.',
        },
      };
    }),
    /** Records the merge and forgets what it removed (by default only the merged agent's worktree). */
    applyMerge: assign(({ context }, merge: MergeResult) => ({
      merge,
      mergeError: null,
      agents: forgetRemoved(context.agents, merge.removed),
    })),
    applyMergeError: assign(({ context }, params: { error: unknown }) => {
      const mergeError = toErrorInfo(params.error);
      return {
        mergeError,
        ...(context.options.autoMerge === 'best' && context.mergeNote === null
          ? { mergeNote: `--auto-merge best could not merge: ${mergeError.message}` }
          : {}),
      };
    }),
    /** Forgets the worktrees and branches the clean-up removed, so snapshot and summary stop naming them. */
    applyCleanUp: assign(({ context }, output: CleanUpOutput) => ({
      agents: forgetRemoved(context.agents, output.removed),
    })),
    warnCleanUp: assign(({ context }, params: { error: unknown }) => ({
      warnings: [
        ...context.warnings,
        `Clean-up was incomplete: ${toErrorInfo(params.error).message} Run \`hydra clean\`.`,
      ],
    })),
  },
}).createMachine({
  id: 'race',
  context: ({ input }) => ({
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
    mergeAttempts: 0,
    cancelRequested: false,
    endedAt: null,
    baseline: null,
    checkSlots: createLimiter(input.options.checkConcurrency ?? availableParallelism()),
    overBudget: false,
    mergeNote: null,
    checkRuns: {},
    baselineRuns: null,
    merge: input.options.reopen?.merge ?? null,
    pendingRound: null,
    roundAttempts: 0,
    roundError: null,
  }),
  initial: 'checkingRepo',
  states: {
    checkingRepo: {
      invoke: {
        src: 'checkRepo',
        input: ({ context }) => ({ repoPath: context.options.repoPath }),
        onDone: {
          target: 'probing',
          actions: { type: 'applyRepo', params: ({ event }) => ({ repo: event.output }) },
        },
        onError: { target: 'failed', actions: { type: 'failWith', params: ({ event }) => event } },
      },
      on: { CANCEL: { target: 'cancelled', actions: 'markCancelRequested' } },
    },
    probing: {
      invoke: {
        src: 'probeAgents',
        input: ({ context }): ProbeInput => ({
          plans: context.options.agents,
          allowExperimental: context.options.allowExperimental,
          unsafe: context.options.unsafe,
          repoRoot: context.repo?.root ?? context.options.repoPath,
          cacheDir: context.options.cacheDir ?? null,
          processes: context.processes,
        }),
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
      on: { CANCEL: { target: 'cancelled', actions: 'markCancelRequested' } },
    },
    creatingWorktrees: {
      invoke: {
        src: 'createWorkspace',
        input: ({ context }): WorkspaceInput => ({
          options: context.options,
          repo: checkedRepo(context),
          startedAt: context.startedAt,
          reports: context.reports.filter((report) => report.status === 'ready'),
          processes: context.processes,
        }),
        onDone: {
          target: 'racing',
          actions: { type: 'applyWorkspace', params: ({ event }) => event.output },
        },
        onError: { target: 'failed', actions: { type: 'failWorkspace', params: ({ event }) => event } },
      },
      on: { CANCEL: { target: 'cancelled', actions: 'markCancelRequested' } },
    },
    // A recorded run, reopened: its agents are settled already.
    reopening: {
      invoke: {
        src: 'reopenWorkspace',
        input: ({ context }): ReopenInput => ({
          options: context.options,
          repo: checkedRepo(context),
          reports: context.reports,
          reopen: reopenOf(context),
        }),
        onDone: [
          {
            guard: ({ context }) => context.options.reopen?.round !== undefined,
            target: 'preparingRound',
            actions: { type: 'applyReopened', params: ({ event }) => event.output },
          },
          { target: 'reviewing', actions: { type: 'applyReopened', params: ({ event }) => event.output } },
        ],
        onError: { target: 'failed', actions: { type: 'failWith', params: ({ event }) => event } },
      },
      on: { CANCEL: { target: 'cancelled', actions: 'markCancelRequested' } },
    },
    // Another round for one agent: its worktree made (again) and its command built, then it races.
    preparingRound: {
      invoke: {
        src: 'prepareRound',
        input: ({ context }): RoundInput => roundInput(context),
        onDone: { target: 'racing', actions: { type: 'applyRound', params: ({ event }) => event.output } },
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
      on: { CANCEL: { target: 'cancelled', actions: 'markCancelRequested' } },
    },
    racing: {
      entry: ['spawnAgents', 'startBaseline'],
      // The baseline's checks, on the base commit in a worktree of its own, beside the agents.
      invoke: {
        id: 'baseline',
        src: 'baselineRun',
        input: ({ context }) => baselineInput(context),
      },
      always: [
        { guard: 'allSettledAfterCancel', target: 'cancelled', actions: 'markEnded' },
        { guard: 'allSettled', target: 'reviewing', actions: 'markEnded' },
      ],
      on: {
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
        CANCEL: { actions: ['markCancelRequested', 'stopAllAgents'] },
      },
    },
    reviewing: {
      entry: 'autoMerge',
      on: {
        MERGE: [
          { guard: 'mergeable', target: 'merging', actions: 'acceptMerge' },
          { actions: 'rejectMerge' },
        ],
        FINISH: { target: 'finishing' },
        CANCEL: { target: 'cancelled', actions: 'markCancelRequested' },
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
        // Only a MERGE leads here: the request is the event that entered the state.
        input: ({ context, event }): MergeInput => {
          assertEvent(event, 'MERGE');
          return mergeInput(context, event);
        },
        onDone: { target: 'done', actions: { type: 'applyMerge', params: ({ event }) => event.output } },
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
        input: ({ context }): CleanUpInput => cleanUpInput(context),
        onDone: { target: 'done', actions: { type: 'applyCleanUp', params: ({ event }) => event.output } },
        onError: { target: 'done', actions: { type: 'warnCleanUp', params: ({ event }) => event } },
      },
    },
    done: { type: 'final' },
    cancelled: {
      entry: ['cancelUnstarted', 'cancelBaseline'],
      initial: 'checking',
      states: {
        checking: { always: [{ guard: 'hasWorkspace', target: 'cleaning' }, { target: 'over' }] },
        cleaning: {
          invoke: {
            src: 'cleanUp',
            input: ({ context }): CleanUpInput => cleanUpInput(context),
            onDone: {
              target: 'over',
              actions: { type: 'applyCleanUp', params: ({ event }) => event.output },
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

/** What the baseline's checks need: the base commit, the run's worktree directory, the checks. */
const baselineInput = (context: RaceContext): BaselineInput => {
  const repo = checkedRepo(context);
  return {
    repoRoot: repo.root,
    baseRef: repo.baseRef,
    runDir: runWorktreesDir(context.options.worktreeRoot, repo.root, context.runId),
    runId: context.runId,
    // Nothing to run when the baseline is not (or no longer) running: a later round reuses it.
    checks: context.baseline?.status === 'running' ? (context.options.checks ?? []) : [],
    processes: context.processes,
    slots: context.checkSlots,
    graceMs: context.options.killGraceMs,
    secrets: context.options.agents.flatMap((plan) => knownSecrets(plan.env)),
  };
};

/** The agents with the worktrees and branches in `removed` no longer named. */
const forgetRemoved = (agents: AgentSnapshot[], removed: readonly string[]): AgentSnapshot[] => {
  const gone = new Set(removed);
  if (gone.size === 0) return agents;
  return agents.map((agent) => ({
    ...agent,
    branch: agent.branch !== null && gone.has(agent.branch) ? null : agent.branch,
    worktree: agent.worktree !== null && gone.has(agent.worktree) ? null : agent.worktree,
  }));
};

const reopenOf = (context: RaceContext) => {
  if (context.options.reopen !== undefined) return context.options.reopen;
  throw new Error(`Run ${context.runId} is being reopened without a record to reopen.`);
};

/** Why a round cannot start for this agent now, or null when it can. */
const roundProblem = (context: RaceContext, request: RoundRequest): ErrorInfo | null => {
  const agent = context.agents.find((item) => item.agent === request.agent);
  const launch = context.launches.find((item) => item.agent === request.agent);
  if (agent === undefined || launch === undefined)
    return {
      kind: 'Refused',
      message: `${request.agent} has no result in run ${context.runId} to work on.`,
      hint: 'Pick an agent whose branch is still there (see `hydra show`).',
    };
  if (!context.settled.includes(request.agent))
    return {
      kind: 'Refused',
      message: `${agent.displayName} is still running.`,
      hint: 'Wait for it to settle.',
    };
  if (context.merge !== null && request.kind === 'follow_up' && context.merge.agent === request.agent)
    return {
      kind: 'Refused',
      message: `${agent.displayName}'s result was merged already.`,
      hint: 'Start a new race from the merged branch.',
    };
  return null;
};

/** What preparing the pending round needs: the agent, its launch, the race's options and probe. */
const roundInput = (context: RaceContext): RoundInput => {
  const request = context.pendingRound;
  if (request === null) throw new Error(`Run ${context.runId} prepares a round nobody asked for.`);
  const problem = roundProblem({ ...context, settled: context.settled }, request);
  if (problem !== null) throw new EngineError(problem.kind, problem.message, problem.hint);
  const agent = context.agents.find((item) => item.agent === request.agent);
  const launch = context.launches.find((item) => item.agent === request.agent);
  if (agent === undefined || launch === undefined) throw new Error('unreachable: roundProblem checked it');
  return {
    request,
    options: context.options,
    repo: checkedRepo(context),
    reports: context.reports,
    agent,
    launch,
    taken: context.agents.map((item) => item.agent),
    processes: context.processes,
  };
};

/**
 * What ending a race without a merge removes: every worktree (unless kept) and the branches of
 * agents that did not complete (except those stopped for their budget). Branches of completed
 * agents stay, so `hydra merge <run> <agent>` still works after a headless run; `hydra clean`
 * removes them.
 */
const cleanUpInput = (context: RaceContext): CleanUpInput => ({
  repoRoot: context.repo?.root ?? context.options.repoPath,
  keepWorktrees: context.options.keepWorktrees,
  launches: context.launches,
  // A completed result, and the work so far of an agent stopped for its budget (like a time limit, it
  // did not fail on its own: its branch is kept to look at or to continue from).
  keepBranchesOf: context.agents
    .filter((agent) => agent.status === 'completed' || agent.error?.kind === 'BudgetExceeded')
    .map((agent) => agent.agent),
  keepWorktreesOf: uncommittedAgents(context),
  ...((context.options.worktreePool ?? 0) > 0
    ? {
        pool: {
          dir: worktreePoolDir(context.options.worktreeRoot, context.repo?.root ?? context.options.repoPath),
          size: context.options.worktreePool ?? 0,
        },
      }
    : {}),
});

/**
 * The repository found by the check. Every state after checkingRepo is reached only through its
 * onDone (applyRepo), so it is set; should that ever change, the race fails with this message
 * instead of working on a null repository.
 */
const checkedRepo = (context: RaceContext): RepoCheck => {
  if (context.repo !== null) return context.repo;
  throw new Error(`The race left checkingRepo without a repository (run ${context.runId}).`);
};

/** What merging the requested agent needs: its repository, the other worktrees, the options. */
const mergeInput = (context: RaceContext, request: MergeRequestEvent): MergeInput => {
  const repo = checkedRepo(context);
  return {
    root: repo.root,
    runId: context.runId,
    agent: request.agent,
    prompt: context.options.prompt,
    baseBranch: repo.baseBranch,
    baseRef: repo.baseRef,
    worktrees: context.launches
      .filter((launch) => !uncommittedAgents(context).includes(launch.agent))
      .map((launch) => launch.worktree),
    branches: context.launches.map((launch) => launch.branch),
    agentWorktree: uncommittedAgents(context).includes(request.agent)
      ? null
      : (context.launches.find((launch) => launch.agent === request.agent)?.worktree ?? null),
    options: {
      ...request.options,
      keepWorktrees: request.options.keepWorktrees ?? context.options.keepWorktrees,
    },
  };
};

/** Launched agents that settled without a diff: committing their work failed, it is only in their worktree. */
const uncommittedAgents = (context: RaceContext): AgentName[] =>
  context.launches
    .map((launch) => launch.agent)
    .filter(
      (agent) =>
        context.settled.includes(agent) &&
        context.agents.find((snapshot) => snapshot.agent === agent)?.diff === null,
    );
