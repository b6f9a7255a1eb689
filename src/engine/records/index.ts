/** Run records: where a run lives on disk (paths, ids), and reading and writing its records. */
export {
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
  EventLog,
  listRuns,
  loadRun,
  ownerAlive,
  readPidRecords,
  readRecordDir,
  readRun,
  recordedRunIds,
  runIdTime,
  trackedRunIds,
  removePidRecord,
  writeMergeRecord,
  writeMeta,
  writePidRecord,
  writeSummary,
} from './records.js';
export type { LoadedRun, RunMeta } from './records.js';
export { LAST_RUN, resolveRunName } from './run-names.js';
export { knownSecrets, recordableConfig, redactSecrets, redactValue, secretsIn } from './redact.js';
export type { KnownSecret } from './redact.js';
export { eventJson } from './event-json.js';
