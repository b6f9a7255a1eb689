/**
 * One writer at a time: a lock is a file made with one atomic step (a complete file hard-linked
 * into place, which fails when the name exists), holding who took it: pid, the start time of that
 * pid (from the process table, /proc or ps: process-table.ts, so a pid reused by another process
 * does not count as the holder), the command and when. A second taker reads it and either waits, or refuses
 * naming the holder. A lock whose holder is gone is taken over: under a short-lived `.takeover`
 * directory (mkdir is atomic too), the lock is read again and removed only if it is still the same
 * dead holder's, so two takers never both win. Locks are released in `finally` blocks and, for
 * paths that end with process.exit, on the process's `exit` event; a lock left by a process killed
 * outright is a dead holder's, taken over by the next command.
 */
import { randomBytes } from 'node:crypto';
import {
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  closeSync,
  readFileSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { processInfo, processStillRuns } from '../process/index.js';

export interface LockHolder {
  pid: number;
  /** The holder's start time (ProcessInfo.startTime); null where the process table is not readable. */
  startTime: string | null;
  /** What holds it, as the user would type it: `hydra continue 20261126-071200-ab12 claude`. */
  command: string;
  /** When it was taken (ISO 8601). */
  since: string;
  /** Tells this taking apart from any other (a takeover removes only the lock it found dead). */
  nonce: string;
}

const holderSchema = z.object({
  pid: z.number().int().positive(),
  startTime: z.string().nullable(),
  command: z.string(),
  since: z.string(),
  nonce: z.string(),
});

export interface HeldLock {
  readonly file: string;
  readonly holder: LockHolder;
  /** Removes the lock if it is still this one; safe to call more than once. */
  release(): void;
}

/** A takeover directory older than this was left by a process that died mid-takeover. */
const TAKEOVER_STALE_MS = 10_000;

const held = new Map<string, LockHolder>();
let exitHookInstalled = false;

function releaseFile(file: string, nonce: string): void {
  if (held.get(file)?.nonce === nonce) held.delete(file);
  if (readHolder(file)?.nonce !== nonce) return;
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}

/** On process.exit (which skips `finally` blocks), every lock this process holds goes. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [file, holder] of [...held]) releaseFile(file, holder.nonce);
  });
}

/** The holder written in a lock file; null when there is none, or it cannot be read. */
export function readHolder(file: string): LockHolder | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = holderSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Whether the process that wrote `holder` is still that process. */
function holderAlive(holder: LockHolder): boolean {
  // Same pid, another start time: the pid was reused; the holder is gone.
  return processStillRuns(holder.pid, holder.startTime);
}

/** Writes `holder` to `file` in one step: false when the file exists. */
function createExclusive(file: string, holder: LockHolder): boolean {
  const text = `${JSON.stringify(holder)}\n`;
  const temp = `${file}.${holder.pid}.${holder.nonce}.tmp`;
  writeFileSync(temp, text, { mode: 0o644 });
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links: O_EXCL, then the text (a reader may briefly see it empty).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o644);
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw inner;
    }
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    return true;
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Gone already.
    }
  }
}

/** An unreadable lock file is stale once it is older than this (a writer on the O_EXCL path is quick). */
const UNREADABLE_STALE_MS = 5_000;

const ageMs = (file: string): number | null => {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  return stat === undefined ? null : Date.now() - stat.mtimeMs;
};

/**
 * Removes the lock at `file` if it is still the dead holder `stale` (or still unreadable when
 * `stale` is null), under the takeover directory. False when another process is taking it over.
 */
function takeOver(file: string, stale: LockHolder | null): boolean {
  const guard = `${file}.takeover`;
  try {
    mkdirSync(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = ageMs(guard);
    if (age !== null && age > TAKEOVER_STALE_MS) {
      try {
        rmdirSync(guard);
      } catch {
        // Someone else cleared it first.
      }
    }
    return false;
  }
  try {
    const now = readHolder(file);
    const same = stale === null ? now === null : now?.nonce === stale.nonce;
    if (same) {
      try {
        unlinkSync(file);
      } catch {
        // Gone already.
      }
    }
  } finally {
    rmdirSync(guard);
  }
  return true;
}

/**
 * Takes the lock at `file` for `command` if it is free (or its holder is dead), else returns the
 * live holder (null holder: a lock being written this instant, or being taken over; try again).
 */
export function tryLock(file: string, command: string): HeldLock | { busy: LockHolder | null } {
  mkdirSync(path.dirname(file), { recursive: true });
  const mine: LockHolder = {
    pid: process.pid,
    startTime: processInfo(process.pid)?.startTime ?? null,
    command,
    since: new Date().toISOString(),
    nonce: randomBytes(8).toString('hex'),
  };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (createExclusive(file, mine)) {
      installExitHook();
      held.set(file, mine);
      return { file, holder: mine, release: () => releaseFile(file, mine.nonce) };
    }
    const holder = readHolder(file);
    if (holder !== null && holderAlive(holder)) return { busy: holder };
    if (holder === null) {
      const age = ageMs(file);
      // Gone meanwhile: try again; being written right now: busy for a moment.
      if (age === null) continue;
      if (age < UNREADABLE_STALE_MS) return { busy: null };
    }
    if (!takeOver(file, holder)) return { busy: null };
  }
  return { busy: readHolder(file) };
}

export interface LockRequest {
  file: string;
  /** What this process is doing, as the user typed it (recorded for whoever waits on it). */
  command: string;
  /** How long to wait for a live holder before refusing (ms). */
  waitMs: number;
  /** Builds the refusal once the wait is over. */
  refuse: (holder: LockHolder | null) => Error;
}

const POLL_MS = 100;

/** Takes the lock, waiting up to `waitMs` for its holder to finish; then refuses. */
export async function acquireLock(request: LockRequest): Promise<HeldLock> {
  const deadline = Date.now() + request.waitMs;
  for (;;) {
    const result = tryLock(request.file, request.command);
    if ('release' in result) return result;
    if (Date.now() >= deadline) throw request.refuse(result.busy);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
