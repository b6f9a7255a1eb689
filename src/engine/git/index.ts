/** Git: every git command hydra runs, the repository checks before a race, and agent worktrees and branches. */
export {
  GitCommandError,
  HYDRA_IDENTITY,
  commitSubject,
  gitAt,
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
  inspectRepo,
} from './repo.js';
export type { RepoCheck } from './repo.js';
export {
  branchExists,
  commitAgentResult,
  detachFromForeignBranch,
  pinWorktree,
  runPinned,
  createWorktree,
  deleteBranch,
  diffSummary,
  fullPatch,
  removeRunDirIfEmpty,
  removeWorktree,
} from './worktrees.js';
export type { AgentResult, PinnedWorktree } from './worktrees.js';
export { restoreUserRefs, snapshotRefs, snapshotTips } from './refs.js';
export type { RefSnapshot, RestoreInput, StashEntry } from './refs.js';
