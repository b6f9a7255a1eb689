/**
 * startRace: runs the race machine and exposes it as a RaceHandle. This is where the machine meets
 * the outside world: run records are written as events arrive, snapshots are published to
 * subscribers, and signals or the exit of hydra itself stop every agent.
 */
import { createActor } from 'xstate';
import type { AgentName } from '../agent-name.js';
import { defaultWorktreeRoot, newRunId } from '../records/index.js';
import { createProcessRegistry, prepareContainment, refusalKey, startWatchdog } from '../process/index.js';
import { discardPrewrapped, holdSandbox, prepareSandbox } from '../sandbox/index.js';
import type { HandledSignal } from '../process/index.js';
import { raceMachine } from './race-machine.js';
import type { RaceContext, ResolvedRaceOptions } from './race-types.js';
import { createRaceRecords } from './race-records.js';
import type { RaceRecords } from './race-records.js';
import { trace } from '../../trace.js';
import {
  cancelRace,
  finishRace,
  isOver,
  mergeResult,
  patchOf,
  releaseAutoMerge,
  runShell,
  startRound,
} from './race-run.js';
import type { RaceMachine, RaceRun, RaceState } from './race-run.js';
import { phaseOf, shownPhase, toRaceSnapshot } from './snapshot.js';
import { toErrorInfo } from '../errors.js';
import { inspectorFromEnv } from './inspect.js';
import type { AgentEventRecord, RaceSummary } from '../records/index.js';
import type { RaceHandle, RacePhase, RaceSnapshot } from './race-handle.js';
import type { RaceOptions } from '../config/index.js';

const DEFAULT_KILL_GRACE_MS = 5000;

/** Fills in the defaults once, so the machine and its actors never guess. */
const resolveRaceOptions = (options: RaceOptions): ResolvedRaceOptions => ({
  ...options,
  runId: options.runId ?? newRunId(),
  worktreeRoot: options.worktreeRoot ?? defaultWorktreeRoot(),
  killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
});

const SETTLED_PHASES: readonly RacePhase[] = ['reviewing', 'done', 'cancelled', 'failed'];

export interface StartRaceDeps {
  /** A machine with some actors replaced (tests). */
  machine?: RaceMachine;
  /**
   * Signals whose end the caller handles itself (the CLI prints the summary and picks the exit
   * code). Hydra cancels the race on SIGINT, SIGTERM and SIGHUP either way; it then re-raises every
   * signal not listed here (see process-registry.ts).
   */
  signalsHandledByCaller?: readonly HandledSignal[];
}

/** Starts a race and returns its handle; each helper below does one of the jobs this takes. */
export function startRace(options: RaceOptions, deps: StartRaceDeps = {}): RaceHandle {
  const resolved = resolveRaceOptions(options);
  const run = createRaceRun(resolved, deps);
  const listeners = createListeners(
    toRaceSnapshot(run.actor.getSnapshot().context, 'checking_repo', Date.now()),
  );
  const records = createRaceRecords();
  const settled = promiseWithResolve<RaceSummary>();
  const release = guardRace(run, resolved.killGraceMs);
  const releaseSandbox =
    (resolved.sandbox?.mode ?? 'off') !== 'off' ? holdSandboxForRace(run.runId) : () => undefined;
  const settle = (summary: RaceSummary): void => {
    releaseSandbox();
    settled.resolve(summary);
  };
  const end = (): void => {
    records.close();
    release();
    // The agents' and the baseline's port blocks go with the race, however it ended.
    run.actor.getSnapshot().context.ports.release();
    releaseSandbox();
  };
  wireRace(run, { listeners, records, settle, end });
  run.actor.start();
  trace('race: machine started');
  return raceHandle(run, listeners, settled.promise);
}

/** The actor, with this race's own process registry in its input. */
function createRaceRun(resolved: ResolvedRaceOptions, deps: StartRaceDeps): RaceRun {
  const processes = createProcessRegistry({ signalsHandledByCaller: deps.signalsHandledByCaller ?? [] });
  // HYDRA_INSPECT=<file>: every actor of the race reports its inspection events there (inspect.ts).
  const inspector = inspectorFromEnv();
  const actor = createActor(deps.machine ?? raceMachine, {
    input: { options: resolved, startedAt: Date.now(), processes },
    ...(inspector === null ? {} : { inspect: inspector }),
  });
  return { runId: resolved.runId, actor, processes, crashed: null };
}

/**
 * From here until the race is over, a signal cancels it (its registry's handlers), and its
 * processes are stopped should this process be killed outright, when no handler of ours can run:
 * by the watchdog (watchdog.ts), and agents in PID namespaces by their namespace's init too
 * (containment.ts). Returns the function that releases both, idempotent.
 */
function guardRace(run: RaceRun, killGraceMs: number): () => void {
  run.processes.registerRace(run.runId, () => cancelRace(run));
  // Checked while the repository is; the agents' spawns wait for it (buildWorkspace).
  void prepareContainment();
  const watchdog = startWatchdog(run.runId, killGraceMs);
  // The engine hosts the container runner starts this race's containers on (watchdog.ts).
  const unwatchHosts = run.processes.onContainerHost(watchdog.watchContainerHost);
  // And the process groups it starts, which it signals too (where ps cannot show an environment).
  const unwatchGroups = run.processes.onGroup((pgid, live) =>
    live ? watchdog.watchGroup(pgid) : watchdog.forgetGroup(pgid),
  );
  trace('race: watchdog started');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    run.processes.dispose();
    unwatchHosts();
    unwatchGroups();
    watchdog.stop();
  };
}

/**
 * The sandbox's check starts now, beside the repository's (the library's import and a trial run),
 * and the race holds the library's proxies from that trial until it first settles (its agents and
 * their checks are over, or it failed), so its agents do not start them again; at once where the
 * machine cannot sandbox. Returns the release (idempotent), which also drops the commands wrapped
 * ahead that no agent took (a race that failed before its agents spawned).
 */
function holdSandboxForRace(runId: string): () => void {
  const release = holdSandbox();
  void prepareSandbox().then((support) => {
    if (!support.available) release();
  });
  return () => {
    discardPrewrapped(refusalKey(runId, ''));
    release();
  };
}

interface Listeners {
  current(): RaceSnapshot;
  publish(snapshot: RaceSnapshot): void;
  emitEvent(record: AgentEventRecord): void;
  subscribe(listener: (snapshot: RaceSnapshot) => void): () => void;
  onEvent(listener: (record: AgentEventRecord) => void): () => void;
}

/** The handle's subscribers, and the snapshot they were last given. */
function createListeners(initial: RaceSnapshot): Listeners {
  const snapshotListeners = new Set<(snapshot: RaceSnapshot) => void>();
  const eventListeners = new Set<(record: AgentEventRecord) => void>();
  let current = initial;
  return {
    current: () => current,
    publish(snapshot) {
      current = snapshot;
      for (const listener of [...snapshotListeners]) listener(snapshot);
    },
    emitEvent(record) {
      for (const listener of [...eventListeners]) listener(record);
    },
    subscribe(listener) {
      snapshotListeners.add(listener);
      return () => snapshotListeners.delete(listener);
    },
    onEvent(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
  };
}

interface Wiring {
  listeners: Listeners;
  records: RaceRecords;
  settle(summary: RaceSummary): void;
  end(): void;
}

/** The context and phase last published. */
interface Seen {
  context: RaceContext;
  phase: RacePhase;
}

/** Connects the actor to the outside: events to the log and listeners, states to snapshots. */
function wireRace(run: RaceRun, wiring: Wiring): void {
  let seen: Seen | null = null;
  run.actor.on('agentEvents', ({ records }) => {
    wiring.records.appendEvents(run.actor.getSnapshot().context.recordDir, records);
    for (const record of records) wiring.listeners.emitEvent(record);
  });
  run.actor.subscribe({
    next: (state) => {
      seen = onState(state, seen, wiring);
    },
    error: (error) => onCrash(run, seen?.context ?? run.actor.getSnapshot().context, wiring, error),
  });
}

/** Publishes a snapshot when the context or the phase changed; settles and ends the race on time. */
function onState(state: RaceState, seen: Seen | null, wiring: Wiring): Seen {
  const phase = phaseOf(state.value);
  const { context } = state;
  const changed = context !== seen?.context || phase !== seen.phase;
  if (changed) {
    if (SETTLED_PHASES.includes(phase)) {
      trace(`race: settled (${phase})`);
      wiring.settle(wiring.records.persistSummary(context));
    }
    wiring.listeners.publish(toRaceSnapshot(context, shownPhase(state.value, context), Date.now()));
  }
  if (isOver(state)) wiring.end();
  return changed ? { context, phase } : (seen ?? { context, phase });
}

/**
 * An engine bug: the actor stopped (an action, guard or input threw). Say so with the error's own
 * message and hint, record and settle a failed summary (a non-zero exit), and stop everything the
 * race started.
 */
function onCrash(run: RaceRun, context: RaceContext, wiring: Wiring, error: unknown): void {
  const info = toErrorInfo(error, 'Please report this bug; run `hydra clean` to remove what the race left.');
  const failure = { ...info, message: `hydra's race engine failed: ${info.message}` };
  const crashed: RaceSnapshot = { ...toRaceSnapshot(context, 'failed', Date.now()), error: failure };
  run.crashed = crashed;
  wiring.settle(
    wiring.records.persistSummary({ ...context, error: failure, endedAt: context.endedAt ?? Date.now() }),
  );
  wiring.listeners.publish(crashed);
  wiring.end();
}

/** The RaceHandle: reads go to the listeners, commands to the machine. */
function raceHandle(run: RaceRun, listeners: Listeners, settled: Promise<RaceSummary>): RaceHandle {
  return {
    runId: run.runId,
    getSnapshot: () => run.crashed ?? listeners.current(),
    subscribe: listeners.subscribe,
    onEvent: listeners.onEvent,
    stopAgent: (agent: AgentName) => run.actor.send({ type: 'STOP_AGENT', agent }),
    cancel: () => cancelRace(run),
    settled,
    merge: (agent, mergeOptions = {}) => mergeResult(run, agent, mergeOptions),
    finish: () => finishRace(run),
    getPatch: (agent) => patchOf(run, agent),
    startRound: (request) => startRound(run, request),
    releaseAutoMerge: () => releaseAutoMerge(run),
    runShell: (request) => runShell(run, request),
  };
}

/** A promise and the function that resolves it (Promise.withResolvers is Node 22+). */
function promiseWithResolve<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
