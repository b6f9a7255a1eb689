/** What happens to finished runs: merging a result into the user's branch, and cleaning runs up. */
export { cleanRuns } from './clean.js';
export { mergeAgentBranch, protectedFilesNote } from './merge.js';
export { mergeRun } from './merge-run.js';
export { commitsBrought } from './secret-scan.js';
export type { MergeRequest } from './merge.js';
export { openWorktree } from './open.js';
export type { MergeOptions } from './merge-checks.js';
export type { CleanReport } from './clean.js';
