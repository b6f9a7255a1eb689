/**
 * What the kernel says about processes, read from /proc and `kill(pid, 0)`, with no state of its
 * own: signalling a process group, whether a group still runs, and finding the processes of a run
 * by the HYDRA_RUN_ID marker in their environment (recovery, the watchdog, `hydra clean`). The
 * groups hydra itself started are tracked by a ProcessRegistry (process-registry.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { AgentName } from '../agent-name.js';

export const RUN_ID_ENV = 'HYDRA_RUN_ID';
/**
 * Which supervised process group a process belongs to (`claude`, `check:claude:test`): the
 * supervisor kills what carries it once that group's main process ends. Not HYDRA_AGENT, which
 * tells a project's scripts whose worktree they run in (setup/env.ts).
 */
export const OWNER_ENV = 'HYDRA_OWNER';

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

const groupAlive = (pgid: number): boolean => {
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
 * only for their parent (often init, slow under load) to reap them. The kernel is asked first (one
 * `kill(-pgid, 0)`: no member at all, not even a zombie, is the usual answer once an agent is
 * gone); only a group that still has members is looked up in /proc, which tells zombies apart.
 */
const groupRunning = (pgid: number): boolean => {
  if (!groupAlive(pgid)) return false;
  const pids = procPids();
  if (pids.length === 0) return true;
  return pids.some((pid) => {
    const info = processInfo(pid);
    return info !== null && info.pgid === pgid && info.state !== 'Z';
  });
};

/**
 * Resolves once nothing in the group can run any more (true), or after `limitMs` (false). The
 * kernel tells no one but the parent when a process ends, so this looks: at once, then after 1, 2,
 * 4, 8 and 16 ms, then every 20 ms; a group that is already gone costs one `kill(-pgid, 0)`.
 */
export const waitForGroupExit = async (pgid: number, limitMs: number): Promise<boolean> => {
  let waited = 0;
  for (let step = 1; groupRunning(pgid); step = Math.min(step * 2, 20)) {
    if (waited >= limitMs) return false;
    await new Promise((resolve) => setTimeout(resolve, step));
    waited += step;
  }
  return true;
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

/**
 * Processes that carry `HYDRA_RUN_ID=<runId>` (and `HYDRA_OWNER=<owner>` when given) in their
 * environment: agents and everything they started, even those that left the process group.
 */
export const processesOfRun = (runId: string, agent?: AgentName): number[] => {
  const runMarker = `\0${RUN_ID_ENV}=${runId}\0`;
  const agentMarker = agent === undefined ? null : `\0${OWNER_ENV}=${agent}\0`;
  return procPids().filter((pid) => {
    if (pid === process.pid) return false;
    const environ = `\0${environOf(pid)}`;
    return environ.includes(runMarker) && (agentMarker === null || environ.includes(agentMarker));
  });
};

/** Clock ticks per second of /proc's start times (USER_HZ: 100 on every Linux hydra runs on). */
const CLOCK_TICKS = 100;

const bootTimeMs = (): number | null => {
  try {
    const line = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return line?.[1] === undefined ? null : Number(line[1]) * 1000;
  } catch {
    return null;
  }
};

/** When a process started (epoch ms, to about a second), from /proc; null when unknown. */
const processStartedAt = (pid: number): number | null => {
  const info = processInfo(pid);
  const boot = bootTimeMs();
  if (info === null || boot === null || !/^\d+$/.test(info.startTime)) return null;
  return boot + (Number(info.startTime) * 1000) / CLOCK_TICKS;
};

/** /proc's boot time is whole seconds: a process may read as started up to this much early. */
const START_TIME_SLACK_MS = 2000;

/**
 * The processes hydra may signal for a run it did not start in this process: those that carry the
 * run's marker in their environment and started after the run did (so a process that merely
 * copied the marker from an older environment, or a reused pid, is left alone).
 */
export const signallableProcessesOfRun = (runId: string, runStartedAt: number): number[] =>
  processesOfRun(runId).filter((pid) => {
    const started = processStartedAt(pid);
    return started !== null && started >= runStartedAt - START_TIME_SLACK_MS;
  });
