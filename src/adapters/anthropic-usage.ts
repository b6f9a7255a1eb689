/**
 * Usage in Claude Code's stream-json (and Qwen Code's copy): per model call, by message id, in
 * Anthropic's convention or OpenAI's (whether input tokens include the cached ones).
 */
import { emptyUsage } from '../core/events.js';
import type { Usage } from '../core/events.js';

/** A usage object as the stream carries it (every count may be missing). */
export interface ApiUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** Token counts as hydra keeps them: cached input apart from the rest. */
interface Counts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const NO_COUNTS: Counts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

const hasTokens = (usage: ApiUsage): boolean =>
  (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) > 0;

const addTo = (total: Counts, one: Counts, sign: 1 | -1): void => {
  total.input += sign * one.input;
  total.output += sign * one.output;
  total.cacheRead += sign * one.cacheRead;
  total.cacheWrite += sign * one.cacheWrite;
};

const usageOf = (counts: Counts, turns: number): Usage => ({
  ...emptyUsage(),
  inputTokens: counts.input,
  outputTokens: counts.output,
  cacheReadTokens: counts.cacheRead,
  cacheWriteTokens: counts.cacheWrite,
  turns,
});

/**
 * Usage per model call, by message id: several lines of one message (parallel tool calls) carry
 * the same figures, and a message seen again with new figures replaces its old ones. Running
 * totals, so each line costs the same however long the run.
 */
export class MessageUsage {
  private readonly byMessage = new Map<string, { usage: ApiUsage; counts: Counts }>();
  private readonly total: Counts = { ...NO_COUNTS };

  constructor(private readonly countsOf: (usage: ApiUsage) => Counts) {}

  get calls(): number {
    return this.byMessage.size;
  }

  /** The new totals after one message's usage, or undefined when it changed nothing. */
  record(id: string | undefined, usage: ApiUsage | undefined): Usage | undefined {
    if (usage === undefined || !hasTokens(usage)) return undefined;
    const key = id ?? `anonymous-${this.byMessage.size}`;
    const previous = this.byMessage.get(key);
    if (previous !== undefined && JSON.stringify(previous.usage) === JSON.stringify(usage)) return undefined;
    const counts = this.countsOf(usage);
    if (previous !== undefined) addTo(this.total, previous.counts, -1);
    addTo(this.total, counts, 1);
    this.byMessage.set(key, { usage, counts });
    return this.totals(this.byMessage.size);
  }

  totals(turns: number): Usage {
    return this.byMessage.size === 0 ? { ...emptyUsage(), turns } : usageOf({ ...this.total }, turns);
  }

  /** A usage object the result line carried, counted the same way. */
  resultUsage(usage: ApiUsage, turns: number): Usage {
    return usageOf(this.countsOf(usage), turns);
  }
}

/** Anthropic's convention: `input_tokens` leaves out cache reads and writes. */
export const anthropicCounts = (usage: ApiUsage): Counts => ({
  input: usage.input_tokens ?? 0,
  output: usage.output_tokens ?? 0,
  cacheRead: usage.cache_read_input_tokens ?? 0,
  cacheWrite: usage.cache_creation_input_tokens ?? 0,
});

/** OpenAI's convention (Qwen Code keeps it): `input_tokens` includes the cached ones. */
export const openaiCounts = (usage: ApiUsage): Counts => {
  const input = usage.input_tokens ?? 0;
  const cached = Math.min(usage.cache_read_input_tokens ?? 0, input);
  return { ...anthropicCounts(usage), input: input - cached, cacheRead: cached };
};
