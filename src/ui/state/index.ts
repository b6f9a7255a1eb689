/** Dashboard state: the view state and its reducer, the key table and keymap, the snapshot store, the exit code. */
export { dashboardExitCode } from './exit-code.js';
export { dialogHints, footerHints } from './key-bindings.js';
export type { KeyHint } from './key-bindings.js';
export { keymap } from './keymap.js';
export { DEFAULT_THROTTLE_MS, createSnapshotStore } from './snapshot-store.js';
export type { ReceivedSnapshot } from './snapshot-store.js';
export { initialViewState, reduce, resolveScroll } from './view-state.js';
export type {
  Action,
  Busy,
  Dialog,
  Effect,
  Notice,
  Outcome,
  View,
  ViewContext,
  ViewState,
} from './view-state.js';
