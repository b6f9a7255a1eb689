/** One writer at a time: the run and merge locks every command that changes a run or the checkout takes. */
export { readHolder, tryLock, acquireLock } from './lock-file.js';
export type { HeldLock, LockHolder, LockRequest } from './lock-file.js';
export { describeHolder, lockMerge, lockRun, tryLockRun } from './run-locks.js';
