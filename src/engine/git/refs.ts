/**
 * The user's refs, guarded while agents run. Every worktree of a repository shares its branches,
 * tags, remote-tracking refs, notes, replacements and `refs/stash`, so an agent can move, delete or
 * create them from its own worktree (a `git checkout dev && git commit`, a `git stash drop`, a
 * `git tag -d`, a forged `origin/main`). hydra takes a snapshot when the race starts and, after
 * each agent settles and when the race ends, puts back every change to the user's refs, stash and
 * shared git settings (git-dir.ts) and says what it found. Only this run's own branches
 * (`hydra/<run>/...`) may change. The restore cannot destroy: a renamed branch is renamed back (its
 * reflog with it), the user's refs come back before the agent's are deleted and again after (a
 * `dev/x` in the way of `dev`), every result is read back, and when something cannot be put back
 * hydra stops and names the `git update-ref` commands that would.
 *
 * This file takes the snapshot; ref-state.ts reads the refs, ref-restore.ts puts them back and
 * ref-repair.ts repairs a damaged `packed-refs` or HEAD.
 */
import { restoreGitDir, snapshotGitDir } from './git-dir.js';
import { listStash, messageOf, readRefState, runBranches, userRefs } from './ref-state.js';
import type { RefSnapshot } from './ref-state.js';
import { ensureExcluded } from './repo.js';
import { repairRefStore } from './ref-repair.js';

export { restoreUserRefs } from './ref-restore.js';
export type { RefSnapshot } from './ref-state.js';

/** The latest snapshot of each run in this process (a round takes a new one), by root and run. */
const latest = new Map<string, RefSnapshot>();

/** The user's refs, stash and checkout, taken before any agent starts. */
export async function snapshotRefs(root: string, runId: string): Promise<RefSnapshot> {
  // hydra's own exclusion lines are in before the copy of info/ is taken.
  const gitDir = ensureExcluded(root).then(() => snapshotGitDir(root));
  gitDir.catch(() => undefined);
  const state = await readRefState(root);
  const snapshot: RefSnapshot = {
    runId,
    refs: userRefs(state, runId),
    runBranches: runBranches(state, runId),
    stash: await listStash(root, state),
    head: state.head,
    gitDir: await gitDir,
  };
  latest.set(`${root}\0${runId}`, snapshot);
  return snapshot;
}

/**
 * When a race (or a round, or a shell) is over, before its merge and its clean-up: the user's shared
 * git settings (config, hooks, info/) put back once more from the run's latest snapshot in this
 * process, for what ran after the agents settled (their checks run the agents' code). Refs are not
 * touched here: each agent's settling put them back already, and from then on a moved or new ref
 * may be the user's own work (a branch made or switched to while the results waited), which a
 * restore must never delete. Returns the warnings; none without a snapshot.
 */
export async function restoreAfterRace(root: string, runId: string): Promise<string[]> {
  const snapshot = latest.get(`${root}\0${runId}`);
  if (snapshot?.gitDir === undefined) return [];
  const found = 'during the race (found when the race ended)';
  const warnings = await restoreGitDir(root, snapshot.gitDir, found).catch((error: unknown) => [
    `hydra could not check the repository's git settings: ${messageOf(error)}`,
  ]);
  // A ref store git cannot read (a damaged packed-refs or HEAD) is repaired from the snapshot.
  try {
    await readRefState(root);
  } catch (first) {
    const repaired = await repairRefStore(root, snapshot).catch(() => [] as string[]);
    warnings.push(
      `The repository's refs were damaged ${found} (${messageOf(first)}); hydra repaired ${repaired.join(' and ') || 'nothing it could'}.`,
    );
  }
  return warnings;
}

/** The current commit of every ref in the snapshot (for telling the agent's commits from the user's). */
export const snapshotTips = (snapshot: RefSnapshot): string[] => [
  ...new Set([...Object.values(snapshot.refs), ...snapshot.stash.map((entry) => entry.commit)]),
];
