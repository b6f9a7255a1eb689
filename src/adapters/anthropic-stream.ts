/**
 * The parts of Claude Code's stream-json that Qwen Code copied: assistant and user messages made
 * of Anthropic content blocks (`text`, `thinking`, `tool_use`, `tool_result`), and the
 * `stream_event` lines of `--include-partial-messages` carrying Anthropic SSE deltas. Both parsers
 * read these shapes here; what differs (usage semantics, the result line, tool names) stays in
 * claude.ts and qwen.ts.
 */
import { z } from 'zod';
import { EVENT_SCHEMA_VERSION, ev } from '../core/events.js';
import type { AgentEvent } from '../core/events.js';
import { asString, clip, compactJson, firstLine, MESSAGE_CHARS, OUTPUT_CHARS } from '../core/text.js';

const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const ThinkingBlock = z.looseObject({ type: z.literal('thinking'), thinking: z.string() });
const ToolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown().optional(),
});
const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.unknown().optional(),
  is_error: z.boolean().nullish(),
});

const StreamEventLine = z.looseObject({
  type: z.literal('stream_event'),
  event: z.looseObject({
    type: z.string(),
    delta: z
      .looseObject({ type: z.string().nullish(), text: z.string().nullish(), thinking: z.string().nullish() })
      .nullish(),
  }),
});

/** One line for a tool call, from the tool's name and input. */
export type ToolSummarizer = (name: string, input: unknown) => string;

/** The `type` of a block that is not one of the known ones, for an `unknown` event. */
const blockType = (block: unknown): string | undefined =>
  typeof block === 'object' && block !== null ? asString((block as { type?: unknown }).type) : undefined;

/** Text of a tool_result's content: a string, or an array of text blocks. */
const resultText = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? '' : compactJson(content, OUTPUT_CHARS);
  return content
    .map((block) =>
      typeof block === 'object' && block !== null && typeof (block as { text?: unknown }).text === 'string'
        ? (block as { text: string }).text
        : '',
    )
    .filter((text) => text !== '')
    .join('\n');
};

/** What one assistant content block means; `text` is set for answer text (the run's last words). */
export interface AssistantBlock {
  events: AgentEvent[];
  text?: string;
}

/**
 * Events for one assistant content block. Tool calls are remembered in `toolNames` so their
 * results can name the tool.
 */
export const assistantBlockEvents = (
  block: unknown,
  summarize: ToolSummarizer,
  toolNames: Map<string, string>,
): AssistantBlock => {
  const text = TextBlock.safeParse(block);
  if (text.success) {
    if (text.data.text.trim() === '') return { events: [] };
    const clipped = clip(text.data.text, MESSAGE_CHARS);
    return { events: [ev({ kind: 'message', role: 'assistant', text: clipped })], text: clipped };
  }
  const thinking = ThinkingBlock.safeParse(block);
  if (thinking.success) {
    return {
      events:
        thinking.data.thinking.trim() === ''
          ? []
          : [
              ev({
                kind: 'message',
                role: 'assistant',
                text: clip(thinking.data.thinking, MESSAGE_CHARS),
                thinking: true,
              }),
            ],
    };
  }
  const toolUse = ToolUseBlock.safeParse(block);
  if (toolUse.success) {
    const { id, name, input } = toolUse.data;
    toolNames.set(id, name);
    return { events: [ev({ kind: 'tool_call', id, name, summary: summarize(name, input), input })] };
  }
  return { events: [ev({ kind: 'unknown', type: `assistant.${blockType(block) ?? 'block'}`, raw: block })] };
};

/** Events for a user message's content: tool results, user text, anything else kept as unknown. */
export const userContentEvents = (content: unknown, toolNames: ReadonlyMap<string, string>): AgentEvent[] => {
  if (typeof content === 'string')
    return content === '' ? [] : [ev({ kind: 'message', role: 'user', text: clip(content, MESSAGE_CHARS) })];
  const events: AgentEvent[] = [];
  for (const block of Array.isArray(content) ? content : []) {
    const toolResult = ToolResultBlock.safeParse(block);
    if (toolResult.success) {
      const { tool_use_id: id, content: output, is_error: isError } = toolResult.data;
      const text = resultText(output);
      const name = toolNames.get(id);
      const ok = isError !== true;
      events.push(
        ev({
          kind: 'tool_result',
          id,
          ...(name === undefined ? {} : { name }),
          ok,
          summary: firstLine(text) || (ok ? 'done' : 'failed'),
          output: clip(text, OUTPUT_CHARS),
        }),
      );
      continue;
    }
    const text = TextBlock.safeParse(block);
    if (text.success) {
      events.push(ev({ kind: 'message', role: 'user', text: clip(text.data.text, MESSAGE_CHARS) }));
      continue;
    }
    events.push(ev({ kind: 'unknown', type: `user.${blockType(block) ?? 'block'}`, raw: block }));
  }
  return events;
};

type Delta = { type?: string | null; text?: string | null; thinking?: string | null };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const nullishString = (value: unknown): boolean =>
  value === undefined || value === null || typeof value === 'string';

/**
 * The delta of a `content_block_delta` line, checked by hand: nearly every line of a streamed turn
 * is one, and zod's parse of it cost more than the JSON.parse before it. It accepts exactly what
 * StreamEventLine accepts for these lines; anything else (other SSE events, an odd shape) is
 * undefined and goes through the schema.
 */
const blockDelta = (value: Record<string, unknown>): Delta | undefined => {
  const event = value['event'];
  if (!isObject(event) || event['type'] !== 'content_block_delta') return undefined;
  const delta = event['delta'];
  if (!isObject(delta)) return undefined;
  return typeof delta['type'] === 'string' && nullishString(delta['text']) && nullishString(delta['thinking'])
    ? (delta as Delta)
    : undefined;
};

/**
 * A text or thinking delta as a partial message; other deltas (tool-input JSON) add nothing. The
 * event is written out whole (what `ev` returns) rather than through `ev`: one object per line.
 */
const deltaEvents = (delta: Delta): AgentEvent[] => {
  if (delta.type === 'text_delta' && delta.text)
    return [
      {
        v: EVENT_SCHEMA_VERSION,
        kind: 'message',
        role: 'assistant',
        text: clip(delta.text, MESSAGE_CHARS),
        partial: true,
      },
    ];
  if (delta.type === 'thinking_delta' && delta.thinking)
    return [
      {
        v: EVENT_SCHEMA_VERSION,
        kind: 'message',
        role: 'assistant',
        text: clip(delta.thinking, MESSAGE_CHARS),
        partial: true,
        thinking: true,
      },
    ];
  return [];
};

/**
 * A `stream_event` line: text and thinking deltas become partial messages (the complete assistant
 * line follows); other SSE events (block starts and stops, tool-input JSON fragments) add nothing.
 * Null when the line is not a stream_event of the expected shape.
 */
export const partialMessageEvents = (value: Record<string, unknown>): AgentEvent[] | null => {
  const hot = blockDelta(value);
  if (hot !== undefined) return deltaEvents(hot);
  const line = StreamEventLine.safeParse(value);
  if (!line.success) return null;
  const delta = line.data.event.delta;
  if (line.data.event.type !== 'content_block_delta' || delta === undefined || delta === null) return [];
  return deltaEvents(delta);
};
