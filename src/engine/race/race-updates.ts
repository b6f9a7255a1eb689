/**
 * What the race machine's actions assign, as pure functions of its context and what arrived (the
 * agents' own updates are in agent-updates.ts). None of them throws or does I/O.
 */
import { crossTestWarnings } from '../checks/index.js';
import type { CrossTestOutput } from '../checks/index.js';
import { toErrorInfo } from '../errors.js';
import type { AgentProbeReport } from '../probe-types.js';
import { withImageCli } from '../probe/index.js';
import type { RoundStart } from './race-rounds.js';
import type {
  MergeRequestEvent,
  RaceContext,
  ReopenedWorkspace,
  ShellDone,
  Workspace,
} from './race-types.js';
import { applyProbeReports, noUsableAgentError, updateAgent } from './agent-updates.js';
import type { RepoCheck } from '../git/index.js';

/**
 * The worktrees could not be made: the agents that were to race failed before starting, for that
 * reason (not for anything of theirs).
 */
export const failWorkspace = (context: RaceContext, failure: unknown): Partial<RaceContext> => {
  const error = toErrorInfo(failure);
  return {
    error,
    endedAt: Date.now(),
    agents: context.agents.map((agent) =>
      agent.status === 'pending' ? { ...agent, status: 'failed' as const, error } : agent,
    ),
  };
};

/** The worktrees are made: each agent is spawning, on its branch and in its worktree. */
export const applyWorkspace = (context: RaceContext, workspace: Workspace): Partial<RaceContext> => {
  let agents = context.agents;
  for (const launch of workspace.launches) {
    agents = updateAgent(agents, launch.agent, (agent) => ({
      ...agent,
      status: 'spawning',
      branch: launch.branch,
      worktree: launch.worktree,
      sandbox: launch.sandbox?.mechanism ?? null,
      port: launch.port ?? null,
      // Said for a container agent only: absent is `local`, as in records written before runners.
      ...(launch.container ? { runner: 'container' as const, host: launch.container.host } : {}),
    }));
  }
  const warnings = (workspace.warnings ?? []).filter((warning) => !context.warnings.includes(warning));
  // Container agents run the CLI in their image: its capabilities and version are what they report.
  const images = workspace.imageCapabilities ?? {};
  agents = agents.map((agent) => {
    const capabilities = images[agent.agent];
    return capabilities === undefined
      ? agent
      : { ...agent, capabilities, inferredFlags: capabilities.confidence === 'inferred' };
  });
  return {
    reports: context.reports.map((report) => withImageCli(report, images[report.agent])),
    launches: workspace.launches,
    recordDir: workspace.recordDir,
    agents,
    ...(warnings.length === 0 ? {} : { warnings: [...context.warnings, ...warnings] }),
  };
};

/** A reopened run's probe: each agent's capabilities (a rerun's are its original's). */
export const applyReopenProbe = (
  context: RaceContext,
  reports: AgentProbeReport[],
): Partial<RaceContext> => ({
  reports,
  agents: context.agents.map((agent) => {
    const report = reports.find((item) => item.agent === (agent.rerunOf ?? agent.agent));
    return report === undefined ? agent : { ...agent, capabilities: report.capabilities };
  }),
});

/**
 * A recorded run reopened: every agent settled, named by the branches and worktrees still there,
 * with what its branch changes since the race's base, file by file (the record keeps the counts only).
 */
export const applyReopened = (context: RaceContext, workspace: ReopenedWorkspace): Partial<RaceContext> => ({
  launches: workspace.launches,
  recordDir: workspace.recordDir,
  settled: context.agents.map((agent) => agent.agent),
  agents: context.agents.map((agent) => {
    const launch = workspace.launches.find((item) => item.agent === agent.agent);
    if (launch === undefined) return { ...agent, branch: null, worktree: null };
    return {
      ...agent,
      worktree: workspace.worktreesOnDisk.includes(launch.worktree) ? launch.worktree : null,
      diff: workspace.diffs[agent.agent] ?? agent.diff,
    };
  }),
  pendingRound: context.options.reopen?.round ?? null,
});

/**
 * Cancelled before they were launched (during the repository check, probing or worktree creation):
 * they were stopped, not skipped for being unusable.
 */
export const cancelUnstarted = (context: RaceContext): Partial<RaceContext> => ({
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
});

/** A merge of an agent that did not complete is refused, saying why. */
export const rejectMerge = (context: RaceContext, request: MergeRequestEvent): Partial<RaceContext> => {
  const agent = context.agents.find((snapshot) => snapshot.agent === request.agent);
  const message =
    agent === undefined
      ? `${request.agent} did not take part in this race.`
      : `${agent.displayName} did not complete (status: ${agent.status}), so there is nothing to merge.`;
  return {
    mergeAttempts: context.mergeAttempts + 1,
    mergeError: { kind: 'Refused' as const, message, hint: 'Pick an agent whose status is completed.' },
  };
};

/** The user's shell in an agent's worktree ended: its worktree, diff and warnings as they are now. */
export const applyShell = (context: RaceContext, shell: ShellDone): Partial<RaceContext> => ({
  agents: updateAgent(context.agents, shell.agent, (agent) => ({
    ...agent,
    worktree: shell.worktree,
    diff: shell.diff ?? agent.diff,
    warnings: [...agent.warnings, ...shell.warnings.filter((warning) => !agent.warnings.includes(warning))],
  })),
});

/** Another round starts: its launch replaces the agent's last, and the agent is live again. */
export const applyRound = (context: RaceContext, start: RoundStart): Partial<RaceContext> => {
  const known = context.agents.some((agent) => agent.agent === start.agent.agent);
  return {
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
  };
};

/** A round asked for from the dashboard could not start: a warning, and the race reviews on. */
export const applyRoundError = (context: RaceContext, failure: unknown): Partial<RaceContext> => {
  const error = toErrorInfo(failure);
  return {
    roundAttempts: context.roundAttempts + 1,
    roundError: error,
    pendingRound: null,
    warnings: [...context.warnings, `${error.message} ${error.hint}`],
  };
};

/** The round the run was reopened for (`hydra continue`, `hydra rerun`) could not start: the run fails. */
export const failRound = (context: RaceContext, failure: unknown): Partial<RaceContext> => ({
  roundAttempts: context.roundAttempts + 1,
  roundError: toErrorInfo(failure),
  pendingRound: null,
  error: toErrorInfo(failure),
});

/** The race was cancelled before the baseline's checks finished: they were stopped, with the race. */
export const cancelBaseline = (context: RaceContext): Partial<RaceContext> =>
  context.baseline?.status === 'running'
    ? {
        baseline: {
          status: 'cancelled' as const,
          checks: [],
          error: "The race was cancelled before the baseline's checks finished.",
        },
      }
    : {};

/** A merge failed: its error, and under --auto-merge best the reason nothing was merged. */
export const applyMergeError = (context: RaceContext, failure: unknown): Partial<RaceContext> => {
  const mergeError = toErrorInfo(failure);
  return {
    mergeError,
    ...(context.options.autoMerge === 'best' && context.mergeNote === null
      ? { mergeNote: `--auto-merge best could not merge: ${mergeError.message}` }
      : {}),
  };
};

/** The repository is checked: the caller's warnings (e.g. ignored keys of an untrusted hydra.toml) first. */
export const applyRepo = (context: RaceContext, repo: RepoCheck): Partial<RaceContext> => {
  const reopen = context.options.reopen;
  return {
    // A reopened run keeps the base it raced from: the user's branch may have moved on since, and
    // every diff, rerun, check and hint of the run is against the race's base, never today's HEAD.
    repo: reopen === undefined ? repo : { ...repo, baseRef: reopen.baseRef, baseBranch: reopen.baseBranch },
    warnings: [...(context.options.warnings ?? []), ...repo.warnings],
  };
};

/** No agent can race: each one's reason, and the race fails. */
export const failNoUsableAgent = (
  context: RaceContext,
  reports: AgentProbeReport[],
): Partial<RaceContext> => ({
  ...applyProbeReports(context, reports),
  error: noUsableAgentError(reports),
  endedAt: Date.now(),
});

/** The clean-up failed part-way: a warning naming the command that finishes it. */
export const warnCleanUp = (context: RaceContext, failure: unknown): Partial<RaceContext> => ({
  warnings: [
    ...context.warnings,
    `Clean-up was incomplete: ${toErrorInfo(failure).message} Run \`hydra clean\`.`,
  ],
});

/**
 * Cross-testing is done: each agent's new tests (none: the field goes), and a warning in both panes
 * where a result fails another agent's reproduction; a race-level warning when it could not run.
 */
export const applyCrossTests = (context: RaceContext, output: CrossTestOutput): Partial<RaceContext> => {
  const withTests = context.agents.map((agent) => {
    const { newTests: _old, ...rest } = agent;
    const newTests = output.results[agent.agent];
    return newTests === undefined ? rest : { ...rest, newTests };
  });
  const warnings = crossTestWarnings(withTests);
  return {
    agents: withTests.map((agent) => {
      const added = (warnings.get(agent.agent) ?? []).filter((warning) => !agent.warnings.includes(warning));
      return added.length === 0 ? agent : { ...agent, warnings: [...agent.warnings, ...added] };
    }),
    ...(output.error === null
      ? {}
      : { warnings: [...context.warnings, `cross-testing could not run: ${output.error}`] }),
  };
};
