/** Runs of noise in a batch of events become one event each, counted; everything else passes as is. */
import { describe, expect, it } from 'vitest';
import { TEXT_OUTPUT_STAGE, ev } from '../../../../src/core/events.js';
import type { AgentEvent } from '../../../../src/core/events.js';
import { MESSAGE_CHARS } from '../../../../src/core/text.js';
import { MERGED_TEXT_CHARS, coalesceEvents } from '../../../../src/engine/agent/coalesce.js';

const garbage = (raw: string): AgentEvent =>
  ev({ kind: 'parse_error', raw, reason: 'not JSON: starts with "f"' });
const text = (line: string): AgentEvent => ev({ kind: 'progress', stage: TEXT_OUTPUT_STAGE, detail: line });
const message = ev({ kind: 'message', role: 'assistant', text: 'working' });
const delta = (part: string, thinking = false): AgentEvent =>
  ev({ kind: 'message', role: 'assistant', text: part, partial: true, ...(thinking ? { thinking } : {}) });
/** The texts of a batch's message events, in order. */
const texts = (events: AgentEvent[]): string[] =>
  events.map((event) => (event.kind === 'message' ? event.text : `<${event.kind}>`));

describe('coalesceEvents', () => {
  it('merges consecutive parse errors into one that counts them and keeps the first as its example', () => {
    const events = [garbage('flood 0'), garbage('flood 1'), garbage('flood 2'), message, garbage('tail')];

    expect(coalesceEvents(events)).toEqual([
      ev({
        kind: 'parse_error',
        raw: 'flood 0',
        reason: '3 lines were not JSON, e.g. not JSON: starts with "f"',
        lines: 3,
      }),
      message,
      garbage('tail'),
    ]);
  });

  it('merges unknown events only with unknown events of the same type', () => {
    const ping = ev({ kind: 'unknown', type: 'ping', raw: { type: 'ping' } });
    const pong = ev({ kind: 'unknown', type: 'pong', raw: { type: 'pong' } });

    expect(coalesceEvents([ping, ping, ping, pong])).toEqual([{ ...ping, lines: 3 }, pong]);
  });

  it('keeps the first lines of a run of plain text and counts the rest', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => text(`line ${i}`));

    const [merged, ...rest] = coalesceEvents(lines);

    expect(rest).toEqual([]);
    expect(merged).toMatchObject({ kind: 'progress', stage: TEXT_OUTPUT_STAGE, lines: 5000 });
    const detail = merged?.kind === 'progress' ? (merged.detail ?? '') : '';
    expect(detail.startsWith('line 0\nline 1\n')).toBe(true);
    expect(detail.length).toBeLessThan(MERGED_TEXT_CHARS + 100);
    expect(detail).toMatch(/\n… \d+ more lines$/);
  });

  it('passes a batch without noise through unchanged, and never merges across kinds', () => {
    const events = [message, garbage('a'), text('b'), garbage('c'), message];

    expect(coalesceEvents(events)).toEqual(events);
    expect(coalesceEvents([])).toEqual([]);
  });

  it('joins consecutive fragments of a streamed message into one fragment that keeps all their text', () => {
    const parts = Array.from({ length: 1000 }, (_, i) => `w${i} `);

    const merged = coalesceEvents(parts.map((part) => delta(part)));

    expect(merged).toEqual([delta(parts.join(''))]);
  });

  it('keeps answer and thinking fragments, and whole messages, apart and in order', () => {
    const events = [
      delta('I will ', true),
      delta('think.', true),
      delta('Hello, '),
      delta('world'),
      message,
      delta('!'),
      ev({ kind: 'message', role: 'user', text: 'echo', partial: true }),
    ];

    const merged = coalesceEvents(events);

    expect(texts(merged)).toEqual(['I will think.', 'Hello, world', 'working', '!', 'echo']);
    expect(merged[0]).toEqual(delta('I will think.', true));
    expect(merged[1]).toEqual(delta('Hello, world'));
  });

  it('starts a new fragment where the joined text would pass MESSAGE_CHARS, losing nothing', () => {
    const part = 'x'.repeat(1000);
    const count = Math.ceil((MESSAGE_CHARS * 2.5) / part.length);

    const merged = coalesceEvents(Array.from({ length: count }, () => delta(part)));

    expect(merged).toHaveLength(3);
    expect(texts(merged).join('')).toBe(part.repeat(count));
    for (const event of merged)
      expect(event.kind === 'message' && event.text.length).toBeLessThanOrEqual(MESSAGE_CHARS);
  });
});
