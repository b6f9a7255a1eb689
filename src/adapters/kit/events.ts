/**
 * The events every parser builds the same way: a message with its text clipped, a tool's call and
 * result, and the pieces a loose line schema is made of.
 */
import { z } from 'zod';
import { addCounts, EVENT_SCHEMA_VERSION, ev } from '../../core/events.js';
import type {
  CompletedEvent,
  MessageEvent,
  ToolCallEvent,
  ToolResultEvent,
  Usage,
} from '../../core/events.js';
import { clip, firstLine, MESSAGE_CHARS, OUTPUT_CHARS } from '../../core/text.js';

/** A string, number or boolean a CLI may leave out or set to null (the fields of a loose line schema). */
export const str = z.string().nullish();
export const num = z.number().nullish();
export const bool = z.boolean().nullish();
/** Any JSON value, or none (a tool's input, an error object hydra only prints). */
export const json = z.unknown().optional();

/**
 * A line or block tagged by its `type` (`{"type":"tool_use",...}`), loose: unknown fields pass
 * through and are ignored.
 */
export const tagged = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.looseObject({ type: z.literal(type), ...shape });

type MessageFlags = Pick<MessageEvent, 'partial' | 'thinking'>;

/** A message event, its text clipped to what an event keeps. */
export const message = (role: MessageEvent['role'], text: string, flags: MessageFlags = {}): MessageEvent =>
  ev({ kind: 'message', role, text: clip(text, MESSAGE_CHARS), ...flags });

/** A tool call, its line on the dashboard already made. */
export const toolCall = (id: string, name: string, summary: string, input: unknown): ToolCallEvent =>
  ev({ kind: 'tool_call', id, name, summary, input });

/**
 * A streamed piece of the assistant's text or thinking. Built whole rather than through `ev`: it is
 * the hot path of a long answer, one object per delta line.
 */
export const partialMessage = (text: string, thinking = false): MessageEvent =>
  // Two literals rather than a spread of the flag: a spread copies through a slow path per delta.
  thinking
    ? {
        v: EVENT_SCHEMA_VERSION,
        kind: 'message',
        role: 'assistant',
        text: clip(text, MESSAGE_CHARS),
        partial: true,
        thinking,
      }
    : {
        v: EVENT_SCHEMA_VERSION,
        kind: 'message',
        role: 'assistant',
        text: clip(text, MESSAGE_CHARS),
        partial: true,
      };

/** The run's end as the stream reports it: its last words (clipped) and its usage, when known. */
export const completed = (result: string | undefined, usage?: Usage): CompletedEvent =>
  ev({
    kind: 'completed',
    ...(result === undefined ? {} : { result: clip(result, MESSAGE_CHARS) }),
    ...(usage === undefined ? {} : { usage }),
  });

/** A tool's result: its output's first line as the summary (else done or failed), the output clipped. */
export const toolResult = (
  id: string,
  name: string | undefined,
  ok: boolean,
  output: string,
  summary?: string,
): ToolResultEvent =>
  ev({
    kind: 'tool_result',
    id,
    ...(name === undefined ? {} : { name }),
    ok,
    summary: summary ?? (firstLine(output) || (ok ? 'done' : 'failed')),
    output: clip(output, OUTPUT_CHARS),
  });

/** The counts a CLI reports for one turn or step. */
export type UsageCounts = Partial<
  Pick<Usage, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'turns'>
>;

/** The run's usage so far with one more turn's counts added (for CLIs that report them per turn). */
export const addUsage = (total: Usage, part: UsageCounts): Usage => ({
  ...total,
  inputTokens: addCounts(total.inputTokens, part.inputTokens ?? null),
  outputTokens: addCounts(total.outputTokens, part.outputTokens ?? null),
  cacheReadTokens: addCounts(total.cacheReadTokens, part.cacheReadTokens ?? null),
  cacheWriteTokens: addCounts(total.cacheWriteTokens, part.cacheWriteTokens ?? null),
  turns: addCounts(total.turns, part.turns ?? null),
});
