/**
 * The race's end, the `cleanUp` actor: the user's git settings put back, containers made ahead for
 * agents that never started discarded, and the race's worktrees removed (or given back to the pool)
 * and the branches of results not kept deleted, with their agents' CLI state copies.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fromPromise } from 'xstate';
import { discardPrecreated } from '../container/index.js';
import {
  deleteBranches,
  removeRunDirIfEmpty,
  removeWorktrees,
  restoreAfterRace,
  returnToPool,
} from '../git/index.js';
import { readSetupRecord } from '../setup/index.js';
import { trace } from '../../trace.js';
import type { CleanUpInput, CleanUpOutput } from './race-types.js';
import { trackWork } from './work-tracker.js';

async function cleanUpRace(input: CleanUpInput): Promise<CleanUpOutput> {
  trace('race: cleaning up');
  const removed: string[] = [];
  const runId = input.launches[0]?.runId;
  // The shared git settings put back, and a ref store damaged after the agents settled repaired.
  const warnings = runId === undefined ? [] : await restoreAfterRace(input.repoRoot, runId);
  // Containers created ahead for agents that never started (a cancel before they did, a failed setup).
  if (runId !== undefined) await discardPrecreated(runId);
  if (input.keepWorktrees) return { removed, warnings };
  const launches = input.launches.filter((launch) => !input.keepWorktreesOf.includes(launch.agent));
  const toRemove: Array<{ dir: string; area: string }> = [];
  for (const launch of launches) {
    if (!existsSync(launch.worktree)) continue;
    // Up to the pool's size, a worktree goes back to the pool instead (detached, on no branch).
    // With what its setup left (its record, written once setup succeeded), for a later race to keep.
    const setup =
      launch.setup === undefined || launch.setup === null ? null : await readSetupRecord(launch.setup);
    const pooled =
      input.pool !== undefined &&
      (await returnToPool(input.repoRoot, launch.worktree, input.pool.dir, input.pool.size, setup));
    if (!pooled) toRemove.push({ dir: launch.worktree, area: path.dirname(launch.worktree) });
    removed.push(launch.worktree);
  }
  // All at once, and git's bookkeeping pruned once for the race (removeWorktrees).
  await removeWorktrees(input.repoRoot, toRemove);
  const branches = launches.filter((launch) => !input.keepBranchesOf.includes(launch.agent));
  removed.push(
    ...(await deleteBranches(
      input.repoRoot,
      branches.map((launch) => launch.branch),
    )),
  );
  // A result kept on its branch keeps its CLI state copy, for its follow-ups; the others' go.
  for (const launch of branches)
    if (launch.cliState) await rm(launch.cliState.root, { recursive: true, force: true });
  for (const dir of new Set(input.launches.map((launch) => path.dirname(launch.worktree))))
    await removeRunDirIfEmpty(dir);
  trace('race: cleaned up');
  return { removed, warnings };
}

export const cleanUpLogic = fromPromise<CleanUpOutput, CleanUpInput>(async ({ input }) => {
  const runId = input.launches[0]?.runId;
  const work = cleanUpRace(input);
  return runId === undefined ? work : trackWork(runId, work);
});
