/**
 * Ports for the agents' dev servers. Each agent (its setup and checks too), and the baseline, gets
 * the first port of a block of PORT_BLOCK ports that no other agent of any running race on this
 * machine holds, across hydra processes and repositories. A block is held by a lease file in a
 * per-user directory (`<tmpdir>/hydra-<uid>/ports/<port>.lease`, 0700), taken in one atomic step
 * and naming its holder: pid, the pid's start time, run and agent. It is a lock file of
 * locks/lock-file.ts, so a lease left by a hydra that died (pid gone, or reused by another process)
 * is taken over the same way a dead holder's lock is. A block whose first port does not bind on
 * 127.0.0.1 (another program holds it) is skipped. A race's leases go when it ends (race.ts),
 * on process exit (the lock files' exit hook), or, after a kill, to the next taker.
 */
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EngineError } from '../errors.js';
import { readHolder, tryLock } from '../locks/index.js';
import type { HeldLock } from '../locks/index.js';
import { DEFAULT_PORT_RANGE, PORT_BLOCK } from './port-range.js';
import type { PortRange } from './port-range.js';

/** The lease key of the baseline's block (no agent name starts with a dot). */
export const BASELINE_LEASE = '.baseline';

/** A race's blocks: one per agent (and the baseline), held until `release`. */
export interface PortLeases {
  /**
   * The first port of `owner`'s block: the block it holds (a follow-up keeps its agent's), else a
   * free one, leased until `release`. Rejects when the range has no free block.
   */
  lease(owner: string): Promise<number>;
  /** Gives back every block of the race; safe to call more than once. */
  release(): void;
}

export interface PortLeasesOptions {
  runId: string;
  range?: PortRange;
  /** Where the lease files are; by default portLeaseDir(). */
  dir?: string;
}

/** `path` must be a directory of this user's that nobody else may write: it holds the leases. */
function ensurePrivateDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  const problem = stat.isSymbolicLink()
    ? 'it is a symbolic link'
    : !stat.isDirectory()
      ? 'it is not a directory'
      : uid !== undefined && stat.uid !== uid
        ? `it belongs to user ${stat.uid}`
        : null;
  if (problem !== null)
    throw new EngineError({
      kind: 'Refused',
      message: `${dir}, where hydra keeps its port leases, is not a private directory of yours: ${problem}.`,
      hint: `Remove ${dir} (or set TMPDIR to a directory of your own) and start the race again.`,
    });
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** The machine-wide lease directory of this user: `<tmpdir>/hydra-<uid>/ports`, made private. */
export function portLeaseDir(tmp: string = os.tmpdir()): string {
  const base = path.join(tmp, `hydra-${process.getuid?.() ?? os.userInfo().username}`);
  const dir = path.join(base, 'ports');
  ensurePrivateDir(base);
  ensurePrivateDir(dir);
  return dir;
}

/** Whether `port` can be bound on 127.0.0.1 right now (nothing else listens there). */
const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });

/** The first ports of the range's blocks, in order. */
const blockStarts = (range: PortRange): number[] => {
  const starts: number[] = [];
  for (let port = range.first; port + PORT_BLOCK - 1 <= range.last; port += PORT_BLOCK) starts.push(port);
  return starts;
};

interface Lease {
  port: number;
  lock: HeldLock;
}

/** The first free block of the range, leased for `holder`; rejects when there is none. */
async function takeBlock(dir: string, range: PortRange, holder: string): Promise<Lease> {
  for (const port of blockStarts(range)) {
    const taken = tryLock(path.join(dir, `${port}.lease`), holder);
    // Held by a live agent of some race (or being taken this instant): the next block.
    if (!('release' in taken)) continue;
    if (await portFree(port)) return { port, lock: taken };
    taken.release();
  }
  throw new EngineError({
    kind: 'Refused',
    message: `No free block of ${PORT_BLOCK} ports in ${range.first}-${range.last}: running races hold them, or other programs listen on their first ports.`,
    hint: 'Give hydra another range in hydra.toml: [race] port_range = [30000, 39999].',
  });
}

/** Whether the lease file still names this taking (nobody removed it meanwhile). */
const stillHeld = (lease: Lease): boolean => readHolder(lease.lock.file)?.nonce === lease.lock.holder.nonce;

/** The blocks of one race (run), taken lazily per agent and given back together. */
export function createPortLeases(options: PortLeasesOptions): PortLeases {
  const range = options.range ?? DEFAULT_PORT_RANGE;
  // Being taken, and taken: a block taken is given back at once by `release`, one being taken when it is.
  const taking = new Map<string, Promise<Lease>>();
  const held = new Map<string, Lease>();
  let released = false;
  const take = async (owner: string): Promise<Lease> =>
    takeBlock(options.dir ?? portLeaseDir(), range, `hydra run ${options.runId} agent ${owner}`);
  return {
    async lease(owner) {
      // One taking per owner at a time: a second ask waits for the first's block.
      for (let pending = taking.get(owner); pending !== undefined; pending = taking.get(owner))
        await pending.catch(() => undefined);
      const current = held.get(owner);
      if (current !== undefined && stillHeld(current)) return current.port;
      const next = take(owner);
      taking.set(owner, next);
      try {
        const lease = await next;
        // The race ended while the block was being taken: it goes at once.
        if (released) lease.lock.release();
        else held.set(owner, lease);
        return lease.port;
      } finally {
        if (taking.get(owner) === next) taking.delete(owner);
      }
    },
    release() {
      released = true;
      for (const lease of held.values()) lease.lock.release();
      held.clear();
    },
  };
}
