/**
 * The process groups one owner has started and not yet seen die, and the handlers that stop them
 * when hydra goes away. An object with a lifetime, not module state: startRace creates one per race
 * and hands it to the probe runner and the agent process actor (which give it to the supervisor);
 * a probe outside any race (`hydra doctor`) makes one for as long as it runs.
 *
 * The rule for exit and signals, which nothing else (such as who else listens) changes:
 * - Handlers are installed when the first race or process group is registered, and removed when the
 *   last one is forgotten (or the signal is re-raised).
 * - On `exit`, every live group is SIGKILLed: no handler of ours can wait any more.
 * - On the first SIGINT, SIGTERM or SIGHUP, every registered race is cancelled (its agents stopped
 *   with the usual grace, its worktrees cleaned). Then hydra SIGKILLs what is left, removes its
 *   handlers and raises the signal again, so the process ends as that signal ends it (status
 *   128+n) — unless the owner declared that it handles that signal itself
 *   (`signalsHandledByCaller`, e.g. the CLI, which prints the summary and picks the exit code).
 * - A second signal SIGKILLs every live group at once, and is re-raised on the same rule.
 */
import type { AgentName } from '../agent-name.js';

const HANDLED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type HandledSignal = (typeof HANDLED_SIGNALS)[number];

/** The owner of the process groups of capability probes (`--version`, `--help`). */
export const PROBE_OWNER = 'probe';

/** Who started a process group: a race's agent (its run id), or a probe (PROBE_OWNER). */
export interface GroupOwner {
  runId: string;
  agent?: AgentName;
}

/** The part of `process` the registry uses; tests pass a fake to send signals without dying. */
export interface SignalHost {
  readonly pid: number;
  on(event: 'exit' | HandledSignal, listener: (signal: HandledSignal) => void): unknown;
  off(event: 'exit' | HandledSignal, listener: (signal: HandledSignal) => void): unknown;
  kill(pid: number, signal: NodeJS.Signals): unknown;
}

export interface ProcessRegistryOptions {
  /** Signals whose end the owner handles itself once the races are cancelled; others are re-raised. */
  signalsHandledByCaller?: readonly HandledSignal[];
  /** Defaults to `process`. */
  host?: SignalHost;
}

export interface ProcessRegistry {
  /** A process group was started: it is killed if hydra exits or is signalled before it is forgotten. */
  registerGroup(pgid: number, owner: GroupOwner): void;
  /** The group is dead: forget it. */
  unregisterGroup(pgid: number): void;
  /** Resolves once every group of the run has been forgotten. */
  waitForGroups(runId: string): Promise<void>;
  /** A running race, cancelled on a signal. Returns the function that forgets it. */
  registerRace(runId: string, cancel: () => Promise<void>): () => void;
  /** The owner is done: its races are forgotten; the handlers stay only while a group is alive. */
  dispose(): void;
  /** Whether the exit and signal handlers are installed (tests). */
  handlersInstalled(): boolean;
  /**
   * While an interactive program of the user's has the terminal (the dashboard's shell), Ctrl-C is
   * its, not a cancel of the race: SIGINT is ignored until the returned function is called.
   */
  holdInterrupts(): () => void;
  /**
   * The container runner started a container of this owner's race on this engine host (`''`: the
   * engine of the environment). The race's watchdog learns it (onContainerHost), so that, should
   * hydra be killed outright, it removes the run's containers there by label.
   */
  watchContainerHost(host: string): void;
  /** Calls `listener` with every host announced so far, then with each new one. Returns the function that stops. */
  onContainerHost(listener: (host: string) => void): () => void;
  /**
   * Calls `listener` with every live group (`live` true), then with each group registered or
   * forgotten from now on: the race's watchdog records them. Returns the function that stops.
   */
  onGroup(listener: (pgid: number, live: boolean) => void): () => void;
}

export function createProcessRegistry(options: ProcessRegistryOptions = {}): ProcessRegistry {
  const host = options.host ?? process;
  const handledByCaller = new Set<HandledSignal>(options.signalsHandledByCaller ?? []);
  const groups = new Map<number, GroupOwner>();
  const groupWaiters = new Set<() => void>();
  const races = new Map<string, () => Promise<void>>();
  let installed = false;
  let signalsReceived = 0;
  let interruptHolds = 0;
  const containerHosts = new Set<string>();
  const hostListeners = new Set<(host: string) => void>();
  const groupListeners = new Set<(pgid: number, live: boolean) => void>();

  // SIGKILL to every live group, for when hydra can wait no longer.
  const killAllGroups = (): void => {
    for (const pgid of groups.keys()) {
      try {
        host.kill(-pgid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };

  const onExit = (): void => killAllGroups();

  // Lets the signal end the process as it would have without hydra (probes and agents run in
  // their own process groups, out of reach of the terminal's signal: they are killed first).
  const reraise = (signal: HandledSignal): void => {
    killAllGroups();
    uninstall();
    host.kill(host.pid, signal);
  };

  const onSignal = (signal: HandledSignal): void => {
    if (signal === 'SIGINT' && interruptHolds > 0) return;
    signalsReceived += 1;
    const reraises = !handledByCaller.has(signal);
    if (signalsReceived > 1) {
      // Second signal: no more grace.
      killAllGroups();
      if (reraises) reraise(signal);
      return;
    }
    const cancels = [...races.values()].map((cancel) => cancel().catch(() => undefined));
    void Promise.all(cancels).then(() => {
      if (reraises) reraise(signal);
    });
  };

  function install(): void {
    installed = true;
    signalsReceived = 0;
    host.on('exit', onExit);
    for (const signal of HANDLED_SIGNALS) host.on(signal, onSignal);
  }

  function uninstall(): void {
    if (!installed) return;
    installed = false;
    host.off('exit', onExit);
    for (const signal of HANDLED_SIGNALS) host.off(signal, onSignal);
  }

  // Handlers are installed exactly while there is something to stop.
  const sync = (): void => {
    const live = races.size > 0 || groups.size > 0;
    if (live && !installed) install();
    else if (!live) uninstall();
  };

  const liveGroupsOf = (runId: string): number[] =>
    [...groups.entries()].filter(([, owner]) => owner.runId === runId).map(([pgid]) => pgid);

  return {
    registerGroup(pgid, owner) {
      groups.set(pgid, owner);
      for (const listener of [...groupListeners]) listener(pgid, true);
      sync();
    },
    unregisterGroup(pgid) {
      if (groups.delete(pgid)) for (const listener of [...groupListeners]) listener(pgid, false);
      for (const wake of [...groupWaiters]) wake();
      sync();
    },
    waitForGroups: (runId) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (liveGroupsOf(runId).length > 0) return;
          groupWaiters.delete(check);
          resolve();
        };
        groupWaiters.add(check);
        check();
      }),
    registerRace(runId, cancel) {
      races.set(runId, cancel);
      sync();
      return () => {
        races.delete(runId);
        sync();
      };
    },
    dispose() {
      races.clear();
      sync();
    },
    handlersInstalled: () => installed,
    holdInterrupts() {
      interruptHolds += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        interruptHolds -= 1;
      };
    },
    watchContainerHost(host) {
      if (containerHosts.has(host)) return;
      containerHosts.add(host);
      for (const listener of [...hostListeners]) listener(host);
    },
    onContainerHost(listener) {
      hostListeners.add(listener);
      for (const host of containerHosts) listener(host);
      return () => hostListeners.delete(listener);
    },
    onGroup(listener) {
      groupListeners.add(listener);
      for (const pgid of groups.keys()) listener(pgid, true);
      return () => groupListeners.delete(listener);
    },
  };
}
