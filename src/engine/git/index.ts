/** Git: every git command hydra runs, the repository checks before a race, and agent worktrees and branches. */
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
  inspectRepo,
} from './repo.js';
export type { RepoCheck } from './repo.js';
export {
  assertWorktreeFree,
  branchExists,
  commitAgentResult,
  createWorktree,
  deleteBranch,
  diffSummary,
  fullPatch,
  removeRunDirIfEmpty,
  removeWorktree,
} from './worktrees.js';
