/**
 * The events every parser builds the same way: a message with its text clipped, a tool's result
 * summed up in its first line, and the nullable fields a loose line schema is made of.
 */
import { z } from 'zod';
import { ev } from '../../core/events.js';
import type { MessageEvent, ToolResultEvent } from '../../core/events.js';
import { clip, firstLine, MESSAGE_CHARS, OUTPUT_CHARS } from '../../core/text.js';

/** A string or a number a CLI may leave out or set to null (every field of a loose line schema). */
export const str = z.string().nullish();
export const num = z.number().nullish();

type MessageFlags = Pick<MessageEvent, 'partial' | 'thinking'>;

/** A message event, its text clipped to what an event keeps. */
export const message = (role: MessageEvent['role'], text: string, flags: MessageFlags = {}): MessageEvent =>
  ev({ kind: 'message', role, text: clip(text, MESSAGE_CHARS), ...flags });

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
