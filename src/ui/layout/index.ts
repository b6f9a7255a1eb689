/** Layout: pure functions that turn a snapshot and the view state into the lines of a screen. */
export type { Line } from './lines.js';
export { buildScreen } from './screen.js';
export type { Body, PaneBox, Screen } from './screen.js';
export { compareRowOrder } from './view-lines.js';
export type { PatchState } from './view-lines.js';
