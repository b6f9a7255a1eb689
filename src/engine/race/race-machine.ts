/**
 * The race, as a state machine a user would recognise:
 *
 *   checkingRepo → probing → creatingWorktrees → racing → reviewing → merging → done
 *                                                                    ↘ finishing → done
 *   CANCEL from any state → cancelled (agents stopped first, worktrees cleaned); errors → failed.
 *
 * Every side effect is a named actor (`checkRepo`, `probeAgents`, `createWorkspace`, `agentRun`,
 * `mergeAgent`, `cleanUp`), so tests replace them with `machine.provide({ actors })`. The context
 * holds the snapshot a UI renders; each agent event is also emitted as `agentEvent`.
 */
import { assign, emit, enqueueActions, setup } from 'xstate';
import { emptyUsage } from '../../adapters/events.js';
import { adapterOf } from '../../adapters/registry.js';
import type { AdapterId } from '../../adapters/types.js';
import { agentMachine } from '../agent/index.js';
import type { AgentReport } from '../agent/index.js';
import { toErrorInfo } from '../errors.js';
import type {
  CleanUpInput,
  CleanUpOutput,
  MergeInput,
  MergeRequestEvent,
  ProbeInput,
  RaceContext,
  ResolvedRaceOptions,
  Workspace,
  WorkspaceInput,
} from './race-types.js';
import type { RepoCheck } from '../git/index.js';
import {
  applyExit,
  applyOutput,
  applyProbeReports,
  applySettled,
  applySpawned,
  noUsableAgentError,
  updateAgent,
} from './snapshot.js';
import type { AgentEventRecord, AgentProbeReport, AgentSnapshot, MergeResult } from '../types.js';
import {
  cleanUpLogic,
  checkRepoLogic,
  createWorkspaceLogic,
  mergeAgentLogic,
  probeAgentsLogic,
} from './race-actors.js';

export type RaceEvent =
  | AgentReport
  | { type: 'STOP_AGENT'; agent: AdapterId }
  | { type: 'CANCEL' }
  | ({ type: 'MERGE' } & MergeRequestEvent)
  | { type: 'FINISH' };

export interface RaceEmitted {
  type: 'agentEvent';
  record: AgentEventRecord;
}

export const childId = (agent: AdapterId): string => `agent:${agent}`;

const initialAgent = (plan: ResolvedRaceOptions['agents'][number]): AgentSnapshot => {
  const adapter = adapterOf(plan.adapterId);
  return {
    agent: plan.adapterId,
    displayName: adapter.displayName,
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
  };
};

const isLive = (context: RaceContext, agent: AdapterId): boolean =>
  context.launches.some((launch) => launch.agent === agent) && !context.settled.includes(agent);

export const raceMachine = setup({
  types: {
    context: {} as RaceContext,
    events: {} as RaceEvent,
    input: {} as { options: ResolvedRaceOptions; startedAt: number },
    emitted: {} as RaceEmitted,
  },
  actors: {
    checkRepo: checkRepoLogic,
    probeAgents: probeAgentsLogic,
    createWorkspace: createWorkspaceLogic,
    agentRun: agentMachine,
    mergeAgent: mergeAgentLogic,
    cleanUp: cleanUpLogic,
  },
  guards: {
    hasUsableAgent: ({ event }) =>
      (event as unknown as { output: AgentProbeReport[] }).output.some((report) => report.status === 'ready'),
    allSettled: ({ context }) => context.launches.every((launch) => context.settled.includes(launch.agent)),
    allSettledAfterCancel: ({ context }) =>
      context.cancelRequested && context.launches.every((launch) => context.settled.includes(launch.agent)),
    mergeable: ({ context, event }) => {
      const agent = (event as MergeRequestEvent).agent;
      return (
        context.agents.some((snapshot) => snapshot.agent === agent && snapshot.status === 'completed') &&
        context.settled.includes(agent)
      );
    },
    cancelRequested: ({ context }) => context.cancelRequested,
    hasWorkspace: ({ context }) => context.launches.length > 0,
  },
  actions: {
    applyRepo: assign(({ event }) => {
      const repo = (event as unknown as { output: RepoCheck }).output;
      return { repo, warnings: repo.warnings };
    }),
    applyProbe: assign(({ context, event }) =>
      applyProbeReports(context, (event as unknown as { output: AgentProbeReport[] }).output),
    ),
    failNoUsableAgent: assign(({ context, event }) => {
      const reports = (event as unknown as { output: AgentProbeReport[] }).output;
      return {
        ...applyProbeReports(context, reports),
        error: noUsableAgentError(reports),
        endedAt: Date.now(),
      };
    }),
    failWith: assign(({ event }) => ({
      error: toErrorInfo((event as { error?: unknown }).error),
      endedAt: Date.now(),
    })),
    applyWorkspace: assign(({ context, event }) => {
      const workspace = (event as unknown as { output: Workspace }).output;
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
    spawnAgents: enqueueActions(({ context, enqueue }) => {
      for (const launch of context.launches)
        enqueue.spawnChild('agentRun', { id: childId(launch.agent), input: launch });
    }),
    applySpawned: assign(({ context, event }) =>
      applySpawned(context, event as Extract<AgentReport, { type: 'AGENT.SPAWNED' }>),
    ),
    applyOutput: assign(({ context, event }) =>
      applyOutput(context, event as Extract<AgentReport, { type: 'AGENT.OUTPUT' }>),
    ),
    emitOutput: enqueueActions(({ event, enqueue }) => {
      const output = event as Extract<AgentReport, { type: 'AGENT.OUTPUT' }>;
      for (const item of output.events)
        enqueue.emit({ type: 'agentEvent', record: { agent: output.agent, at: output.at, event: item } });
    }),
    applyExit: assign(({ context, event }) =>
      applyExit(context, event as Extract<AgentReport, { type: 'AGENT.EXITED' }>),
    ),
    emitExit: emit(({ event }) => {
      const exited = event as Extract<AgentReport, { type: 'AGENT.EXITED' }>;
      return {
        type: 'agentEvent' as const,
        record: { agent: exited.agent, at: exited.at, event: exited.terminal },
      };
    }),
    applySettled: assign(({ context, event }) =>
      applySettled(context, event as Extract<AgentReport, { type: 'AGENT.SETTLED' }>),
    ),
    stopAgent: enqueueActions(({ context, event, enqueue, self }) => {
      const { agent } = event as { agent: AdapterId };
      if (isLive(context, agent) && self.getSnapshot().children[childId(agent)] !== undefined) {
        enqueue.sendTo(childId(agent), { type: 'STOP' });
      }
    }),
    stopAllAgents: enqueueActions(({ context, enqueue, self }) => {
      for (const launch of context.launches) {
        if (
          isLive(context, launch.agent) &&
          self.getSnapshot().children[childId(launch.agent)] !== undefined
        ) {
          enqueue.sendTo(childId(launch.agent), { type: 'STOP' });
        }
      }
    }),
    markCancelRequested: assign({ cancelRequested: true }),
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
    acceptMerge: assign(({ context, event }) => {
      const request = event as MergeRequestEvent;
      return {
        mergeRequest: { agent: request.agent, options: request.options },
        mergeError: null,
        mergeAttempts: context.mergeAttempts + 1,
      };
    }),
    rejectMerge: assign(({ context, event }) => {
      const request = event as MergeRequestEvent;
      const agent = context.agents.find((snapshot) => snapshot.agent === request.agent);
      const message =
        agent === undefined
          ? `${request.agent} did not take part in this race.`
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
    applyMerge: assign(({ event }) => ({
      merge: (event as unknown as { output: MergeResult }).output,
      mergeError: null,
    })),
    applyMergeError: assign(({ event }) => ({
      mergeError: toErrorInfo((event as { error?: unknown }).error),
    })),
    /** Forgets the worktrees and branches the clean-up removed, so snapshot and summary stop naming them. */
    applyCleanUp: assign(({ context, event }) => {
      const removed = new Set((event as { output?: CleanUpOutput }).output?.removed ?? []);
      if (removed.size === 0) return {};
      return {
        agents: context.agents.map((agent) => ({
          ...agent,
          branch: agent.branch !== null && removed.has(agent.branch) ? null : agent.branch,
          worktree: agent.worktree !== null && removed.has(agent.worktree) ? null : agent.worktree,
        })),
      };
    }),
    warnCleanUp: assign(({ context, event }) => ({
      warnings: [
        ...context.warnings,
        `Clean-up was incomplete: ${toErrorInfo((event as { error?: unknown }).error).message} Run \`hydra clean\`.`,
      ],
    })),
  },
}).createMachine({
  id: 'race',
  context: ({ input }) => ({
    options: input.options,
    runId: input.options.runId,
    startedAt: input.startedAt,
    repo: null,
    reports: [],
    agents: input.options.agents.map(initialAgent),
    launches: [],
    recordDir: null,
    settled: [],
    warnings: [],
    error: null,
    merge: null,
    mergeRequest: null,
    mergeError: null,
    mergeAttempts: 0,
    cancelRequested: false,
    endedAt: null,
  }),
  initial: 'checkingRepo',
  states: {
    checkingRepo: {
      invoke: {
        src: 'checkRepo',
        input: ({ context }) => ({ repoPath: context.options.repoPath }),
        onDone: { target: 'probing', actions: 'applyRepo' },
        onError: { target: 'failed', actions: 'failWith' },
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
        }),
        onDone: [
          { guard: 'hasUsableAgent', target: 'creatingWorktrees', actions: 'applyProbe' },
          { target: 'failed', actions: 'failNoUsableAgent' },
        ],
        onError: { target: 'failed', actions: 'failWith' },
      },
      on: { CANCEL: { target: 'cancelled', actions: 'markCancelRequested' } },
    },
    creatingWorktrees: {
      invoke: {
        src: 'createWorkspace',
        input: ({ context }): WorkspaceInput => ({
          options: context.options,
          repo: context.repo!,
          startedAt: context.startedAt,
          reports: context.reports.filter((report) => report.status === 'ready'),
        }),
        onDone: { target: 'racing', actions: 'applyWorkspace' },
        onError: { target: 'failed', actions: 'failWith' },
      },
      on: { CANCEL: { target: 'cancelled', actions: 'markCancelRequested' } },
    },
    racing: {
      entry: 'spawnAgents',
      always: [
        { guard: 'allSettledAfterCancel', target: 'cancelled', actions: 'markEnded' },
        { guard: 'allSettled', target: 'reviewing', actions: 'markEnded' },
      ],
      on: {
        'AGENT.SPAWNED': { actions: 'applySpawned' },
        'AGENT.OUTPUT': { actions: ['applyOutput', 'emitOutput'] },
        'AGENT.EXITED': { actions: ['applyExit', 'emitExit'] },
        'AGENT.SETTLED': { actions: 'applySettled' },
        STOP_AGENT: { actions: 'stopAgent' },
        CANCEL: { actions: ['markCancelRequested', 'stopAllAgents'] },
      },
    },
    reviewing: {
      on: {
        MERGE: [
          { guard: 'mergeable', target: 'merging', actions: 'acceptMerge' },
          { actions: 'rejectMerge' },
        ],
        FINISH: { target: 'finishing' },
        CANCEL: { target: 'cancelled', actions: 'markCancelRequested' },
      },
    },
    merging: {
      invoke: {
        src: 'mergeAgent',
        input: ({ context }): MergeInput => ({
          root: context.repo!.root,
          runId: context.runId,
          agent: context.mergeRequest!.agent,
          prompt: context.options.prompt,
          baseBranch: context.repo!.baseBranch,
          worktrees: context.launches
            .filter((launch) => !uncommittedAgents(context).includes(launch.agent))
            .map((launch) => launch.worktree),
          branches: context.launches.map((launch) => launch.branch),
          options: {
            ...context.mergeRequest!.options,
            keepWorktrees: context.mergeRequest!.options.keepWorktrees ?? context.options.keepWorktrees,
          },
        }),
        onDone: { target: 'done', actions: 'applyMerge' },
        onError: [
          { guard: 'cancelRequested', target: 'cancelled', actions: 'applyMergeError' },
          { target: 'reviewing', actions: 'applyMergeError' },
        ],
      },
      // A merge is never interrupted half-way: a cancel waits for it.
      on: { CANCEL: { actions: 'markCancelRequested' } },
    },
    finishing: {
      invoke: {
        src: 'cleanUp',
        input: ({ context }): CleanUpInput => cleanUpInput(context),
        onDone: { target: 'done', actions: 'applyCleanUp' },
        onError: { target: 'done', actions: 'warnCleanUp' },
      },
    },
    done: { type: 'final' },
    cancelled: {
      entry: 'cancelUnstarted',
      initial: 'checking',
      states: {
        checking: { always: [{ guard: 'hasWorkspace', target: 'cleaning' }, { target: 'over' }] },
        cleaning: {
          invoke: {
            src: 'cleanUp',
            input: ({ context }): CleanUpInput => cleanUpInput(context),
            onDone: { target: 'over', actions: 'applyCleanUp' },
            onError: { target: 'over', actions: 'warnCleanUp' },
          },
        },
        over: { type: 'final' },
      },
    },
    failed: { type: 'final' },
  },
});

/**
 * What ending a race without a merge removes: every worktree (unless kept) and the branches of
 * agents that did not complete. Branches of completed agents stay, so `hydra merge <run> <agent>`
 * still works after a headless run; `hydra clean` removes them.
 */
export const cleanUpInput = (context: RaceContext): CleanUpInput => ({
  repoRoot: context.repo?.root ?? context.options.repoPath,
  keepWorktrees: context.options.keepWorktrees,
  launches: context.launches,
  keepBranchesOf: context.agents.filter((agent) => agent.status === 'completed').map((agent) => agent.agent),
  keepWorktreesOf: uncommittedAgents(context),
});

/** Launched agents that settled without a diff: committing their work failed, it is only in their worktree. */
const uncommittedAgents = (context: RaceContext): AdapterId[] =>
  context.launches
    .map((launch) => launch.agent)
    .filter(
      (agent) =>
        context.settled.includes(agent) &&
        context.agents.find((snapshot) => snapshot.agent === agent)?.diff === null,
    );
