/** Making each worktree ready: copied files, setup commands, shared dependencies, ports. */
export type { SetupSettings } from './settings.js';
export { DEFAULT_SETUP_TIMEOUT_MS, NO_SETUP } from './settings.js';
export { copiedForMerge, copyIncludedFiles, describeCopies } from './copy.js';
export { ignoredNotCopied, WORKTREE_INCLUDE } from './include-list.js';
export type { CopiedSecrets, CopyPreview, CopyReport, CopyRequest, CopySkip } from './copy.js';
export { MIN_SECRET_LENGTH } from './env-values.js';
export {
  describeShares,
  sharedDirs,
  ownLayers,
  remoteShareWarnings,
  SHARED_STAGE,
  shareWarning,
  worktreeShares,
} from './share.js';
export type { ShareMount, SharedDir } from './share.js';
export { describeShareSupport, shareSupport } from './share-support.js';
export { BASELINE_LEASE, createPortLeases, portLeaseDir } from './ports.js';
export type { PortLeases } from './ports.js';
export { PORT_BLOCK } from './port-range.js';
export type { PortRange } from './port-range.js';
export { BASELINE_AGENT, worktreeEnv } from './env.js';
export type { WorktreeIdentity } from './env.js';
export type { SetupPlan } from './plan.js';
export { setupLogFile, setupPlanOf } from './plan.js';
export type { SetupOutcome } from './run.js';
export type { RacePlace, RunPlace } from './run-place.js';
export { runSetup } from './run.js';
export { setupFingerprint } from './fingerprint.js';
export type { CursorResolution } from './cursor.js';
export { CURSOR_SETUP_FILE, readCursorSetup, resolveCursorSetup } from './cursor.js';
export { readSetupRecord, writeSetupRecord } from './record.js';
export { setupFailedError, setupFailure } from './failure.js';
