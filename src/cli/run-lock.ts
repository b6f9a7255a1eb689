/**
 * The run lock around a command that changes a run (a race, `hydra continue`, `hydra rerun`, the
 * dashboard on a recorded run): taken before the run's record is read, released however the
 * command ends (a process.exit releases it too; a hydra killed outright leaves a dead holder's
 * lock, which the next command takes over).
 */
import { findRepoRoot, lockRun } from '../engine/index.js';

export async function withRunLock<T>(
  cwd: string,
  runId: string,
  command: string,
  what: string,
  work: () => Promise<T>,
): Promise<T> {
  const root = findRepoRoot(cwd);
  // Outside a repository there is no run to protect; the command says so itself.
  if (root === null) return work();
  const lock = await lockRun(root, runId, command, { what });
  try {
    return await work();
  } finally {
    lock.release();
  }
}
