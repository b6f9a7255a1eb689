/**
 * The agent machine's named actors besides its process (agent-process.ts): waiting for room on a
 * container host, the worktree's setup, the warm-up of git's answer, the commit of its work and its
 * checks. Each takes plain data as input; tests replace them with `agentMachine.provide({ actors })`.
 */
import { fromCallback, fromPromise } from 'xstate';
import { HydraError } from '../../core/hydra-error.js';
import type { AgentLaunch, FinalizeInput, FinalizeOutput } from './agent-types.js';
import type { Limiter, ProcessRegistry } from '../process/index.js';
import type { CheckRun } from '../check-types.js';
import { runChecksOnCommit } from '../checks/index.js';
import type { CommitCheckPlace } from '../checks/index.js';
import { knownSecrets } from '../records/index.js';
import { knowRepository } from '../git/index.js';
import { finalizeWork } from './finalize.js';
import { treePolicy } from '../sandbox/index.js';
import { runSetup, worktreeShares, writeSetupRecord } from '../setup/index.js';
import type { SetupOutcome } from '../setup/index.js';
import { checksContainer, leaveRoom, setupContainer, waitForRoom } from '../container/index.js';

/** Waits for room on a container agent's host (container/slots.ts), saying why while it waits. */
export const waitForRoomLogic = fromCallback<
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

export const finalizeResultLogic = fromPromise<FinalizeOutput, FinalizeInput>(({ input }) =>
  finalizeWork(input),
);

/** What the agent's checks need: its launch, where they run, and the race's check slots. */
export interface ChecksInput {
  launch: AgentLaunch;
  place: Omit<CommitCheckPlace, 'signal' | 'slots'>;
  /** Null only if checks were started without the race's slots (checksDue requires them). */
  slots: Limiter | null;
}

/** The agent's checks, in a clean checkout of its committed result (never its worktree). */
export const runChecksLogic = fromPromise<CheckRun[], ChecksInput>(async ({ input, signal }) => {
  if (input.slots === null) throw new Error(`Checks of ${input.launch.agent} were due with no check slots.`);
  // A sandboxed agent's checks run sandboxed too, with their clean checkout writable.
  const sandbox = input.launch.sandbox ? treePolicy(input.launch.sandbox, input.place.dir) : null;
  const contractDir = input.place.contractDir;
  const contractSandbox =
    input.launch.sandbox && contractDir !== undefined ? treePolicy(input.launch.sandbox, contractDir) : null;
  const specs = input.launch.checks ?? [];
  return runChecksOnCommit(specs, {
    ...input.place,
    slots: input.slots,
    signal,
    sandbox,
    contractSandbox,
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
export const runSetupLogic = fromPromise<SetupOutcome, { launch: AgentLaunch; processes: ProcessRegistry }>(
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
      // Before round 1 (a race's, a rerun's) its worktree holds the base: the whole environment.
      // A follow-up's worktree made again holds its result: no credential but those passed.
      environment: { pass: launch.checkPassEnv ?? [], ...((launch.round ?? 1) === 1 ? { whole: true } : {}) },
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
export const knowRepositoryLogic = fromPromise<void, { repoRoot: string }>(async ({ input }) =>
  knowRepository(input.repoRoot),
);
