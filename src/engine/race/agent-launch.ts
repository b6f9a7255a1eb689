/**
 * One agent's launch: its command built by its adapter for a prompt (and, for a follow-up, the
 * session to resume), in its own worktree, with the timeouts, checks and budgets it runs under.
 * The first round (workspace.ts) and every later one (round-launch.ts) build it here, so a round
 * runs under the same rules as the first.
 */
import os from 'node:os';
import path from 'node:path';
import { adapterOf } from '../../adapters/registry.js';
import type { Capabilities } from '../../adapters/types.js';
import type { AgentLaunch } from '../agent/index.js';
import { preparePrivateGit } from '../git/index.js';
import type { RefSnapshot, RepoCheck } from '../git/index.js';
import { pricingModel } from '../probe/index.js';
import {
  agentPrivateGitDir,
  recordsRoot,
  agentScratchDir,
  agentWorktreeDir,
  branchName,
  runRecordDir,
  runWorktreesDir,
} from '../records/index.js';
import {
  agentPolicy,
  agentStateDir,
  cliStatePlan,
  configuredEndpoints,
  configuredVariables,
  cliStateReady,
  DEFAULT_SANDBOX,
  ensureCliState,
} from '../sandbox/index.js';
import type { CliStatePlan, SandboxPolicy, SandboxVerdict } from '../sandbox/index.js';
import { sharedDirs } from '../setup/index.js';
import type { AgentName } from '../agent-name.js';
import type { AgentPlan } from '../agent-plan.js';
import { setupPlanOf } from '../setup/index.js';
import type { SetupPlan } from '../setup/index.js';
import { DEFAULT_CONTAINER, DEFAULT_HOST, isLocalEngine, passedEnvNames } from '../container/index.js';
import type { ContainerLaunch } from '../container/index.js';
import type { ResolvedRaceOptions } from './race-types.js';

export interface LaunchRequest {
  options: ResolvedRaceOptions;
  repo: RepoCheck;
  plan: AgentPlan;
  /** The agent's name (a rerun's is `<name>-2`): its worktree, branch and scratch directory. */
  agent: AgentName;
  capabilities: Capabilities;
  prompt: string;
  resumeSessionId?: string;
  /** Whether the race's agents are sandboxed here (sandboxVerdict); absent: they are not. */
  sandbox?: SandboxVerdict;
  /** The first port of its block (the race's PortLeases); absent: none. */
  port?: number;
  /** Its worktree's setup commands, run before it starts (a new worktree's; none for a follow-up in its own). */
  setup?: SetupPlan | null;
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, V>);

/** The launch, without the refs snapshot the caller takes just before the agent starts. */
export function buildLaunch(request: LaunchRequest): Omit<AgentLaunch, 'refsAtStart'> {
  const { options, repo, plan, agent, capabilities, prompt } = request;
  // The CLI is the plan's adapter; the name only names things.
  const adapter = adapterOf(plan.adapterId);
  const runDir = runWorktreesDir(options.worktreeRoot, repo.root, options.runId);
  const worktree = agentWorktreeDir(runDir, agent);
  const scratchDir = agentScratchDir(runDir, agent);
  const sandboxed = request.sandbox?.sandboxed === true && plan.runner !== 'container';
  const cliState = agentCliState(adapter, plan, agentStateDir(runDir, agent), sandboxed);
  const env = { ...plan.env, ...cliState?.env };
  const userEnv = { ...process.env, ...plan.env };
  const sandbox: SandboxPolicy | null =
    request.sandbox?.sandboxed === true && plan.runner !== 'container'
      ? agentPolicy({
          mechanism: request.sandbox.mechanism,
          adapter,
          env: { ...process.env, ...env },
          worktree,
          scratchDir,
          privateGitDir: agentPrivateGitDir(runDir, agent),
          tmpDir: path.join(scratchDir, 'tmp'),
          settings: options.sandbox ?? DEFAULT_SANDBOX,
          // Read from the user's configuration, never from the agent's copy of it.
          endpoints: configuredEndpoints(adapter, userEnv, homeOf(userEnv), plan.extraArgs),
          // Every run's trees of this repository (its rivals', other races', the pool, the agents'
          // copies of their CLIs' state) and the run records; its own state copy stays readable.
          hidden: {
            area: path.dirname(runDir),
            records: recordsRoot(repo.root),
            ...(cliState === null || cliState === undefined ? {} : { own: [agentStateDir(runDir, agent)] }),
          },
        })
      : null;
  // Checked when the race starts (buildWorkspace); read again here, from that check.
  const shared = sharedDirs(repo.root, options.setup?.share ?? []).dirs;
  const command = adapter.buildCommand(
    {
      prompt,
      cwd: worktree,
      scratchDir,
      ...optional('model', plan.model),
      unsafe: options.unsafe,
      // A container is the agent's jail too, and a CLI's own sandbox cannot start inside one
      // (Codex's bubblewrap: "No permissions to create a new namespace"): full autonomy there.
      sandboxed: sandbox !== null || plan.runner === 'container',
      ...optional('maxTurns', plan.maxTurns),
      extraArgs: plan.extraArgs,
      env: plan.env,
      ...optional('resumeSessionId', request.resumeSessionId),
    },
    capabilities,
  );
  return {
    runId: options.runId,
    agent,
    adapter: adapter.id,
    displayName: adapter.displayName,
    command,
    env,
    cliState,
    // The variables its CLI's configuration reads a key from (the user's files, its extra arguments).
    configuredVariables: configuredVariables(adapter, userEnv, homeOf(userEnv), plan.extraArgs),
    parser: {
      // The configured model, else the CLI's own choice (Codex's config.toml), for pricing.
      ...optional('model', pricingModel(adapter, plan.model, { ...process.env, ...plan.env })),
      prices: options.prices,
      cwd: worktree,
      // What its tools' output says the sandbox refused becomes a warning (adapters/kit/refusals.ts).
      sandboxed: sandbox !== null,
    },
    repoRoot: repo.root,
    recordDir: runRecordDir(repo.root, options.runId),
    worktree,
    scratchDir,
    branch: branchName(options.runId, agent),
    baseRef: repo.baseRef,
    prompt,
    idleTimeoutMs: plan.idleTimeoutMs,
    timeoutMs: options.timeoutMs,
    graceMs: options.killGraceMs,
    ...optional('resultGraceMs', options.resultGraceMs),
    // The agent's own checks (overrides and additions, `[[agents.<name>.checks]]`), else the race's.
    ...optional('checks', plan.checks ?? options.checks),
    ...optional('maxCostUsd', plan.maxCostUsd),
    ...optional('raceMaxCostUsd', options.maxCostUsd),
    ...optional('copy', options.setup?.copy),
    ...optional('checkPassEnv', options.checkPassEnv),
    sandbox,
    ...(shared.length === 0 ? {} : { shared }),
    port: request.port ?? null,
    ...optional('setup', request.setup ?? undefined),
    // Its checks run in a fresh checkout of its result: set up the same way first.
    ...optional(
      'checksSetup',
      setupPlanOf(options.setup, runRecordDir(repo.root, options.runId), `check-${agent}`) ?? undefined,
    ),
    container: containerLaunch(plan, options),
  };
}

/**
 * The copy of its CLI's state a sandboxed agent runs with (sandbox/cli-state.ts), made from the
 * state of the home its environment names; also an unsandboxed round's when an earlier round of
 * the agent made one (its session is there). Null otherwise, and in a container (its own home).
 */
const agentCliState = (
  adapter: ReturnType<typeof adapterOf>,
  plan: AgentPlan,
  root: string,
  sandboxed: boolean,
): CliStatePlan | null => {
  if (plan.runner === 'container' || (!sandboxed && !cliStateReady(root))) return null;
  const env = { ...process.env, ...plan.env };
  return cliStatePlan(adapter, env, homeOf(env), root);
};

/** The home an environment names (an `[agents.X] env` HOME), else the user's. */
const homeOf = (env: Readonly<Record<string, string | undefined>>): string =>
  env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();

/**
 * A container agent's image, network and passed variables; its host is given by placeContainers
 * before it starts (the default engine until then). Null for an agent that runs on this machine.
 */
export const containerLaunch = (plan: AgentPlan, options: ResolvedRaceOptions): ContainerLaunch | null => {
  if (plan.runner !== 'container') return null;
  const settings = options.container ?? DEFAULT_CONTAINER;
  const host = settings.hosts[0] ?? DEFAULT_HOST;
  return {
    host,
    // resolveRace refuses a container runner without an image; a devcontainer's is built before the race.
    image: settings.image ?? '',
    network: settings.network,
    remote: !isLocalEngine(host),
    // Only the variables its own CLI reads: another CLI's key stays out (issue 35, case 6).
    passEnv: passedEnvNames(process.env, [adapterOf(plan.adapterId)]),
    ...(plan.binary !== undefined && path.isAbsolute(plan.binary) ? { binaryPath: plan.binary } : {}),
  };
};

/**
 * Whether an agent's git runs in its own repository (private-git.ts): where its process cannot
 * write the repository's shared git directory (the OS sandbox; the sandbox's decision goes here; a
 * container on a local engine, which gets that directory read-only), or when HYDRA_PRIVATE_GIT=1 asks for it. Without it, an agent's git writes the shared directory
 * as in any linked worktree, and what it changed of the user's refs and settings is put back and
 * named after it (ref-restore.ts, git-dir.ts).
 */
export const privateGitFor = (
  launch: { sandbox?: SandboxPolicy | null; container?: ContainerLaunch | null },
  env: NodeJS.ProcessEnv = process.env,
): boolean =>
  (launch.sandbox ?? null) !== null ||
  // A container on a local engine sees the shared git directory read-only (container-process.ts).
  (launch.container !== undefined && launch.container !== null && !launch.container.remote) ||
  env['HYDRA_PRIVATE_GIT'] === '1';

/**
 * Links the agent's worktree to its own git repository just before its process starts (every
 * round: the first, a rerun, each follow-up), when `privateGit` (by default privateGitFor), with the
 * repository's refs as `refsAtStart` read them: the agent's git works there without writing the
 * shared git directory, and its settling takes its commits back (private-git.ts). Its copy of its
 * CLI's state is made here too (once: a follow-up finds its session in it). Returns the launch as
 * given.
 */
export async function prepareAgentGit<
  T extends Omit<AgentLaunch, 'refsAtStart'> & { refsAtStart: RefSnapshot },
>(launch: T, privateGit: boolean = privateGitFor(launch)): Promise<T> {
  // Its own copy of its CLI's state, unless an earlier round made it (kept, with its session).
  if (launch.cliState) ensureCliState(launch.cliState);
  if (!privateGit) return launch;
  await preparePrivateGit({
    root: launch.repoRoot,
    worktree: launch.worktree,
    branch: launch.branch,
    refs: launch.refsAtStart.refs,
  });
  return launch;
}
