/**
 * The sandbox library's helpers in hydra's own process (on Linux, a socat bridge from a Unix socket
 * in the temp directory to each of its proxies) are hydra's children, not the race's: they carry no
 * run marker, and after a `kill -9` of hydra they survive, reparented to init, with their sockets
 * (issue 35, case 9). They are marked here instead: the library starts them with hydra's
 * environment, so while it starts (runtime.ts) that environment holds HYDRA_SANDBOX_HELPER_OF=<pid>-
 * <start time> of this hydra. The race's watchdog ends the processes with this hydra's marker when
 * hydra dies (watchdog.sh); `hydra clean` ends those whose hydra is gone (endOrphanedHelpers).
 * Either removes the sockets they listened on.
 */
import { lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';

export const HELPER_ENV = 'HYDRA_SANDBOX_HELPER_OF';

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); null when unreadable. */
const startTimeOf = (pid: number | string): string | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
};

/** This hydra's marker: its pid and start time, so a reused pid is never taken for it. */
export const helperMarker = (): string => `${process.pid}-${startTimeOf(process.pid) ?? '0'}`;

/**
 * Runs `start` (the library's start-up, which spawns its helpers) with the marker in this process's
 * environment, and takes it out again. What else this process spawns meanwhile carries it too:
 * every such process is hydra's, and ending it once hydra is dead is right.
 */
export async function withHelperMarker<T>(start: () => Promise<T>): Promise<T> {
  if (process.platform !== 'linux') return start();
  const before = process.env[HELPER_ENV];
  process.env[HELPER_ENV] = helperMarker();
  try {
    return await start();
  } finally {
    if (before === undefined) delete process.env[HELPER_ENV];
    else process.env[HELPER_ENV] = before;
  }
}

/** A marked helper: its pid, and the Unix sockets it listens on (from its command line). */
export interface SandboxHelper {
  pid: number;
  sockets: string[];
}

/** The marked processes whose hydra is gone (no process with that pid and start time). */
export function orphanedHelpers(): SandboxHelper[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const prefix = `${HELPER_ENV}=`;
  return pids.flatMap((pid) => {
    try {
      const marker = readFileSync(`/proc/${pid}/environ`, 'latin1')
        .split('\0')
        .find((entry) => entry.startsWith(prefix))
        ?.slice(prefix.length);
      const owner = /^(\d+)-(\d+)$/.exec(marker ?? '');
      if (owner === null || startTimeOf(owner[1] ?? '') === owner[2]) return [];
      const sockets = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .flatMap((arg) => /^UNIX-LISTEN:([^,]+)/.exec(arg)?.[1] ?? []);
      return [{ pid: Number(pid), sockets }];
    } catch {
      return [];
    }
  });
}

/** Removes `file` when it is a Unix socket (never a file or a link someone put in its place). */
export const removeSocket = (file: string): void => {
  try {
    if (lstatSync(file).isSocket()) rmSync(file, { force: true });
  } catch {
    // Gone already.
  }
};

/**
 * Ends the helpers whose hydra is gone (SIGTERM, which makes socat remove its socket; SIGKILL
 * after `graceMs`) and removes what sockets are left. Returns their pids; with `dryRun`, only
 * names them.
 */
export async function endOrphanedHelpers(dryRun = false, graceMs = 1000): Promise<number[]> {
  const helpers = orphanedHelpers();
  if (dryRun || helpers.length === 0) return helpers.map((helper) => helper.pid);
  const signal = (name: NodeJS.Signals): void => {
    for (const { pid } of helpers)
      try {
        process.kill(pid, name);
      } catch {
        // Ended already.
      }
  };
  const alive = (): boolean => helpers.some(({ pid }) => startTimeOf(pid) !== null && !zombie(pid));
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (alive()) signal('SIGKILL');
  for (const helper of helpers) for (const socket of helper.sockets) removeSocket(socket);
  return helpers.map((helper) => helper.pid);
}

const zombie = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
};
