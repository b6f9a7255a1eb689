/** Making each worktree ready: copied files, setup commands, shared dependencies, ports. */
export type { SetupSettings } from './settings.js';
export { DEFAULT_SETUP_TIMEOUT_MS, NO_SETUP } from './settings.js';
export type { SetupPlan } from './plan.js';
export { setupLogFile, setupPlanOf } from './plan.js';
export type { SetupOutcome } from './run.js';
export { runSetup } from './run.js';
export { setupFingerprint } from './fingerprint.js';
export type { CursorResolution } from './cursor.js';
export { CURSOR_SETUP_FILE, readCursorSetup, resolveCursorSetup } from './cursor.js';
export { readSetupRecord, writeSetupRecord } from './record.js';
export { setupFailedError, setupFailure } from './failure.js';
