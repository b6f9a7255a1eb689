/**
 * What the race machine's actors are given, built from its context. None of these throws (a throw
 * in an invoke's `input` would crash the race instead of reaching the state's onError): what cannot
 * be built is returned as a problem the actor rejects with (prepared.ts).
 */
import path from 'node:path';
import type { ErrorInfo } from '../../core/events.js';
import type { BaselineInput, CrossTestInput } from '../checks/index.js';
import type { RepoCheck } from '../git/index.js';
import { sharedDirs } from '../setup/index.js';
import type { RacePlace } from '../setup/index.js';
import {
  agentPrivateGitDir,
  knownSecrets,
  runRecordDir,
  runWorktreesDir,
  worktreePoolDir,
} from '../records/index.js';
import { BASELINE_AGENT, setupPlanOf } from '../setup/index.js';
import type { AgentName } from '../agent-name.js';
import { baselineContainer, checksContainer } from '../container/index.js';
import type { Prepared } from './prepared.js';
import { crossTestAgents, judgeContenders, roundProblem, uncommittedAgents } from './race-decisions.js';
import { JUDGE_TIMEOUT_MS } from '../judge/index.js';
import { DEFAULT_SANDBOX, racePolicy, STATE_DIR } from '../sandbox/index.js';
import type { SandboxPolicy } from '../sandbox/index.js';
import type { JudgeInput } from '../judge/index.js';
import type { ReopenInput } from './race-reopen.js';
import type { RoundInput } from './race-rounds.js';
import type { CleanUpInput, MergeInput, ProbeInput, RaceContext, WorkspaceInput } from './race-types.js';

/**
 * The repository found by the check. Every state after checkingRepo is reached only through its
 * onDone (applyRepo), so it is set; should that ever change, the actor fails with this message.
 */
const withRepo = <T extends object>(context: RaceContext, build: (repo: RepoCheck) => T): Prepared<T> =>
  context.repo !== null
    ? build(context.repo)
    : {
        problem: {
          kind: 'AgentFailed',
          message: `The race left checkingRepo without a repository (run ${context.runId}).`,
          hint: 'Please report this bug; run `hydra clean` to remove what the race left.',
        },
      };

export const checkRepoInput = (context: RaceContext): { repoPath: string } => ({
  repoPath: context.options.repoPath,
});

export const probeInput = (context: RaceContext): ProbeInput => ({
  plans: context.options.agents,
  allowExperimental: context.options.allowExperimental,
  unsafe: context.options.unsafe,
  repoRoot: context.repo?.root ?? context.options.repoPath,
  cacheDir: context.options.cacheDir ?? null,
  processes: context.processes,
  missingHints: context.options.missingHints ?? {},
});

export const workspaceInput = (
  context: RaceContext,
  report?: WorkspaceInput['report'],
): Prepared<WorkspaceInput> =>
  withRepo(context, (repo) => ({
    options: context.options,
    repo,
    startedAt: context.startedAt,
    reports: context.reports.filter((report) => report.status === 'ready'),
    processes: context.processes,
    ports: context.ports,
    ...(report === undefined ? {} : { report }),
  }));

export const reopenInput = (context: RaceContext): Prepared<ReopenInput> => {
  const reopen = context.options.reopen;
  if (reopen === undefined)
    return {
      problem: {
        kind: 'AgentFailed',
        message: `Run ${context.runId} is being reopened without a record to reopen.`,
        hint: 'Please report this bug.',
      },
    };
  return withRepo(context, (repo) => ({ options: context.options, repo, reports: context.reports, reopen }));
};

/** What preparing the pending round needs: the agent, its launch, the race's options and probe. */
export const roundInput = (context: RaceContext): Prepared<RoundInput> => {
  const request = context.pendingRound;
  if (request === null)
    return {
      problem: {
        kind: 'AgentFailed',
        message: `Run ${context.runId} prepares a round nobody asked for.`,
        hint: 'Please report this bug.',
      },
    };
  const problem = roundProblem(context, request);
  const agent = context.agents.find((item) => item.agent === request.agent);
  const launch = context.launches.find((item) => item.agent === request.agent);
  if (problem !== null || agent === undefined || launch === undefined)
    return { problem: problem ?? noResult(context, request.agent) };
  return withRepo(context, (repo) => ({
    request,
    options: context.options,
    repo,
    reports: context.reports,
    agent,
    launch,
    taken: context.agents.map((item) => item.agent),
    processes: context.processes,
    ports: context.ports,
  }));
};

const noResult = (context: RaceContext, agent: AgentName): ErrorInfo => ({
  kind: 'Refused',
  message: `${agent} has no result in run ${context.runId} to work on.`,
  hint: `Pick an agent whose branch is still there (\`hydra show ${context.runId}\` lists them).`,
});

/**
 * The sandbox of the race's own commands, when its agents are sandboxed (an agent's launch has a
 * policy): nothing of the verdict runs outside the jail (issue 35). The run record and the agents'
 * worktrees, scratch and private git directories are not theirs to read.
 */
const raceSandbox = (context: RaceContext, repo: RepoCheck): SandboxPolicy | null => {
  const mechanism = context.launches.find((launch) => launch.sandbox)?.sandbox?.mechanism;
  return mechanism === undefined
    ? null
    : racePolicy({
        mechanism,
        settings: context.options.sandbox ?? DEFAULT_SANDBOX,
        env: process.env,
        denyRead: [
          runRecordDir(repo.root, context.runId),
          // The agents' copies of their CLIs' state: credentials among them.
          path.join(runWorktreesDir(context.options.worktreeRoot, repo.root, context.runId), STATE_DIR),
          ...context.launches.flatMap((launch) => [
            launch.worktree,
            launch.scratchDir,
            agentPrivateGitDir(
              runWorktreesDir(context.options.worktreeRoot, repo.root, context.runId),
              launch.agent,
            ),
          ]),
        ],
      });
};

/**
 * Where and how the race runs the commands that are no agent's own (the baseline's checks,
 * cross-testing): built here, once, for both. Its setup plan logs to `setup-baseline.log`;
 * cross-testing writes each tree's log beside it.
 */
const racePlace = (context: RaceContext, repo: RepoCheck): RacePlace => ({
  repoRoot: repo.root,
  runId: context.runId,
  processes: context.processes,
  slots: context.checkSlots,
  graceMs: context.options.killGraceMs,
  secrets: context.options.agents.flatMap((plan) => knownSecrets(plan.env)),
  // Cross-testing's: no credential but those passed; the baseline's: the whole (checks/baseline.ts).
  environment: { pass: context.options.checkPassEnv ?? [] },
  copy: context.options.setup?.copy ?? [],
  shared: sharedDirs(repo.root, context.options.setup?.share ?? []).dirs,
  ports: context.ports,
  setup: setupPlanOf(context.options.setup, runRecordDir(repo.root, context.runId), 'baseline'),
  // Where the agents' checks run (their image, on a local engine), so the comparison is fair.
  container: baselineContainer(context.launches, BASELINE_AGENT),
  sandbox: raceSandbox(context, repo),
});

/** What the baseline's checks need: the race's place, the base commit, the run's worktree directory, the checks. */
export const baselineInput = (context: RaceContext): Prepared<BaselineInput> =>
  withRepo(context, (repo): BaselineInput => ({
    ...racePlace(context, repo),
    baseRef: repo.baseRef,
    runDir: runWorktreesDir(context.options.worktreeRoot, repo.root, context.runId),
    // Nothing to run when the baseline is not (or no longer) running: a later round reuses it.
    checks: context.baseline?.status === 'running' ? (context.options.checks ?? []) : [],
  }));

/** Cross-testing's input: the race's place and checks, and every completed agent's branch (see crossTestDue). */
export const crossTestInput = (context: RaceContext): Prepared<CrossTestInput> =>
  withRepo(context, (repo): CrossTestInput => ({
    ...racePlace(context, repo),
    baseRef: repo.baseRef,
    runDir: runWorktreesDir(context.options.worktreeRoot, repo.root, context.runId),
    checks: context.options.checks ?? [],
    agents: crossTestAgents(context),
    agentContainers: Object.fromEntries(
      context.launches.map((launch) => [launch.agent, checksContainer(launch)]),
    ),
  }));

/**
 * `--stop first-verified` with cross-testing: the settled rivals' tests on the candidate's result
 * (and the base, and each other's), as cross-testing runs them, in a directory of their own
 * (`<run dir>/.verify`) so the race's own cross-testing never meets what a stopped one left.
 */
export const verifyInput = (
  context: RaceContext,
  candidate: AgentName,
): { candidate: AgentName; cross: Prepared<CrossTestInput> } => {
  const cross = crossTestInput(context);
  return {
    candidate,
    cross: 'problem' in cross ? cross : { ...cross, runDir: path.join(cross.runDir, '.verify') },
  };
};

/**
 * What asking the judge needs: the contenders' branches and checks, a scratch directory of the
 * run's own outside the repository (not a worktree), the time limit. Null without a repository.
 */
export const judgeInput = (context: RaceContext): JudgeInput | null => {
  const judge = context.options.judge;
  if (judge === undefined || context.repo === null) return null;
  const contenders = judgeContenders(context).flatMap((agent) => {
    const launch = context.launches.find((item) => item.agent === agent);
    const snapshot = context.agents.find((item) => item.agent === agent);
    return launch === undefined ? [] : [{ agent, branch: launch.branch, checks: snapshot?.checks ?? [] }];
  });
  const runDir = runWorktreesDir(context.options.worktreeRoot, context.repo.root, context.runId);
  return {
    plan: judge,
    task: context.options.prompt,
    contenders,
    repoRoot: context.repo.root,
    baseRef: context.repo.baseRef,
    scratchDir: path.join(runDir, '.judge'),
    runId: context.runId,
    processes: context.processes,
    cacheDir: context.options.cacheDir ?? null,
    prices: context.options.prices,
    timeoutMs:
      context.options.timeoutMs > 0
        ? Math.min(context.options.timeoutMs, JUDGE_TIMEOUT_MS)
        : JUDGE_TIMEOUT_MS,
    graceMs: context.options.killGraceMs ?? 5000,
    // Sandboxed where the agents are.
    ...(context.options.sandbox === undefined ? {} : { sandbox: context.options.sandbox }),
    // The race's budget: the judge is not asked once the agents spent it.
    budgetSpent:
      context.options.maxCostUsd !== undefined &&
      context.agents.reduce((sum, agent) => sum + (agent.usage.costUsd ?? 0), 0) >=
        context.options.maxCostUsd,
  };
};

/**
 * What merging the requested agent needs: its repository, the other worktrees, the options. The
 * merging state is entered only through acceptMerge, which sets the request.
 */
export const mergeInput = (context: RaceContext): MergeInput => {
  const event = context.mergeRequest;
  if (event === null)
    return {
      problem: {
        kind: 'AgentFailed',
        message: `Run ${context.runId} began merging without a merge request.`,
        hint: 'Please report this bug.',
      },
    };
  const uncommitted = uncommittedAgents(context);
  return withRepo(context, (repo) => ({
    root: repo.root,
    runId: context.runId,
    agent: event.agent,
    prompt: context.options.prompt,
    baseBranch: repo.baseBranch,
    baseRef: repo.baseRef,
    worktrees: context.launches
      .filter((launch) => !uncommitted.includes(launch.agent))
      .map((launch) => launch.worktree),
    branches: context.launches.map((launch) => launch.branch),
    agentWorktree: uncommitted.includes(event.agent)
      ? null
      : (context.launches.find((launch) => launch.agent === event.agent)?.worktree ?? null),
    options: {
      ...event.options,
      keepWorktrees: event.options.keepWorktrees ?? context.options.keepWorktrees,
    },
  }));
};

/**
 * What ending a race without a merge (or after `--auto-merge best` merged) removes: every worktree
 * (unless kept) and the branches of agents that did not complete (except those stopped for their
 * budget). Branches of completed agents stay, so `hydra merge <run> <agent>` still works after a
 * headless run; `hydra clean` removes them.
 */
export const cleanUpInput = (context: RaceContext): CleanUpInput => ({
  repoRoot: context.repo?.root ?? context.options.repoPath,
  keepWorktrees: context.options.keepWorktrees,
  launches: context.launches,
  // A completed result, and the work so far of an agent stopped for its budget (like a time limit, it
  // did not fail on its own: its branch is kept to look at or to continue from).
  keepBranchesOf: context.agents
    .filter(
      (agent) =>
        agent.status === 'completed' ||
        agent.error?.kind === 'BudgetExceeded' ||
        // Stopped because another result was verified first (--stop first-verified).
        (context.stoppedEarly?.agents.includes(agent.agent) ?? false),
    )
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
