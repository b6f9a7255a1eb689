/**
 * Text: the one formatter for every figure and event line, display width and truncation, and the
 * colour theme. Pure (no Ink, no React): the CLI's printers use it too, through src/ui/index.ts.
 */
export { eventLine, eventText, isShownInPane } from './event-line.js';
export {
  checkFigure,
  checkSymbol,
  checkTone,
  formatCheck,
  formatScore,
  formatScoreTotal,
  UNVERIFIED,
} from './checks.js';
export { contractTone, formatContract, formatNewTests, formatWhere, newTestsFigure } from './checks.js';
export {
  cachedTokens,
  fileCount,
  mergeMethodLabel,
  formatCost,
  formatRoundCosts,
  formatCount,
  formatDiff,
  formatDuration,
  formatTime,
  formatTokens,
  formatUsage,
  formatUsageToFit,
  shortRef,
} from './format.js';
export { agentStatusLabel, runnerLabel } from './runner.js';
export {
  agentElapsed,
  idleLabel,
  isRunning,
  phaseLabel,
  raceCounts,
  statusLabel,
  statusSymbol,
  statusTone,
} from './status.js';
export {
  displayWidth,
  oneLine,
  padEnd,
  padStart,
  plainEllipsis,
  sanitize,
  sanitizeName,
  sanitizeStrings,
  terminalSafeJson,
  truncate,
  visibleWidth,
  wrap,
} from './text.js';
export { createTheme, detectAscii, resolveDisplayOptions } from './theme.js';
export type { Symbols, Theme, Tone } from './theme.js';
export { explainRank, rankingLines } from './verdict.js';
