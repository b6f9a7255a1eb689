/**
 * The race's workspace, the `createWorkspace` actor: the run record started, the user's refs
 * snapshotted, container agents placed on their engines, and each agent's worktree (new, or taken
 * from the pool), branch, scratch directory and launch. A failure part-way rolls back what it made.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fromPromise } from 'xstate';
import type { AgentLaunch } from '../agent/index.js';
import { agentNameOf } from '../agent-name.js';
import { EngineError } from '../errors.js';
import {
  agentPrivateGitDir,
  agentScratchDir,
  agentWorktreeDir,
  branchName,
  defaultCacheDir,
  isInside,
  runRecordDir,
  runWorktreesDir,
  worktreePoolDir,
} from '../records/index.js';
import { withImageCli } from '../probe/index.js';
import {
  RUN_ID_ENV,
  prepareContainment,
  prewrapSandboxedCommand,
  processInfo,
  refusalKey,
} from '../process/index.js';
import type { ProcessRegistry } from '../process/index.js';
import type { Workspace, WorkspaceInput } from './race-types.js';
import type { RunMeta } from '../records/index.js';
import { recordableConfig, redactValue, writeMeta } from '../records/index.js';
import { rememberRepository } from '../ledger/index.js';
import { HYDRA_EXCLUDES, ensureExcluded, knowRepository, largeCheckout, snapshotRefs } from '../git/index.js';
import type { RefSnapshot } from '../git/index.js';
import type { AgentPlan } from '../agent-plan.js';
import type { AgentProbeReport } from '../probe-types.js';
import type { Capabilities } from '../../adapters/types.js';
import { hydraVersion } from '../version.js';
import { trackWork } from './work-tracker.js';
import { buildLaunch, containerLaunch, prepareAgentGit } from './agent-launch.js';
import { ensureCliState, sandboxVerdict, unsandboxedWarning } from '../sandbox/index.js';
import { readCursorSetup, setupFingerprint, setupPlanOf, writeSetupRecord } from '../setup/index.js';
import {
  containerLabels,
  containerRunner,
  DEFAULT_CONTAINER,
  discardPrecreated,
  precreateContainer,
} from '../container/index.js';
import type { ContainerLaunch } from '../container/index.js';
import { devcontainerStep } from './race-image.js';
import type { SandboxVerdict } from '../sandbox/index.js';
import { remoteShareWarnings, sharedDirs, shareWarning } from '../setup/index.js';
import { trace } from '../../trace.js';
import { copyIncludedFiles } from '../setup/index.js';
import { usable } from './prepared.js';
import type { Prepared } from './prepared.js';
import {
  assertWorktreeFree,
  branchExists,
  createWorktree,
  deleteBranch,
  removeRunDirIfEmpty,
  removeWorktree,
  takePooledWorktree,
} from '../git/index.js';

const interrupted = (): EngineError =>
  new EngineError({
    kind: 'Interrupted',
    message: 'The race was cancelled while its worktrees were being created.',
    hint: 'Nothing is left behind; start a new race when ready.',
  });

const baseMeta = (input: WorkspaceInput, launches: AgentLaunch[]): RunMeta => ({
  runId: input.options.runId,
  prompt: input.options.prompt,
  promptSha256: createHash('sha256').update(input.options.prompt).digest('hex'),
  repoRoot: input.repo.root,
  baseRef: input.repo.baseRef,
  baseBranch: input.repo.baseBranch,
  startedAt: input.startedAt,
  pid: process.pid,
  pidStartTime: processInfo(process.pid)?.startTime ?? null,
  hydraVersion: hydraVersion(),
  // Env values are never written (only their keys), and key-like strings are redacted.
  config: recordableConfig(input.options.configSnapshot ?? null),
  agents: input.reports.map((report) => {
    const launch = launches.find((item) => item.agent === report.agent);
    const runDir = runWorktreesDir(input.options.worktreeRoot, input.repo.root, input.options.runId);
    return {
      agent: report.agent,
      adapter: report.adapterId,
      branch: branchName(input.options.runId, report.agent),
      worktree: agentWorktreeDir(runDir, report.agent),
      version: report.version,
      capabilities: report.capabilities,
      command: launch === undefined ? [] : redactValue([launch.command.file, ...launch.command.args]),
    };
  }),
});

/**
 * The race's container agents placed on their engines (least busy first), each CLI probed in the
 * image on its host (src/engine/container/placement.ts), with a dev container's image built where
 * it is missing (src/engine/devcontainer).
 */
const placeAgents = (input: WorkspaceInput, recordDir: string, signal: AbortSignal) => {
  const image = devcontainerStep(
    input.reports.flatMap((report) => {
      const plan = input.options.agents.find((item) => agentNameOf(item) === report.agent);
      const container = plan === undefined ? null : containerLaunch(plan, input.options);
      if (container === null || report.capabilities === null) return [];
      // What its container runs: a configured path, else the name the host's probe found.
      const binary = container.binaryPath ?? path.basename(report.binary ?? report.capabilities.binary);
      return [{ agent: report.agent, container, cli: { adapterId: report.adapterId, binary } }];
    }),
    input.options.container ?? DEFAULT_CONTAINER,
    { repoRoot: input.repo.root, recordDir, signal, report: input.report },
  );
  return containerRunner.place(
    image.launches,
    image.settings,
    {},
    {
      cacheDir: input.options.cacheDir ?? defaultCacheDir(input.repo.root),
      // The probe's containers are the run's: a killed hydra's watchdog and `hydra clean` remove them.
      labels: containerLabels({ runId: input.options.runId, agent: 'probe', repoRoot: input.repo.root }),
      watchHost: (host) => input.processes.watchContainerHost(host),
    },
  );
};

/** The workspace itself; what it made is listed in `created` as it goes, for the rollback. */
async function buildWorkspace(
  input: WorkspaceInput,
  signal: AbortSignal,
  created: Array<{ worktree: string; branch: string }>,
): Promise<Workspace> {
  const { options, repo } = input;
  const recordDir = runRecordDir(repo.root, options.runId);
  const runDir = runWorktreesDir(options.worktreeRoot, repo.root, options.runId);
  // Container agents: their engines, and their CLIs probed in the image there (the command is built
  // for what the image has), while the rest goes on; before any worktree is made.
  const placing = placeAgents(input, recordDir, signal);
  placing.catch(() => undefined);
  if (isInside(repo.root, path.resolve(options.worktreeRoot))) {
    // Worktrees in the repository would show up in `git status`, and `git add -A` would commit them.
    throw new EngineError({
      kind: 'InvalidConfig',
      message: `The worktree root ${path.resolve(options.worktreeRoot)} is inside the repository ${repo.root}.`,
      hint: 'Set HYDRA_WORKTREE_ROOT to a directory outside the repository (or unset it for ~/.cache/hydra/worktrees).',
    });
  }
  // `[setup] share` checked against the checkout before anything is made: a refused one is a config error.
  const shared = sharedDirs(repo.root, options.setup?.share ?? []);
  const shareNotes = [...shared.warnings, shareWarning(shared.dirs)].filter((note) => note !== null);
  // The user's refs before any agent runs: each agent's settling puts back what it changed. Read
  // while the exclude file and the record are written.
  const refsRead = snapshotRefs(repo.root, options.runId);
  // The common git directory each agent's settling pins its worktree to: asked of git now, while
  // the repository is whole (an agent may damage HEAD before its own warm-up asks).
  knowRepository(repo.root);
  refsRead.catch(() => undefined);
  await ensureExcluded(repo.root, HYDRA_EXCLUDES);
  // Written before any worktree exists, so a crash from here on is found and cleaned later.
  writeMeta(recordDir, baseMeta(input, []));
  // `hydra stats --all` reads the records of every repository raced in (engine/ledger).
  rememberRepository(repo.root);
  trace('race: run record started');
  const refsAtStart = await refsRead;
  trace('race: refs snapshotted');
  // Checked since the race started (guardRace), while the record was started: `required` on a
  // machine that cannot is refused here, before any worktree exists.
  const sandbox = await sandboxVerdict(options.sandbox);
  // In a large repository the agents' checkouts run at once (createWorktree).
  const separateCheckout = input.reports.length > 1 && (await largeCheckout(repo.root));
  // A pooled worktree keeps its setup's output while this stays the same (src/engine/setup).
  const setupPrint = await pooledSetupFingerprint(input);
  const placed = await placing;
  // The agents are prepared together (git's `worktree add` itself runs one at a time, see
  // createWorktree); all are awaited before a failure is reported, so a rollback never races one.
  const prepared = await Promise.allSettled(
    input.reports.map(async (report): Promise<AgentLaunch | null> => {
      if (signal.aborted) throw interrupted();
      const plan = options.agents.find((item) => agentNameOf(item) === report.agent);
      if (plan === undefined || report.capabilities === null) return null;
      const spot = placed.launches.find((item) => item.agent === report.agent)?.container;
      return prepareAgent(
        { input, signal, created, recordDir, runDir, refsAtStart, separateCheckout, sandbox, setupPrint },
        report,
        plan,
        placed.capabilities[report.agent] ?? report.capabilities,
        spot ?? undefined,
      );
    }),
  );
  const failed = prepared.find((item) => item.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  const launches = prepared.flatMap((item) =>
    item.status === 'fulfilled' && item.value !== null ? [item.value] : [],
  );
  if (signal.aborted) throw interrupted();
  // A container agent's version is its image's (placement probed its CLI there).
  const reports = input.reports.map((report) => withImageCli(report, placed.capabilities[report.agent]));
  writeMeta(recordDir, baseMeta({ ...input, reports }, launches));
  // Started with the race (guardRace): the agents spawn in what it found.
  await prepareContainment();
  trace('race: workspace ready');
  const warnings = [
    ...(sandbox.sandboxed || sandbox.why === null ? [] : [unsandboxedWarning(sandbox.why)]),
    ...shareNotes,
    ...remoteShareWarnings(shared.dirs, launches),
    ...placed.warnings,
  ];
  return {
    recordDir,
    launches,
    ...(warnings.length === 0 ? {} : { warnings }),
    ...(Object.keys(placed.capabilities).length === 0 ? {} : { imageCapabilities: placed.capabilities }),
  };
}

interface PrepareContext {
  input: WorkspaceInput;
  signal: AbortSignal;
  created: Array<{ worktree: string; branch: string }>;
  recordDir: string;
  runDir: string;
  refsAtStart: RefSnapshot;
  /** Check the worktree's files out after `worktree add`, beside the other agents' (createWorktree). */
  separateCheckout: boolean;
  sandbox: SandboxVerdict;
  /** The race's setup fingerprint when its worktrees are pooled, else null. */
  setupPrint: string | null;
}

/** The fingerprint of the race's setup, when it has setup commands and a worktree pool; else null. */
async function pooledSetupFingerprint({ options, repo }: WorkspaceInput): Promise<string | null> {
  const setup = options.setup;
  if (setup === undefined || setup.run.length === 0 || (options.worktreePool ?? 0) <= 0) return null;
  const cursor = setup.runSource === 'cursor' ? readCursorSetup(repo.root) : null;
  const scripts = cursor !== null && 'script' in cursor && cursor.script !== null ? [cursor.script] : [];
  return setupFingerprint(repo.root, repo.baseRef, setup, scripts);
}

/** One agent's worktree, branch, scratch directory and command. */
async function prepareAgent(
  {
    input,
    signal,
    created,
    recordDir,
    runDir,
    refsAtStart,
    separateCheckout,
    sandbox,
    setupPrint,
  }: PrepareContext,
  report: AgentProbeReport,
  plan: AgentPlan,
  capabilities: Capabilities,
  container?: ContainerLaunch,
): Promise<AgentLaunch> {
  const { options, repo } = input;
  const worktree = agentWorktreeDir(runDir, report.agent);
  const branch = branchName(options.runId, report.agent);
  // Someone else's (or an earlier run's) worktree or branch: refused, and not ours to roll back.
  await assertWorktreeFree(repo.root, worktree, branch, refsAtStart.runBranches);
  // Listed before git runs: a failed or interrupted `worktree add` can leave the branch or a
  // half-made worktree, and the rollback (or `hydra clean`, from meta.json) removes them.
  created.push({ worktree, branch });
  const port = await input.ports.lease(report.agent);
  const launch = {
    ...buildLaunch({
      options,
      repo,
      plan,
      agent: report.agent,
      capabilities,
      prompt: options.prompt,
      sandbox,
      port,
    }),
    ...(container === undefined ? {} : { container }),
  };
  const pooling = (options.worktreePool ?? 0) > 0;
  // Sandboxed: the command is wrapped while git makes the worktree (a pooled one is moved in first).
  const sharing = (options.setup?.share ?? []).length > 0;
  if (!pooling) await prewrapAgent(runDir, launch, input.processes, sharing);
  const gitOptions = {
    signal,
    step: `git worktree add for ${report.agent}`,
    graceMs: options.killGraceMs,
    // The run's marker: if hydra dies meanwhile, its watchdog and `hydra clean` find git and its filters.
    env: { [RUN_ID_ENV]: options.runId },
    processes: input.processes,
    owner: options.runId,
  };
  const pooled =
    pooling &&
    (await takePooledWorktree(
      repo.root,
      worktreePoolDir(options.worktreeRoot, repo.root),
      worktree,
      branch,
      repo.baseRef,
      { ...gitOptions, step: `reset of a pooled worktree for ${report.agent}` },
      setupPrint === null ? null : { fingerprint: setupPrint },
    ));
  if (!pooled)
    await createWorktree(repo.root, worktree, branch, repo.baseRef, {
      ...gitOptions,
      separateCheckout,
    });
  trace(`race: worktree for ${report.agent} ${pooled ? 'taken from the pool' : 'created'}`);
  if (pooling) await prewrapAgent(runDir, launch, input.processes, sharing);
  await copyIncludedFiles({
    checkout: repo.root,
    target: worktree,
    patterns: options.setup?.copy ?? [],
    recordDir,
  });
  await mkdir(agentScratchDir(runDir, report.agent), { recursive: true });
  const kept = pooled === false ? null : pooled.kept;
  const setup = setupPlanOf(options.setup, recordDir, report.agent, {
    warm: kept === null ? null : { kept },
    fingerprint: setupPrint,
  });
  // Warm: nothing runs, and the worktree goes back to the pool as warm as it came.
  if (setup !== null && kept !== null) await writeSetupRecord(setup, kept);
  return prepareAgentGit({ ...launch, ...(setup === null ? {} : { setup }), refsAtStart });
}

/**
 * Starts wrapping a sandboxed agent's command in its sandbox (the library's wrap takes a while), so
 * that its spawn finds it wrapped (process/sandboxed.ts), or creating a container agent's container
 * on its host (src/engine/container/precreate.ts). The directories it may write are made first,
 * empty where missing (`git worktree add` fills an empty directory): the library leaves a missing
 * one out of the sandbox, read-only.
 */
async function prewrapAgent(
  runDir: string,
  launch: Omit<AgentLaunch, 'refsAtStart'>,
  processes: ProcessRegistry,
  sharing: boolean,
): Promise<void> {
  if (launch.container)
    await precreateContainer({ ...launch, container: launch.container }, processes, sharing);
  if (launch.sandbox === null || launch.sandbox === undefined) return;
  await mkdir(runDir, { recursive: true, mode: 0o700 });
  await Promise.all([
    mkdir(launch.worktree, { recursive: true }),
    mkdir(launch.scratchDir, { recursive: true }),
    mkdir(agentPrivateGitDir(runDir, launch.agent), { recursive: true, mode: 0o700 }),
  ]);
  // Its state copy is writable: made before the wrap, which leaves a missing directory read-only.
  if (launch.cliState) ensureCliState(launch.cliState);
  // The agent's PATH, as its spawn looks the binary up (agent-process.ts, supervisor.ts).
  const env = { ...launch.command.env, ...launch.env };
  await prewrapSandboxedCommand(
    launch.sandbox,
    launch.command.file,
    launch.command.args,
    env.PATH ?? process.env.PATH ?? '',
    refusalKey(launch.runId, launch.agent),
  );
}

/** Removes what a failed workspace made; true when nothing of it is left. */
async function rollBackWorkspace(
  input: WorkspaceInput,
  created: Array<{ worktree: string; branch: string }>,
): Promise<boolean> {
  let clean = true;
  for (const item of [...created].reverse()) {
    await removeWorktree(input.repo.root, item.worktree, path.dirname(item.worktree)).catch(() => undefined);
    await deleteBranch(input.repo.root, item.branch).catch(() => undefined);
    const left =
      existsSync(item.worktree) || (await branchExists(input.repo.root, item.branch).catch(() => true));
    if (left) clean = false;
  }
  await removeRunDirIfEmpty(
    runWorktreesDir(input.options.worktreeRoot, input.repo.root, input.options.runId),
  );
  return clean;
}

export const createWorkspaceLogic = fromPromise<Workspace, Prepared<WorkspaceInput>>(async (args) => {
  const input = usable(args.input);
  const { signal } = args;
  const created: Array<{ worktree: string; branch: string }> = [];
  const work = buildWorkspace(input, signal, created).catch(async (error: unknown) => {
    // Leave nothing half-made behind.
    await discardPrecreated(input.options.runId);
    const clean = await rollBackWorkspace(input, created);
    // Nothing ran: a record left here would be listed as a dead run. Unless something could not be
    // removed: then the record (meta.json names every worktree and branch) is how `hydra runs`
    // shows it and `hydra clean` removes it.
    if (clean) await rm(runRecordDir(input.repo.root, input.options.runId), { recursive: true, force: true });
    throw error;
  });
  return trackWork(input.options.runId, work);
});
