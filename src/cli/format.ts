/** Small formatters for human output (stderr messages, doctor, runs, show). */
import type { Usage } from '../adapters/events.js';

/** Quotes one argument for display in a POSIX shell (for copy-paste, never for execution). */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export const shellJoin = (argv: readonly string[]): string => argv.map(shellQuote).join(' ');

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds - minutes * 60);
  return `${minutes}m${String(rest).padStart(2, '0')}s`;
}

/** `$0.0123` reported, `~$0.0123` estimated, `n/a` unknown. */
export function formatCost(costUsd: number | null, source: Usage['costSource'] = 'reported'): string {
  if (costUsd === null || source === 'unknown') return 'n/a';
  const amount = costUsd < 1 ? costUsd.toFixed(4) : costUsd.toFixed(2);
  return source === 'estimated' ? `~$${amount}` : `$${amount}`;
}

export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(1)}k`;
  return `${(count / 1_000_000).toFixed(2)}M`;
}

export function formatUsage(usage: Usage): string {
  const cached = usage.cacheReadTokens > 0 ? `, ${formatTokens(usage.cacheReadTokens)} cached` : '';
  const turns = usage.turns === 1 ? '1 turn' : `${usage.turns} turns`;
  return `${formatTokens(usage.inputTokens)} in / ${formatTokens(usage.outputTokens)} out${cached}, ${turns}, ${formatCost(usage.costUsd, usage.costSource)}`;
}

export function formatDiff(diff: { filesChanged: number; insertions: number; deletions: number }): string {
  const files = diff.filesChanged === 1 ? '1 file' : `${diff.filesChanged} files`;
  return `${files} +${diff.insertions} -${diff.deletions}`;
}

/** One line: newlines folded, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

export function formatTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Pads cells to column widths; the last column is not padded. */
export function table(
  rows: readonly (readonly string[])[],
  visibleLength: (s: string) => number = (s) => s.length,
): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, visibleLength(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, index) =>
        index === row.length - 1 ? cell : cell + ' '.repeat((widths[index] ?? 0) - visibleLength(cell)),
      )
      .join('  ')
      .trimEnd(),
  );
}

/** Length without ANSI escape sequences. */
export const visibleLength = (text: string): string['length'] =>
  // eslint-disable-next-line no-control-regex
  text.replace(/\u001b\[[0-9;]*m/g, '').length;
