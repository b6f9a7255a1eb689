/** One writer at a time: the run and merge locks every command that changes a run or the checkout takes. */
export { holderAlive, readHolder, tryLock, acquireLock, withLock } from './lock-file.js';
export type { HeldLock, LockHolder, LockRequest } from './lock-file.js';
export {
  DEFAULT_LOCK_WAIT_MS,
  describeHolder,
  lockMerge,
  lockRun,
  locksDir,
  tryLockRun,
} from './run-locks.js';
