/**
 * Pure formatting of snapshot data into short terminal strings.
 */
import { assertNever, type AgentEvent, type Usage } from '../../adapters/events.js';
import type { AgentSnapshot, AgentStatus, DiffSummary, RaceSnapshot } from '../../engine/index.js';
import type { Symbols, Tone } from './theme.js';
import { oneLine } from './text.js';

/** 950 ms → "0s", 65 s → "1m05s", 2 h → "2h00m". */
export const formatDuration = (ms: number): string => {
  const totalSeconds = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m${String(seconds).padStart(2, '0')}s`;
  return `${seconds}s`;
};

/** 950 → "950", 12_345 → "12.3k", 1_234_567 → "1.2M". */
export const formatTokens = (count: number): string => {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${trimZero((count / 1000).toFixed(1))}k`;
  return `${trimZero((count / 1_000_000).toFixed(1))}M`;
};

const trimZero = (value: string): string => (value.endsWith('.0') ? value.slice(0, -2) : value);

/** "$0.0123" when reported, "~$0.0123" when estimated, "n/a" when unknown. */
export const formatCost = (usage: Pick<Usage, 'costUsd' | 'costSource'>): string => {
  if (usage.costUsd === null || usage.costSource === 'unknown') return 'n/a';
  const amount = usage.costUsd >= 1 ? usage.costUsd.toFixed(2) : usage.costUsd.toFixed(4);
  return usage.costSource === 'estimated' ? `~$${amount}` : `$${amount}`;
};

export const formatUsage = (usage: Usage, dot = '·'): string => {
  const cached = usage.cacheReadTokens + usage.cacheWriteTokens;
  const turns = `${usage.turns} turn${usage.turns === 1 ? '' : 's'}`;
  return `in ${formatTokens(usage.inputTokens)} out ${formatTokens(usage.outputTokens)} cached ${formatTokens(cached)} ${dot} ${turns} ${dot} ${formatCost(usage)}`;
};

/** Nothing reported at all (Cursor reports no tokens; other agents before their first usage). */
export const hasNoUsage = (usage: Usage): boolean =>
  usage.costSource === 'unknown' &&
  usage.turns === 0 &&
  usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens === 0;

/** The usage line in the longest form that fits `width` columns; the cost survives longest. */
export const formatUsageToFit = (usage: Usage, width: number, dot = '·'): string => {
  if (hasNoUsage(usage)) {
    const candidates = [`tokens n/a (none reported) ${dot} cost n/a`, `tokens n/a ${dot} cost n/a`, 'n/a'];
    return candidates.find((text) => text.length <= width) ?? 'n/a';
  }
  const cached = formatTokens(usage.cacheReadTokens + usage.cacheWriteTokens);
  const tokensIn = formatTokens(usage.inputTokens);
  const tokensOut = formatTokens(usage.outputTokens);
  const cost = formatCost(usage);
  const candidates = [
    formatUsage(usage, dot),
    `in ${tokensIn} out ${tokensOut} cached ${cached} ${dot} ${usage.turns}t ${dot} ${cost}`,
    `${tokensIn}/${tokensOut}/${cached} tok ${dot} ${usage.turns}t ${dot} ${cost}`,
    `${cost} ${dot} ${usage.turns}t`,
  ];
  return candidates.find((candidate) => candidate.length <= width) ?? cost;
};

export const formatDiff = (diff: Pick<DiffSummary, 'filesChanged' | 'insertions' | 'deletions'>): string =>
  diff.filesChanged === 0
    ? 'no changes'
    : `${diff.filesChanged} file${diff.filesChanged === 1 ? '' : 's'} +${diff.insertions} -${diff.deletions}`;

export const shortRef = (ref: string | null): string => (ref === null ? '?' : ref.slice(0, 7));

export const isRunning = (status: AgentStatus): boolean =>
  status === 'pending' || status === 'spawning' || status === 'running';

export const statusLabel = (status: AgentStatus): string => {
  switch (status) {
    case 'pending':
      return 'waiting';
    case 'spawning':
      return 'starting';
    case 'running':
      return 'running';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'timed_out':
      return 'timed out';
    case 'cancelled':
      return 'stopped';
    case 'skipped':
      return 'skipped';
    default:
      return assertNever(status);
  }
};

export const statusTone = (status: AgentStatus): Tone => {
  switch (status) {
    case 'pending':
    case 'spawning':
    case 'running':
      return 'accent';
    case 'completed':
      return 'ok';
    case 'failed':
    case 'timed_out':
      return 'error';
    case 'cancelled':
    case 'skipped':
      return 'warn';
    default:
      return assertNever(status);
  }
};

export const statusSymbol = (status: AgentStatus, symbols: Symbols, spinnerFrame: number): string => {
  switch (status) {
    case 'pending':
      return symbols.pending;
    case 'spawning':
    case 'running':
      return symbols.spinner[spinnerFrame % symbols.spinner.length] ?? symbols.pending;
    case 'completed':
      return symbols.ok;
    case 'failed':
    case 'timed_out':
      return symbols.fail;
    case 'cancelled':
    case 'skipped':
      return symbols.stopped;
    default:
      return assertNever(status);
  }
};

/** Time the agent has been running (or ran), from the snapshot's clock. */
export const agentElapsed = (agent: AgentSnapshot, now: number): number | null => {
  if (agent.startedAt === null) return null;
  return Math.max(0, (agent.endedAt ?? now) - agent.startedAt);
};

/** "idle 12s" for a running agent, "no output yet" before its first line, null when settled. */
export const idleLabel = (agent: AgentSnapshot, now: number): string | null => {
  if (agent.status !== 'running') return null;
  const since = agent.lastOutputAt ?? agent.startedAt;
  if (since === null) return null;
  const idle = Math.max(0, now - since);
  if (agent.lastOutputAt === null) return `no output for ${formatDuration(idle)}`;
  return `idle ${formatDuration(idle)}`;
};

export interface EventLine {
  symbol: string;
  text: string;
  tone: Tone | null;
}

/** Whether an event deserves a line in a pane (usage and streamed fragments do not). */
export const isShownInPane = (event: AgentEvent): boolean => {
  switch (event.kind) {
    case 'usage':
      return false;
    case 'message':
      return event.partial !== true && oneLine(event.text) !== '';
    case 'tool_call':
    case 'tool_result':
    case 'progress':
    case 'completed':
    case 'failed':
    case 'unknown':
    case 'parse_error':
      return true;
    default:
      return assertNever(event);
  }
};

/** One event as one terminal line (before cutting to width). */
export const eventLine = (event: AgentEvent, symbols: Symbols): EventLine => {
  switch (event.kind) {
    case 'message':
      if (event.thinking === true)
        return { symbol: symbols.thinking, text: oneLine(event.text), tone: 'muted' };
      if (event.role === 'assistant')
        return { symbol: symbols.message, text: oneLine(event.text), tone: null };
      return { symbol: symbols.message, text: `${event.role}: ${oneLine(event.text)}`, tone: 'muted' };
    case 'tool_call': {
      const name = oneLine(event.name);
      const summary = oneLine(event.summary);
      // Summaries often start with the tool's name already ("Write hello.txt").
      const text = summary.toLowerCase().startsWith(name.toLowerCase())
        ? summary
        : `${name} ${summary}`.trim();
      return { symbol: symbols.tool, text, tone: 'info' };
    }
    case 'tool_result':
      return event.ok
        ? { symbol: symbols.ok, text: `ok ${oneLine(event.summary)}`.trim(), tone: 'ok' }
        : { symbol: symbols.fail, text: `error ${oneLine(event.summary)}`.trim(), tone: 'error' };
    case 'progress': {
      const detail = event.detail === undefined ? '' : ` ${oneLine(event.detail)}`;
      const model = event.model === undefined ? '' : ` (${oneLine(event.model)})`;
      return { symbol: symbols.progress, text: `${oneLine(event.stage)}${detail}${model}`, tone: 'muted' };
    }
    case 'usage':
      return {
        symbol: symbols.progress,
        text: `usage ${formatUsage(event.usage, symbols.dot)}`,
        tone: 'muted',
      };
    case 'completed':
      return {
        symbol: symbols.ok,
        text: event.result === undefined ? 'completed' : `completed: ${oneLine(event.result)}`,
        tone: 'ok',
      };
    case 'failed':
      return {
        symbol: symbols.fail,
        text: `${event.error.kind}: ${oneLine(event.error.message)}`,
        tone: 'error',
      };
    case 'unknown':
      return {
        symbol: symbols.unknown,
        text: `unrecognised event${event.type === undefined ? '' : ` ${oneLine(event.type)}`}`,
        tone: 'muted',
      };
    case 'parse_error':
      return { symbol: symbols.warn, text: `unparsed output: ${oneLine(event.raw)}`, tone: 'warn' };
    default:
      return assertNever(event);
  }
};

export interface RaceCounts {
  /** Not started yet (the race is still checking, probing or making worktrees). */
  waiting: number;
  running: number;
  done: number;
  failed: number;
  stopped: number;
}

/** Whether the race is over (an agent still marked pending then never ran). */
export const raceIsOver = (phase: RaceSnapshot['phase']): boolean =>
  phase === 'done' || phase === 'cancelled' || phase === 'failed';

export const raceCounts = (snapshot: RaceSnapshot): RaceCounts => {
  const counts: RaceCounts = { waiting: 0, running: 0, done: 0, failed: 0, stopped: 0 };
  const over = raceIsOver(snapshot.phase);
  for (const agent of snapshot.agents) {
    switch (agent.status) {
      case 'pending':
        if (over) counts.stopped += 1;
        else counts.waiting += 1;
        break;
      case 'spawning':
      case 'running':
        if (over) counts.stopped += 1;
        else counts.running += 1;
        break;
      case 'completed':
        counts.done += 1;
        break;
      case 'failed':
      case 'timed_out':
        counts.failed += 1;
        break;
      case 'cancelled':
      case 'skipped':
        counts.stopped += 1;
        break;
      default:
        assertNever(agent.status);
    }
  }
  return counts;
};

export const phaseLabel = (phase: RaceSnapshot['phase']): string => {
  switch (phase) {
    case 'checking_repo':
      return 'checking repository';
    case 'probing':
      return 'probing agents';
    case 'creating_worktrees':
      return 'creating worktrees';
    case 'racing':
      return 'racing';
    case 'reviewing':
      return 'reviewing';
    case 'merging':
      return 'merging';
    case 'done':
      return 'done';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
      return 'failed';
    default:
      return assertNever(phase);
  }
};
