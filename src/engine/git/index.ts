/** Git: every git command hydra runs, the repository checks before a race, agent worktrees and branches, and the guard of the user's refs and stash. */
export {
  GitCommandError,
  HYDRA_IDENTITY,
  commitSubject,
  gitLine,
  gitVersion,
  runGit,
  splitZ,
  versionAtLeast,
} from './git.js';
export {
  HYDRA_EXCLUDES,
  checkRepoForRace,
  dirtyPaths,
  ensureExcluded,
  findRepoRoot,
  blocksRace,
  inspectRepo,
} from './repo.js';
export type { RepoCheck } from './repo.js';
export {
  assertWorktreeFree,
  branchExists,
  commitAgentResult,
  createDetachedWorktree,
  createWorktree,
  largeCheckout,
  deleteBranch,
  deleteBranches,
  detachFromForeignBranch,
  knowRepository,
  diffSummary,
  fullPatch,
  pinWorktree,
  pooledWorktrees,
  removeRunDirIfEmpty,
  removeWorktree,
  removeWorktrees,
  stageChanges,
  reopenWorktree,
  returnToPool,
  takePooledWorktree,
} from './worktrees.js';
export type { PinnedWorktree, WorktreeHead } from './worktrees.js';
export { restoreAfterRace, restoreUserRefs, snapshotRefs, snapshotTips } from './refs.js';
export type { RefSnapshot } from './refs.js';
