/**
 * The methods of a RaceHandle, each a small function of the running race: cancel, merge, finish
 * and getPatch. They send the machine an event and wait for the state that answers it; none of
 * them can hang on a race that is over or whose engine failed.
 */
import { waitFor } from 'xstate';
import type { Actor, SnapshotFrom } from 'xstate';
import type { AgentName } from '../agent-name.js';
import { EngineError } from '../errors.js';
import { existsSync } from 'node:fs';
import { finalizeWork } from '../agent/index.js';
import { fullPatch, reopenWorktree, snapshotRefs } from '../git/index.js';
import { RUN_ID_ENV, runInteractive } from '../process/index.js';
import type { ProcessRegistry } from '../process/index.js';
import type { MergeOptions } from '../results/index.js';
import type { MergeResult, RaceSummary } from '../records/index.js';
import type { RacePhase, RaceSnapshot, ShellRequest, ShellResult } from './race-handle.js';
import type { RoundRequest } from '../config/index.js';
import type { raceMachine } from './race-machine.js';
import { buildSummary, raceEnd } from './race-summary.js';
import { phaseOf } from './snapshot.js';
import { waitForWork } from './work-tracker.js';
import { copyIncludedFiles } from '../setup/index.js';

export type RaceMachine = typeof raceMachine;
export type RaceState = SnapshotFrom<RaceMachine>;

/** A started race, as its handle's methods see it. */
export interface RaceRun {
  readonly runId: string;
  readonly actor: Actor<RaceMachine>;
  readonly processes: ProcessRegistry;
  /** Set when the engine itself failed: the actor then takes no more events. */
  crashed: RaceSnapshot | null;
}

/** The race has nothing left to do: done, failed, or cancelled and cleaned up. */
/** Phases in which the race still works toward its results (a merge or round waits for reviewing). */
const stillRacing = (phase: RacePhase): boolean =>
  phase === 'racing' || phase === 'checking' || phase === 'cross_testing' || phase === 'judging';

/** What to wait for in such a phase. */
const waitHint = (phase: RacePhase): string =>
  phase === 'racing'
    ? 'Wait for the agents, or stop the ones still running.'
    : `Wait: every agent has settled, and hydra is ${phase === 'judging' ? 'asking the judge' : 'cross-testing their results'}.`;

export const isOver = (state: RaceState): boolean =>
  state.status !== 'active' || state.matches({ cancelled: 'over' });

/** The race's summary now; a crashed engine's names its error (so the command fails). */
const summaryOf = (run: RaceRun): RaceSummary => {
  const { context } = run.actor.getSnapshot();
  const error = run.crashed?.error ?? null;
  return buildSummary(error === null ? context : { ...context, error }, raceEnd(context));
};

/** A crashed engine takes no more requests: its error, as the refusal of this one. */
const assertNotCrashed = (run: RaceRun): void => {
  const error = run.crashed?.error;
  if (error !== undefined && error !== null)
    throw new EngineError({ kind: error.kind, message: error.message, hint: error.hint });
};

/** Waits for a state matching `predicate`, or for the race to be over: never hangs. */
const waitUntil = async (run: RaceRun, predicate: (state: RaceState) => boolean): Promise<RaceState> => {
  if (run.crashed !== null) return run.actor.getSnapshot();
  return waitFor(run.actor, (state) => predicate(state) || isOver(state), { timeout: Infinity }).catch(() =>
    run.actor.getSnapshot(),
  );
};

/** The race's processes and background work (a worktree creation rolling back) are all gone. */
const waitForLeftovers = async (run: RaceRun): Promise<void> => {
  await run.processes.waitForGroups(run.runId);
  await waitForWork(run.runId);
};

/** A merge in progress is never interrupted: whoever asks next waits for it. */
const afterMerging = async (run: RaceRun): Promise<RaceState> => {
  const state = run.actor.getSnapshot();
  return state.matches('merging') ? waitUntil(run, (next) => !next.matches('merging')) : state;
};

/** Stops every agent and cleans up; resolves once nothing of the race is left running. */
export const cancelRace = async (run: RaceRun): Promise<void> => {
  if (run.crashed === null && !isOver(run.actor.getSnapshot())) run.actor.send({ type: 'CANCEL' });
  await waitUntil(run, isOver);
  await waitForLeftovers(run);
};

/** Merges one completed agent's result, once every agent has settled. */
export const mergeResult = async (
  run: RaceRun,
  agent: AgentName,
  mergeOptions: MergeOptions,
): Promise<MergeResult> => {
  const state = await afterMerging(run);
  assertNotCrashed(run);
  if (state.context.merge !== null) {
    throw new EngineError({
      kind: 'Refused',
      message: `This race was already merged (${state.context.merge.agent}).`,
      hint: 'Nothing to do.',
    });
  }
  if (!state.matches('reviewing')) {
    const phase = phaseOf(state.value);
    throw new EngineError({
      kind: 'Refused',
      message:
        stillRacing(phase) ||
        phase === 'checking_repo' ||
        phase === 'probing' ||
        phase === 'creating_worktrees'
          ? 'The race is still running; a result can be merged once every agent has settled.'
          : `The race is ${phase}; there is nothing to merge.`,
      hint: stillRacing(phase) ? waitHint(phase) : 'Start a new race.',
    });
  }
  const attempts = state.context.mergeAttempts;
  run.actor.send({ type: 'MERGE', agent, options: mergeOptions });
  // A merge ends the race: its result is complete once the clean-up after it has run.
  const after = await waitUntil(
    run,
    (next) => next.context.mergeAttempts > attempts && !next.matches('merging') && !next.matches('finishing'),
  );
  assertNotCrashed(run);
  if (after.context.merge !== null && after.context.mergeError === null) return after.context.merge;
  const info = after.context.mergeError ?? {
    kind: 'AgentFailed' as const,
    message: 'The merge did not happen.',
    hint: 'See `hydra runs`.',
  };
  throw new EngineError({ kind: info.kind, message: info.message, hint: info.hint });
};

/** Ends the race without a merge: clean-up when it is reviewing, a cancel while it still runs. */
export const finishRace = async (run: RaceRun): Promise<RaceSummary> => {
  const state = await afterMerging(run);
  if (state.matches('reviewing')) {
    run.actor.send({ type: 'FINISH' });
    await waitUntil(run, isOver);
  } else if (!isOver(state)) {
    await cancelRace(run);
  }
  await waitForLeftovers(run);
  // After clean-up: the branches and worktrees it removed are no longer named.
  return summaryOf(run);
};

/** One agent's result as a patch: from its branch, or from the merge commit once that is gone. */
export const patchOf = async (run: RaceRun, agent: AgentName): Promise<string> => {
  const { context } = run.actor.getSnapshot();
  const launch = context.launches.find((item) => item.agent === agent);
  if (launch === undefined || context.repo === null) {
    throw new EngineError({
      kind: 'Refused',
      message: `${agent} has no result in this race.`,
      hint: 'Pick an agent that ran.',
    });
  }
  try {
    return await fullPatch(context.repo.root, context.repo.baseRef, `refs/heads/${launch.branch}`);
  } catch (error) {
    if (context.merge?.agent === agent)
      return fullPatch(context.repo.root, context.repo.baseRef, context.merge.commit);
    throw new EngineError({
      kind: 'Refused',
      message: `The result of ${agent} is no longer available (branch ${launch.branch} was removed).`,
      hint: 'Results are kept until a merge or `hydra clean`.',
      cause: error,
    });
  }
};

/**
 * `--attempts` with `--auto-merge best`: the last attempt is in, so the auto-merge held until now
 * decides; resolves once its merge (if any) is done. Nothing to do in a race no longer reviewing.
 */
export const releaseAutoMerge = async (run: RaceRun): Promise<void> => {
  const state = await afterMerging(run);
  if (run.crashed !== null || !state.matches('reviewing')) return;
  run.actor.send({ type: 'RELEASE_AUTO_MERGE' });
  await afterMerging(run);
};

/**
 * Another round for one settled agent (a follow-up or a rerun): refused unless the race is
 * reviewing; resolves with the summary once the round has settled and the race reviews again.
 */
export const startRound = async (run: RaceRun, request: RoundRequest): Promise<RaceSummary> => {
  const state = await afterMerging(run);
  assertNotCrashed(run);
  if (!state.matches('reviewing')) {
    const phase = phaseOf(state.value);
    throw new EngineError({
      kind: 'Refused',
      message: stillRacing(phase)
        ? 'Another round can start once every agent has settled.'
        : `The race is ${phase}; no round can start.`,
      hint: stillRacing(phase) ? waitHint(phase) : `Reopen it with \`hydra show ${run.runId} --tui\`.`,
    });
  }
  const attempts = state.context.roundAttempts;
  run.actor.send({ type: 'ROUND', request });
  const started = await waitUntil(run, (next) => next.context.roundAttempts > attempts);
  assertNotCrashed(run);
  if (started.context.roundError !== null) {
    const info = started.context.roundError;
    throw new EngineError({ kind: info.kind, message: info.message, hint: info.hint });
  }
  await waitUntil(run, (next) => next.matches('reviewing'));
  assertNotCrashed(run);
  return summaryOf(run);
};

/**
 * A shell of the user's in an agent's worktree (made again from its branch if it was removed),
 * while the race reviews. What was changed there is committed on the agent's branch as its work
 * is, and becomes part of its result.
 */
export const runShell = async (run: RaceRun, request: ShellRequest): Promise<ShellResult> => {
  const state = await afterMerging(run);
  const { context } = state;
  const launch = context.launches.find((item) => item.agent === request.agent);
  if (!state.matches('reviewing') || launch === undefined || context.repo === null) {
    throw new EngineError({
      kind: 'Refused',
      message:
        launch === undefined
          ? `${request.agent} has no branch to open a shell on.`
          : 'A shell opens once every agent has settled.',
      hint:
        launch === undefined
          ? 'Pick an agent that ran.'
          : 'Wait for the agents, or stop the ones still running.',
    });
  }
  const root = context.repo.root;
  if (!existsSync(launch.worktree)) {
    await reopenWorktree(root, launch.worktree, launch.branch, {
      env: { [RUN_ID_ENV]: run.runId },
      processes: run.processes,
      owner: run.runId,
      step: `git worktree add for a shell in ${request.agent}`,
    });
    await copyIncludedFiles({
      checkout: root,
      target: launch.worktree,
      patterns: context.options.setup?.copy ?? [],
    });
  }
  const refsAtStart = await snapshotRefs(root, run.runId);
  const exitCode = await runInteractive({
    file: request.shell,
    args: [],
    cwd: launch.worktree,
    env: request.env,
    runId: run.runId,
    processes: run.processes,
    ...(request.onStart === undefined ? {} : { onStart: () => request.onStart?.(launch.worktree) }),
  });
  const work = await finalizeWork({
    repoRoot: root,
    worktree: launch.worktree,
    branch: launch.branch,
    baseRef: launch.baseRef,
    message: `hydra: ${request.agent} result (changed in a shell)\n\nRun ${run.runId}, agent ${request.agent}: changes made in hydra's shell.\n`,
    agent: request.agent,
    refsAtStart,
  });
  run.actor.send({
    type: 'SHELL_DONE',
    agent: request.agent,
    worktree: launch.worktree,
    diff: work.diff,
    warnings: [...(work.warnings ?? []), ...(work.failure === undefined ? [] : [work.failure.message])],
  });
  return { worktree: launch.worktree, exitCode, diff: work.diff };
};
