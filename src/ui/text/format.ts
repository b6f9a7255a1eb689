/**
 * The one formatter per figure: tokens, turns, cost, usage, durations, diffs and times. Every
 * printer uses these (the dashboard's panes and views, and through src/ui/index.ts `hydra show`,
 * `hydra runs` and the headless progress lines), so a figure reads the same everywhere, and a
 * figure nobody reported reads `n/a`, never 0.
 */
import { addCounts, assertNever, hasTokenCounts, type Usage } from '../../core/events.js';
import type { DiffSummary, MergeResult } from '../../engine/index.js';
import { displayWidth } from './text.js';

/** What an unknown figure reads as. */
const UNKNOWN = 'n/a';

/** 950 ms → "0s", 65 s → "1m05s", 2 h → "2h00m". */
export const formatDuration = (ms: number): string => {
  const totalSeconds = Number.isFinite(ms) ? Math.max(0, Math.floor(ms / 1000)) : 0;
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m${String(seconds).padStart(2, '0')}s`;
  return `${seconds}s`;
};

/** 950 → "950", 12_345 → "12.3k", 1_234_567 → "1.2M", unknown → "n/a". */
export const formatTokens = (count: number | null): string => {
  if (count === null) return UNKNOWN;
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${trimZero((count / 1000).toFixed(1))}k`;
  return `${trimZero((count / 1_000_000).toFixed(1))}M`;
};

const trimZero = (value: string): string => (value.endsWith('.0') ? value.slice(0, -2) : value);

/** Cache reads and writes together. */
export const cachedTokens = (usage: Usage): number | null =>
  addCounts(usage.cacheReadTokens, usage.cacheWriteTokens);

/** A plain count (turns in a table), "n/a" when unknown. */
export const formatCount = (count: number | null): string => (count === null ? UNKNOWN : String(count));

/** "1 turn", "3 turns", "turns n/a". */
const formatTurns = (turns: number | null): string =>
  turns === null ? `turns ${UNKNOWN}` : `${turns} turn${turns === 1 ? '' : 's'}`;

/** "$0.0123" when reported, "~$0.0123" when estimated, "n/a" when unknown. */
export const formatCost = (usage: Pick<Usage, 'costUsd' | 'costSource'>): string => {
  if (usage.costUsd === null || usage.costSource === 'unknown') return UNKNOWN;
  const amount = usage.costUsd >= 1 ? usage.costUsd.toFixed(2) : usage.costUsd.toFixed(4);
  return usage.costSource === 'estimated' ? `~$${amount}` : `$${amount}`;
};

/** Each round's cost, for an agent that had follow-ups: `rounds 1 $0.0120 · 2 ~$0.0040`. */
export const formatRoundCosts = (rounds: ReadonlyArray<{ usage: Usage }>, dot: string): string =>
  `rounds ${rounds.map((round, index) => `${index + 1} ${formatCost(round.usage)}`).join(` ${dot} `)}`;

/** Nothing reported at all (Cursor reports no usage; other agents before their first usage). */
const hasNoUsage = (usage: Usage): boolean =>
  !hasTokenCounts(usage) && usage.turns === null && usage.costUsd === null;

/** "in 2.5k out 52 cached 600 · 2 turns · $0.0126", or "tokens n/a (none reported) · cost n/a". */
export const formatUsage = (usage: Usage, dot: string): string => {
  if (hasNoUsage(usage)) return `tokens ${UNKNOWN} (none reported) ${dot} cost ${UNKNOWN}`;
  return `${tokenCounts(usage)} ${dot} ${formatTurns(usage.turns)} ${dot} ${formatCost(usage)}`;
};

const tokenCounts = (usage: Usage): string =>
  `in ${formatTokens(usage.inputTokens)} out ${formatTokens(usage.outputTokens)} cached ${formatTokens(cachedTokens(usage))}`;

/** The usage line in the longest form that fits `width` columns; the cost survives longest. */
export const formatUsageToFit = (usage: Usage, width: number, dot: string): string => {
  if (hasNoUsage(usage)) {
    const candidates = [formatUsage(usage, dot), `tokens ${UNKNOWN} ${dot} cost ${UNKNOWN}`, UNKNOWN];
    return candidates.find((text) => displayWidth(text) <= width) ?? UNKNOWN;
  }
  const tokens = [usage.inputTokens, usage.outputTokens, cachedTokens(usage)].map(formatTokens).join('/');
  const turns = usage.turns === null ? null : `${usage.turns}t`;
  const cost = formatCost(usage);
  const joined = (...parts: (string | null)[]): string =>
    parts.filter((part): part is string => part !== null).join(` ${dot} `);
  const candidates = [
    formatUsage(usage, dot),
    joined(tokenCounts(usage), turns, cost),
    joined(`${tokens} tok`, turns, cost),
    joined(cost, turns),
  ];
  return candidates.find((candidate) => displayWidth(candidate) <= width) ?? cost;
};

/** "2 files +42 -7", or "no changes". */
export const formatDiff = (diff: Pick<DiffSummary, 'filesChanged' | 'insertions' | 'deletions'>): string =>
  diff.filesChanged === 0
    ? 'no changes'
    : `${diff.filesChanged} file${diff.filesChanged === 1 ? '' : 's'} +${diff.insertions} -${diff.deletions}`;

/** A commit as its first seven characters, "?" when unknown. */
export const shortRef = (ref: string | null): string => (ref === null ? '?' : ref.slice(0, 7));

/** Epoch ms → "2026-11-23 05:22" in local time. */
export const formatTime = (epochMs: number): string => {
  const date = new Date(epochMs);
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
};

/** How a merge went, in words: `merge commit`, `squashed into one commit`, ... */
export const mergeMethodLabel = (method: MergeResult['method']): string => {
  switch (method) {
    case 'fast-forward':
      return 'fast-forward';
    case 'merge-commit':
      return 'merge commit';
    case 'squash':
      return 'squashed into one commit';
    case 'nothing-to-merge':
      return 'nothing to merge';
    default:
      return assertNever(method);
  }
};

/** `1 file`, `3 files`. */
export const fileCount = (count: number): string => `${count} file${count === 1 ? '' : 's'}`;
