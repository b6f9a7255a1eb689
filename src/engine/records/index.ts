/** Run records: where a run lives on disk (paths, ids), and reading and writing its records. */
export {
  agentPrivateGitDir,
  agentScratchDir,
  agentWorktreeDir,
  branchName,
  defaultCacheDir,
  defaultWorktreeRoot,
  isInside,
  newRunId,
  recordsRoot,
  repoKey,
  runRecordDir,
  runWorktreesDir,
  worktreePoolDir,
} from './paths.js';
export {
  MAX_JSON_BYTES,
  readCopyRecord,
  readPidRecords,
  removePidRecord,
  writeMergeRecord,
  writeCopyRecord,
  writeMeta,
  writePidRecord,
  writeSummary,
} from './record-files.js';
export { AGENT_ID_PATTERN, mergeSchema } from './schema.js';
export type { CopyRecord, RunMeta } from './schema.js';
export { EventLog } from './event-log.js';
export { fromLegacyUsage, loadRun, readRecordDir, readRun, trackedRunIds } from './read-run.js';
export type { LoadedRun } from './read-run.js';
export { listRuns, ownerAlive, recordedRunIds, runIdTime } from './runs.js';
export { LAST_RUN, resolveRunName } from './run-names.js';
export {
  knownSecrets,
  recordableConfig,
  redactSecrets,
  redactValue,
  rememberSecrets,
  secretsIn,
} from './redact.js';
export type { KnownSecret } from './redact.js';
export { eventJson } from './event-json.js';
export type {
  AgentEventRecord,
  AgentRound,
  AgentSummary,
  BaselineStatus,
  JudgeSummary,
  MergeResult,
  RaceSummary,
  RunListEntry,
  RunRecord,
  FinalStatus,
  SetupSource,
} from './record-types.js';
