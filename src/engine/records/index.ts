/** Run records: where a run lives on disk (paths, ids), and reading and writing its records. */
export {
  agentScratchDir,
  agentWorktreeDir,
  branchName,
  defaultCacheDir,
  defaultWorktreeRoot,
  isInside,
  newRunId,
  runRecordDir,
  runWorktreesDir,
} from './paths.js';
export {
  EventLog,
  listRuns,
  ownerAlive,
  readPidRecords,
  readRecordDir,
  readRun,
  recordedRunIds,
  removePidRecord,
  writeMergeRecord,
  writeMeta,
  writePidRecord,
  writeSummary,
} from './records.js';
export type { RunMeta } from './records.js';
export { knownSecrets, recordableConfig, redactValue } from './redact.js';
