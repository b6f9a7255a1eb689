/**
 * The UI's entry, the only module the CLI imports from src/ui: the text formatters every printer
 * shares (pure, with the one sanitizer for text hydra did not write), and runDashboard. Ink and React load only when runDashboard is called, so
 * `hydra runs`, `hydra show` and headless races, which print with the same formatters, never load
 * them (dependency-cruiser checks that this file imports the components only dynamically).
 */
import type { RaceHandle } from '../engine/index.js';
import type { DashboardOptions, DashboardResult } from './components/index.js';

export {
  checkSymbol,
  createTheme,
  detectAscii,
  eventText,
  explainRank,
  fileCount,
  formatCheck,
  formatCost,
  formatScore,
  formatDiff,
  formatDuration,
  formatContract,
  formatNewTests,
  formatWhere,
  formatTime,
  formatUsage,
  mergeMethodLabel,
  oneLine,
  rankingLines,
  runnerLabel,
  sanitize,
  sanitizeName,
  sanitizeStrings,
  shortRef,
  terminalSafeJson,
  visibleWidth,
} from './text/index.js';
export type { Symbols } from './text/index.js';
export type { DashboardOptions, DashboardResult } from './components/index.js';

/** Mounts the dashboard on a race (loading Ink first) and resolves when it exits. */
export async function runDashboard(
  handle: RaceHandle,
  options: DashboardOptions = {},
): Promise<DashboardResult> {
  const components = await import('./components/index.js');
  return components.runDashboard(handle, options);
}
