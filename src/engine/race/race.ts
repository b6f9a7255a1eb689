/**
 * startRace: runs the race machine and exposes it as a RaceHandle. This is where the machine meets
 * the outside world: run records are written as events arrive, snapshots are published to
 * subscribers, and signals or the exit of hydra itself stop every agent.
 */
import { createActor, waitFor } from 'xstate';
import type { Actor, SnapshotFrom } from 'xstate';
import type { AdapterId } from '../../adapters/types.js';
import { EngineError } from '../errors.js';
import { defaultWorktreeRoot, newRunId } from '../records/index.js';
import { registerRace, waitForGroups } from '../process/index.js';
import { raceMachine } from './race-machine.js';
import type { RaceContext } from './race-types.js';
import type { ResolvedRaceOptions } from './race-types.js';
import { EventLog, writeSummary } from '../records/index.js';
import { buildSummary, phaseOf, toRaceSnapshot } from './snapshot.js';
import { startWatchdog } from '../process/index.js';
import type {
  AgentEventRecord,
  MergeOptions,
  MergeResult,
  RacePhase,
  RaceHandle,
  RaceOptions,
  RaceSnapshot,
  RaceSummary,
} from '../types.js';
import { waitForWork } from './work-tracker.js';
import { fullPatch } from '../git/index.js';

export const DEFAULT_KILL_GRACE_MS = 5000;

export const resolveRaceOptions = (options: RaceOptions): ResolvedRaceOptions => ({
  ...options,
  runId: options.runId ?? newRunId(),
  worktreeRoot: options.worktreeRoot ?? defaultWorktreeRoot(),
  killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
});

type RaceMachine = typeof raceMachine;
type RaceState = SnapshotFrom<RaceMachine>;

/** The race has nothing left to do: done, failed, or cancelled and cleaned up. */
const isOver = (state: RaceState): boolean =>
  state.status !== 'active' || state.matches({ cancelled: 'over' });

const SETTLED_PHASES: readonly RacePhase[] = ['reviewing', 'done', 'cancelled', 'failed'];

export interface StartRaceDeps {
  /** A machine with some actors replaced (tests). */
  machine?: RaceMachine;
}

export function startRace(options: RaceOptions, deps: StartRaceDeps = {}): RaceHandle {
  const resolved = resolveRaceOptions(options);
  const startedAt = Date.now();
  const actor: Actor<RaceMachine> = createActor(deps.machine ?? raceMachine, {
    input: { options: resolved, startedAt },
  });
  const snapshotListeners = new Set<(snapshot: RaceSnapshot) => void>();
  const eventListeners = new Set<(record: AgentEventRecord) => void>();
  let eventLog: EventLog | null = null;
  let lastContext: RaceContext | null = null;
  let lastPhase: RacePhase | null = null;
  let current: RaceSnapshot = toRaceSnapshot(actor.getSnapshot().context, 'checking_repo', startedAt);
  let crashed: RaceSnapshot | null = null;
  // The summary is rewritten whenever a settled race's context changes (clean-up, merge).
  let summaryWrittenFor: RaceContext | null = null;
  let resolveSettled: (summary: RaceSummary) => void = () => undefined;
  const settled = new Promise<RaceSummary>((resolve) => {
    resolveSettled = resolve;
  });
  let unregister: (() => void) | null = null;

  const persistSummary = (context: RaceContext): RaceSummary => {
    const summary = buildSummary(context, context.endedAt ?? Date.now());
    if (context.recordDir !== null && summaryWrittenFor !== context) {
      summaryWrittenFor = context;
      try {
        writeSummary(context.recordDir, summary);
      } catch {
        // A record that cannot be written must not break the race.
      }
    }
    return summary;
  };

  const publish = (snapshot: RaceSnapshot): void => {
    current = snapshot;
    for (const listener of [...snapshotListeners]) listener(snapshot);
  };

  const onState = (state: RaceState): void => {
    const phase = phaseOf(state.value);
    const { context } = state;
    if (context !== lastContext || phase !== lastPhase) {
      lastContext = context;
      lastPhase = phase;
      if (SETTLED_PHASES.includes(phase)) resolveSettled(persistSummary(context));
      publish(toRaceSnapshot(context, phase, Date.now()));
    }
    if (isOver(state)) end();
  };

  let stopWatchdog: () => void = () => undefined;
  const end = (): void => {
    eventLog?.close();
    eventLog = null;
    unregister?.();
    unregister = null;
    stopWatchdog();
  };

  actor.on('agentEvent', ({ record }) => {
    const recordDir = actor.getSnapshot().context.recordDir;
    if (eventLog === null && recordDir !== null && unregister !== null) {
      try {
        eventLog = new EventLog(recordDir);
      } catch {
        eventLog = null;
      }
    }
    try {
      eventLog?.append(record);
    } catch {
      // Disk full or similar: the race goes on; the record is incomplete.
    }
    for (const listener of [...eventListeners]) listener(record);
  });

  actor.subscribe({
    next: onState,
    error: (error) => {
      // An engine bug: stop everything the race started, and say so.
      const context = lastContext ?? actor.getSnapshot().context;
      crashed = {
        ...toRaceSnapshot(context, 'failed', Date.now()),
        error: {
          kind: 'AgentFailed',
          message: `hydra's race engine failed: ${error instanceof Error ? error.message : String(error)}`,
          hint: 'Please report this bug; run `hydra clean` to remove what the race left.',
        },
      };
      resolveSettled(buildSummary({ ...context, error: crashed.error }, Date.now()));
      publish(crashed);
      end();
    },
  });

  const waitUntil = async (predicate: (state: RaceState) => boolean): Promise<RaceState> => {
    if (crashed !== null) return actor.getSnapshot();
    return waitFor(actor, (state) => predicate(state) || isOver(state), { timeout: Infinity }).catch(() =>
      actor.getSnapshot(),
    );
  };

  const cancel = async (): Promise<void> => {
    if (crashed === null && !isOver(actor.getSnapshot())) actor.send({ type: 'CANCEL' });
    await waitUntil(isOver);
    await waitForGroups(resolved.runId);
    await waitForWork(resolved.runId);
  };

  const merge = async (agent: AdapterId, mergeOptions: MergeOptions = {}): Promise<MergeResult> => {
    let state = actor.getSnapshot();
    if (state.matches('merging')) state = await waitUntil((next) => !next.matches('merging'));
    if (state.context.merge !== null) {
      throw new EngineError(
        'Refused',
        `This race was already merged (${state.context.merge.agent}).`,
        'Nothing to do.',
      );
    }
    if (!state.matches('reviewing')) {
      const phase = phaseOf(state.value);
      throw new EngineError(
        'Refused',
        phase === 'racing' ||
          phase === 'checking_repo' ||
          phase === 'probing' ||
          phase === 'creating_worktrees'
          ? 'The race is still running; a result can be merged once every agent has settled.'
          : `The race is ${phase}; there is nothing to merge.`,
        phase === 'racing' ? 'Wait for the agents, or stop the ones still running.' : 'Start a new race.',
      );
    }
    const attempts = state.context.mergeAttempts;
    actor.send({ type: 'MERGE', agent, options: mergeOptions });
    const after = await waitUntil(
      (next) => next.context.mergeAttempts > attempts && !next.matches('merging'),
    );
    if (after.context.merge !== null && after.context.mergeError === null) return after.context.merge;
    const info = after.context.mergeError ?? {
      kind: 'AgentFailed' as const,
      message: 'The merge did not happen.',
      hint: 'See `hydra runs`.',
    };
    throw new EngineError(info.kind, info.message, info.hint);
  };

  const finish = async (): Promise<RaceSummary> => {
    let state = actor.getSnapshot();
    if (state.matches('merging')) state = await waitUntil((next) => !next.matches('merging'));
    if (state.matches('reviewing')) {
      actor.send({ type: 'FINISH' });
      await waitUntil(isOver);
    } else if (!isOver(state)) {
      await cancel();
    }
    await waitForGroups(resolved.runId);
    await waitForWork(resolved.runId);
    // After clean-up: the branches and worktrees it removed are no longer named.
    const { context } = actor.getSnapshot();
    return buildSummary(context, context.endedAt ?? Date.now());
  };

  const getPatch = async (agent: AdapterId): Promise<string> => {
    const { context } = actor.getSnapshot();
    const launch = context.launches.find((item) => item.agent === agent);
    if (launch === undefined || context.repo === null) {
      throw new EngineError('Refused', `${agent} has no result in this race.`, 'Pick an agent that ran.');
    }
    try {
      return await fullPatch(context.repo.root, context.repo.baseRef, `refs/heads/${launch.branch}`);
    } catch (error) {
      if (context.merge?.agent === agent)
        return fullPatch(context.repo.root, context.repo.baseRef, context.merge.commit);
      throw new EngineError(
        'Refused',
        `The result of ${agent} is no longer available (branch ${launch.branch} was removed).`,
        'Results are kept until a merge or `hydra clean`.',
        { cause: error },
      );
    }
  };

  unregister = registerRace(resolved.runId, cancel);
  // Stops the agents if this process is killed outright, when no handler of ours can run.
  stopWatchdog = startWatchdog(resolved.runId, resolved.killGraceMs);
  actor.start();

  return {
    runId: resolved.runId,
    getSnapshot: () => crashed ?? current,
    subscribe: (listener) => {
      snapshotListeners.add(listener);
      return () => snapshotListeners.delete(listener);
    },
    onEvent: (listener) => {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    stopAgent: (agent) => actor.send({ type: 'STOP_AGENT', agent }),
    cancel,
    settled,
    merge,
    finish,
    getPatch,
  };
}
