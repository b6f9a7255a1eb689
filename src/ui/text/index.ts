/** Text helpers: the one formatter for figures, display width and truncation, and the colour theme. */
export {
  agentElapsed,
  eventLine,
  formatCost,
  formatDiff,
  formatDuration,
  formatTokens,
  formatUsage,
  formatUsageToFit,
  idleLabel,
  isRunning,
  isShownInPane,
  phaseLabel,
  raceCounts,
  shortRef,
  statusLabel,
  statusSymbol,
  statusTone,
} from './format.js';
export { displayWidth, oneLine, padEnd, padStart, sanitize, truncate, wrap } from './text.js';
export { createTheme, resolveDisplayOptions } from './theme.js';
export type { Theme, Tone } from './theme.js';
