/**
 * hydra's locks, in the repository's shared git directory (`<git-common-dir>/hydra/locks/`, one
 * place for every worktree of the repository, never committed, and left alone by `hydra clean`):
 * - `run-<run-id>.lock`: held by whatever changes a run (its race, `hydra continue`, `hydra rerun`,
 *   the dashboard on a recorded run, `hydra merge`, `hydra clean`, `hydra open` when it makes a
 *   worktree again), so two of them never work on one run's worktrees, branches and record;
 * - `merge.lock`: held while a merge writes the user's checkout, index and branch, so two merges
 *   (of one run or of two, from the CLI or a dashboard) never interleave.
 */
import path from 'node:path';
import { EngineError } from '../errors.js';
import { repositoryCommonDir } from '../git/index.js';
import { acquireLock, tryLock } from './lock-file.js';
import type { HeldLock, LockHolder } from './lock-file.js';

/** How long a second command waits for the holder before it refuses (HYDRA_LOCK_WAIT_MS overrides). */
const DEFAULT_LOCK_WAIT_MS = 3000;

const lockWaitMs = (env: NodeJS.ProcessEnv = process.env): number => {
  const given = Number(env.HYDRA_LOCK_WAIT_MS);
  return env.HYDRA_LOCK_WAIT_MS !== undefined && Number.isFinite(given) && given >= 0
    ? given
    : DEFAULT_LOCK_WAIT_MS;
};

/**
 * `<git-common-dir>/hydra/locks` of the repository at `root`. The common directory is asked of git
 * once per directory in this process (pinned.ts): a race locked from its repository's root asks it
 * for the lock, and its settlings then have it.
 */
async function locksDir(root: string): Promise<string> {
  return path.join(await repositoryCommonDir(root), 'hydra', 'locks');
}

/** "`hydra continue 2026… claude` (pid 4242, since 07:40:12 UTC)", or "another hydra" when unknown. */
export function describeHolder(holder: LockHolder | null): string {
  if (holder === null) return 'another hydra (it is taking the lock this moment)';
  const since = holder.since.replace(/^\d{4}-\d{2}-\d{2}T/, '').replace(/\.\d+Z$|Z$/, ' UTC');
  return `\`${holder.command.replace(/[^\x20-\x7e]/g, '?')}\` (pid ${holder.pid}, since ${since})`;
}

/** The run's lock file; a run id that is not a plain file name (a forged record) is refused. */
async function runLockFile(root: string, runId: string): Promise<string> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(runId)) {
    throw new EngineError({
      kind: 'Refused',
      message: `"${runId.replace(/[^\x20-\x7e]/g, '?')}" is not a run id hydra makes.`,
      hint: 'Run `hydra runs` to list the recorded runs.',
    });
  }
  return path.join(await locksDir(root), `run-${runId}.lock`);
}

/** Takes run `runId`'s lock for `command`, or refuses naming the command that holds it. */
export async function lockRun(
  root: string,
  runId: string,
  command: string,
  options: { waitMs?: number; what?: string } = {},
): Promise<HeldLock> {
  const file = await runLockFile(root, runId);
  return acquireLock({
    file,
    command,
    waitMs: options.waitMs ?? lockWaitMs(),
    refuse: (holder) =>
      new EngineError({
        kind: 'Refused',
        message: `Run ${runId} is in use by ${describeHolder(holder)}${options.what === undefined ? '' : `, so ${options.what}`}.`,
        hint: `Nothing was changed. Wait for it to finish (or stop it there), then try again. If no hydra is running, that lock is stale: remove ${file}.`,
      }),
  });
}

/** The run's lock if it is free now, else who holds it (`hydra clean` skips a run in use). */
export async function tryLockRun(
  root: string,
  runId: string,
  command: string,
): Promise<HeldLock | { busy: LockHolder | null }> {
  return tryLock(await runLockFile(root, runId), command);
}

/** Takes the repository's merge lock for `command`, or refuses naming the merge under way. */
export async function lockMerge(root: string, command: string): Promise<HeldLock> {
  const file = path.join(await locksDir(root), 'merge.lock');
  return acquireLock({
    file,
    command,
    waitMs: lockWaitMs(),
    refuse: (holder) =>
      new EngineError({
        kind: 'Refused',
        message: `Another merge into this repository is under way: ${describeHolder(holder)}.`,
        hint: `Nothing was changed. Let it finish, then merge again. If no hydra is running, that lock is stale: remove ${file}.`,
      }),
  });
}
