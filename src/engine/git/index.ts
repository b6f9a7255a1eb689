/** Git: every git command hydra runs, the repository checks before a race, agent worktrees and branches, and the guard of the user's refs and stash. */
export {
  GitCommandError,
  HYDRA_IDENTITY,
  NO_HOOKS,
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
  createDetachedWorktree,
  createWorktree,
  largeCheckout,
  deleteBranch,
  deleteBranches,
  existingBranches,
  removeRunDirIfEmpty,
  removeWorktree,
  removeWorktrees,
  reopenWorktree,
} from './worktrees.js';
export { knowRepository, pinCheckout, pinWorktree, repositoryCommonDir, runPinned } from './pinned.js';
export { bringBackPrivateGit, preparePrivateGit, privateGitDirOf } from './private-git.js';
export type { PinnedWorktree } from './pinned.js';
export { pooledWorktrees, returnToPool, takePooledWorktree } from './pool.js';
export { commitAgentResult, detachFromForeignBranch, stageChanges } from './result-commit.js';
export type { WorktreeHead } from './result-commit.js';
export { diffSummary, fullPatch } from './diff.js';
export { restoreAfterRace, restoreUserRefs, snapshotRefs, snapshotTips } from './refs.js';
export type { RefSnapshot } from './refs.js';
export type { BroughtCommit, DiffSummary, FileStat, SecretFound } from './diff.js';
export type { RepoInfo } from './repo.js';
