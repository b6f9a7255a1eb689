/** Runs of noise in a batch of events become one event each, counted; everything else passes as is. */
import { describe, expect, it } from 'vitest';
import { TEXT_OUTPUT_STAGE, ev } from '../../src/adapters/events.js';
import type { AgentEvent } from '../../src/adapters/events.js';
import { MERGED_TEXT_CHARS, coalesceEvents } from '../../src/engine/agent/coalesce.js';

const garbage = (raw: string): AgentEvent =>
  ev({ kind: 'parse_error', raw, reason: 'not JSON: starts with "f"' });
const text = (line: string): AgentEvent => ev({ kind: 'progress', stage: TEXT_OUTPUT_STAGE, detail: line });
const message = ev({ kind: 'message', role: 'assistant', text: 'working' });

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
});
