/**
 * What the kernel says about processes, read from /proc (Linux) or `ps` (macOS, the BSDs, and
 * Linux under HYDRA_PORTABLE=1: ps-table.ts) and `kill(pid, 0)`, with no state of its own:
 * signalling a process group, whether a group still runs, when a process started (so a reused pid
 * is told from the process recorded), and finding the processes of a run by the HYDRA_RUN_ID marker
 * in their environment (recovery, the watchdog, `hydra clean`). The groups hydra itself started are
 * tracked by a ProcessRegistry (process-registry.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { AgentName } from '../agent-name.js';
import { carries, procTable, psRows } from './ps-table.js';
import type { PsRow } from './ps-table.js';

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
  /**
   * When it started: the kernel's clock ticks since boot (field 22 of /proc/<pid>/stat), or, from
   * ps, `s<epoch seconds>` (sameStart compares the two).
   */
  startTime: string;
}

const psInfo = (row: PsRow): ProcessInfo => ({
  pid: row.pid,
  pgid: row.pgid,
  state: row.state.slice(0, 1),
  startTime: row.startedAt === null ? '' : `s${row.startedAt / 1000}`,
});

/** This process as ps saw it first: its pid, group and start do not change (read for every lock). */
let ownRow: PsRow | undefined;

/** Reads /proc/<pid>/stat (or asks ps); null when the process is gone or cannot be read. */
export const processInfo = (pid: number): ProcessInfo | null => {
  if (!procTable()) {
    if (pid === process.pid && ownRow?.pid === pid) return psInfo(ownRow);
    const row = psRows({ pid }).find((item) => item.pid === pid);
    if (pid === process.pid) ownRow = row;
    return row === undefined ? null : psInfo(row);
  }
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
  if (!procTable()) return psRows().some((row) => row.pgid === pgid && !row.state.startsWith('Z'));
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

/** Members of a process group, from /proc or ps (empty when neither can be read). */
export const groupMembers = (pgid: number): number[] =>
  procTable()
    ? procPids().filter((pid) => processInfo(pid)?.pgid === pgid)
    : psRows()
        .filter((row) => row.pgid === pgid)
        .map((row) => row.pid);

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
export const processesOfRun = (runId: string, agent?: AgentName): number[] =>
  procTable() ? procProcessesOfRun(runId, agent) : psProcessesOfRun(runId, agent).map((row) => row.pid);

/** From ps: the marker is a word of the environment ps prints after the command. */
const psProcessesOfRun = (runId: string, agent?: AgentName): PsRow[] =>
  psRows({ environment: true }).filter(
    (row) =>
      row.pid !== process.pid &&
      carries(row, `${RUN_ID_ENV}=${runId}`) &&
      (agent === undefined || carries(row, `${OWNER_ENV}=${agent}`)),
  );

const procProcessesOfRun = (runId: string, agent?: AgentName): number[] => {
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

/** A ProcessInfo start time as epoch ms (to about a second); null when it cannot say. */
const startTimeMs = (startTime: string): number | null => {
  if (/^s\d+$/.test(startTime)) return Number(startTime.slice(1)) * 1000;
  const boot = bootTimeMs();
  if (boot === null || !/^\d+$/.test(startTime)) return null;
  return boot + (Number(startTime) * 1000) / CLOCK_TICKS;
};

/** When a process started (epoch ms, to about a second); null when unknown. */
const processStartedAt = (pid: number): number | null => {
  const info = processInfo(pid);
  return info === null ? null : startTimeMs(info.startTime);
};

/**
 * /proc's boot time is whole seconds, as is ps's start time: a process may read as started up to
 * this much early.
 */
const START_TIME_SLACK_MS = 2000;

/**
 * Whether two start times name the same start: the same text, or, read one from /proc and one
 * from ps (HYDRA_PORTABLE switched between two hydras), within the slack of either's seconds.
 */
const sameStart = (recorded: string, now: string): boolean => {
  if (recorded === now) return true;
  if (recorded.startsWith('s') === now.startsWith('s')) return false;
  const [a, b] = [startTimeMs(recorded), startTimeMs(now)];
  return a !== null && b !== null && Math.abs(a - b) <= START_TIME_SLACK_MS;
};

/**
 * Whether `pid` is still the process recorded with `startTime` (a lock's holder, a run's hydra):
 * alive, and started when it was recorded, so a pid the system gave to another process since does
 * not count. A null start time (none could be read then), or one that cannot be read now, trusts
 * the pid.
 */
export const processStillRuns = (pid: number, startTime: string | null): boolean => {
  if (!pidAlive(pid)) return false;
  if (startTime === null) return true;
  const info = processInfo(pid);
  return info === null || info.startTime === '' || sameStart(startTime, info.startTime);
};

/**
 * The processes hydra may signal for a run it did not start in this process: those that carry the
 * run's marker in their environment and started after the run did (so a process that merely
 * copied the marker from an older environment, or a reused pid, is left alone).
 */
export const signallableProcessesOfRun = (runId: string, runStartedAt: number): number[] =>
  procTable()
    ? processesOfRun(runId).filter((pid) => {
        const started = processStartedAt(pid);
        return started !== null && started >= runStartedAt - START_TIME_SLACK_MS;
      })
    : psProcessesOfRun(runId)
        .filter((row) => row.startedAt !== null && row.startedAt >= runStartedAt - START_TIME_SLACK_MS)
        .map((row) => row.pid);
