/**
 * Every agent runs as the leader of its own process group. This module keeps the list of groups
 * hydra has started and not yet seen die, kills them when hydra itself exits or is told to stop
 * (SIGINT, SIGTERM, SIGHUP), and finds left-over processes of a run (by the HYDRA_RUN_ID marker in
 * their environment) for recovery.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { AdapterId } from '../../adapters/types.js';

export const RUN_ID_ENV = 'HYDRA_RUN_ID';
export const AGENT_ENV = 'HYDRA_AGENT';

export type Signal = 'SIGTERM' | 'SIGKILL';

/** Sends a signal to a whole process group. False when the group no longer exists. */
export const signalGroup = (pgid: number, signal: Signal): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
};

export const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export interface ProcessInfo {
  pid: number;
  pgid: number;
  /** One-letter state (field 3): R running, S sleeping, Z zombie (dead, not yet reaped)... */
  state: string;
  /** Kernel start time in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  startTime: string;
}

/** Reads /proc/<pid>/stat; null when the process is gone or /proc is unavailable. */
export const processInfo = (pid: number): ProcessInfo | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); pgid is field 5, starttime field 22.
    return { pid, pgid: Number(fields[2]), state: fields[0] ?? '', startTime: fields[19] ?? '' };
  } catch {
    return null;
  }
};

const procPids = (): number[] => {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
};

/**
 * Whether any process of the group can still run. Zombies do not count: they are dead and wait
 * only for their parent (often init, slow under load) to reap them. Without /proc, asks the kernel.
 */
export const groupRunning = (pgid: number): boolean => {
  if (procPids().length === 0) return groupAlive(pgid);
  return procPids().some((pid) => {
    const info = processInfo(pid);
    return info !== null && info.pgid === pgid && info.state !== 'Z';
  });
};

/** Members of a process group, from /proc (empty when /proc is unavailable). */
export const groupMembers = (pgid: number): number[] =>
  procPids().filter((pid) => processInfo(pid)?.pgid === pgid);

const environOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return '';
  }
};

export const cwdOf = (pid: number): string | null => {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
};

/**
 * Processes that carry `HYDRA_RUN_ID=<runId>` (and `HYDRA_AGENT=<agent>` when given) in their
 * environment: agents and everything they started, even those that left the process group.
 */
export const processesOfRun = (runId: string, agent?: AdapterId): number[] => {
  const runMarker = `\0${RUN_ID_ENV}=${runId}\0`;
  const agentMarker = agent === undefined ? null : `\0${AGENT_ENV}=${agent}\0`;
  return procPids().filter((pid) => {
    if (pid === process.pid) return false;
    const environ = `\0${environOf(pid)}`;
    return environ.includes(runMarker) && (agentMarker === null || environ.includes(agentMarker));
  });
};

// ---------------------------------------------------------------------------------------------
// Live groups and the handlers that kill them when hydra goes away.

interface LiveGroup {
  /** The race's run id, or PROBE_OWNER for a capability probe. */
  runId: string;
  agent?: AdapterId;
}

/** The owner of the process groups of capability probes (`--version`, `--help`), outside any race. */
export const PROBE_OWNER = 'probe';

const liveGroups = new Map<number, LiveGroup>();
const groupWaiters = new Set<() => void>();

/** Races currently running in this process, by run id, with a way to cancel them. */
const liveRaces = new Map<string, () => Promise<void>>();

let handlersInstalled = false;
let signalsReceived = 0;

const killAllGroupsNow = (): void => {
  for (const pgid of liveGroups.keys()) signalGroup(pgid, 'SIGKILL');
};

const onExit = (): void => {
  killAllGroupsNow();
};

const reraise = (signal: NodeJS.Signals): void => {
  // Probes and agents run in their own process groups, out of reach of the terminal's signal.
  killAllGroupsNow();
  uninstallHandlers();
  process.kill(process.pid, signal);
};

const onSignal = (signal: NodeJS.Signals): void => {
  signalsReceived += 1;
  const othersListen = process.listenerCount(signal) > 1;
  if (signalsReceived > 1) {
    // Second signal: no more grace.
    killAllGroupsNow();
    if (!othersListen) reraise(signal);
    return;
  }
  const cancels = [...liveRaces.values()].map((cancel) => cancel().catch(() => undefined));
  void Promise.all(cancels).then(() => {
    // Only when nobody else (the CLI) handles the signal do we restore its default meaning.
    if (!othersListen) reraise(signal);
  });
};

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  signalsReceived = 0;
  process.on('exit', onExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstallHandlers(): void {
  if (!handlersInstalled) return;
  handlersInstalled = false;
  process.off('exit', onExit);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

const maybeUninstall = (): void => {
  if (liveRaces.size === 0 && liveGroups.size === 0) uninstallHandlers();
};

/** A race is live: signals and exit now stop its agents. Returns the function that ends this. */
export const registerRace = (runId: string, cancel: () => Promise<void>): (() => void) => {
  liveRaces.set(runId, cancel);
  installHandlers();
  return () => {
    liveRaces.delete(runId);
    maybeUninstall();
  };
};

export const registerGroup = (pgid: number, owner: LiveGroup): void => {
  liveGroups.set(pgid, owner);
  installHandlers();
};

export const unregisterGroup = (pgid: number): void => {
  liveGroups.delete(pgid);
  for (const wake of [...groupWaiters]) wake();
  maybeUninstall();
};

export const liveGroupsOf = (runId: string): number[] =>
  [...liveGroups.entries()].filter(([, owner]) => owner.runId === runId).map(([pgid]) => pgid);

/** Resolves once every group of the run has been seen dead. */
export const waitForGroups = (runId: string): Promise<void> =>
  new Promise((resolve) => {
    const check = (): void => {
      if (liveGroupsOf(runId).length === 0) {
        groupWaiters.delete(check);
        resolve();
      }
    };
    groupWaiters.add(check);
    check();
  });

/** For tests: whether the exit and signal handlers are installed. */
export const handlersActive = (): boolean => handlersInstalled;
