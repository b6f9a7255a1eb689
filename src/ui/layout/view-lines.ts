/**
 * The scrollable views, pure functions from snapshot data to lines: an agent's detail (its whole
 * recent event log, detail-lines.ts), its diff (diff-lines.ts) and the table comparing every agent
 * (compare-lines.ts, its columns in compare-columns.ts). One place the screen and the tests import
 * them from.
 */
export { detailLines } from './detail-lines.js';
export { diffView } from './diff-lines.js';
export type { PatchState } from './diff-lines.js';
export { compareLines, compareRowOrder } from './compare-lines.js';
