/** Making each worktree ready: copied files, setup commands, shared dependencies, ports. */
export type { SetupSettings } from './settings.js';
export { DEFAULT_SETUP_TIMEOUT_MS, NO_SETUP } from './settings.js';
export {
  describeShares,
  sharedDirs,
  ownLayers,
  SHARED_STAGE,
  shareWarning,
  worktreeShares,
} from './share.js';
export type { ShareMount, SharedDir } from './share.js';
export { describeShareSupport, shareSupport } from './share-support.js';
