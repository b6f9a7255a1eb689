/**
 * The dashboard's exit code rule, the same as headless `hydra race`:
 * - 0 when a result was merged;
 * - 0 when at least one agent completed (its result is a commit on its branch, reviewable and
 *   mergeable), even if the user quit without merging;
 * - 1 otherwise: every agent failed, timed out, was stopped or skipped, the race was cancelled
 *   before anything completed, or the race itself failed (not a repository, no usable agent...).
 */
import type { MergeResult, RaceSnapshot } from '../../engine/index.js';

export const dashboardExitCode = (snapshot: RaceSnapshot, merged: MergeResult | null): number => {
  if (merged !== null) return 0;
  // The race failed (its engine crashed, or the round it was opened for could not start).
  if (snapshot.phase === 'failed') return 1;
  if (snapshot.error !== null && snapshot.agents.every((agent) => agent.status !== 'completed')) return 1;
  return snapshot.agents.some((agent) => agent.status === 'completed') ? 0 : 1;
};
