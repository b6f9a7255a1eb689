/** events.jsonl is bounded per agent: its head as it comes, then a note and the tail of what followed. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ev } from '../../../../src/core/events.js';
import { EventLog } from '../../../../src/engine/records/event-log.js';
import type { AgentEventRecord } from '../../../../src/engine/index.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hydra-event-log-test-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const say = (agent: 'claude' | 'codex', index: number): AgentEventRecord => ({
  agent,
  at: index,
  event: ev({ kind: 'message', role: 'assistant', text: `message ${index} ${'x'.repeat(80)}` }),
});

/** The records in events.jsonl, in order (each line must parse). */
const readEvents = (from: string): AgentEventRecord[] =>
  readFileSync(path.join(from, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AgentEventRecord);

const limits = { headBytes: 10_000, tailBytes: 2_000 };

describe('EventLog', () => {
  it('writes each record as one JSON line that reads back as the record, control characters escaped', () => {
    const log = new EventLog(dir, limits);
    const record: AgentEventRecord = {
      agent: 'claude',
      at: 1_700_000_000_123,
      event: ev({ kind: 'message', role: 'assistant', text: 'a "quote"\n\u009b2J\u0085 ☃', partial: true }),
    };
    log.append(record);
    log.close();

    const text = readFileSync(path.join(dir, 'events.jsonl'), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toMatch(/[\u007f-\u009f]/);
    expect(readEvents(dir)).toEqual([record]);
  });

  it("keeps an agent's first events and its last ones around a note saying how much was left out", () => {
    const log = new EventLog(dir, limits);
    for (let i = 0; i < 10_000; i += 1) log.append(say('claude', i));
    log.append({ agent: 'claude', at: 10_000, event: ev({ kind: 'completed', result: 'done' }) });
    log.close();

    expect(statSync(path.join(dir, 'events.jsonl')).size).toBeLessThan(
      limits.headBytes + limits.tailBytes + 1_000,
    );
    const events = readEvents(dir);
    expect(events[0]?.at).toBe(0);
    const note = events.find((record) => record.event.kind === 'progress');
    expect(note?.event).toMatchObject({ stage: 'record_truncated' });
    expect(note?.event.kind === 'progress' ? note.event.detail : '').toMatch(
      /^\d+ events \([\d.]+ [KM]B\) were left out/,
    );
    // The tail ends with the last message and the final event, in order.
    expect(events.at(-2)?.at).toBe(9_999);
    expect(events.at(-1)?.event).toMatchObject({ kind: 'completed', result: 'done' });
    const times = events.map((record) => record.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('bounds each agent on its own: a quiet agent keeps every event while another floods', () => {
    const log = new EventLog(dir, limits);
    for (let i = 0; i < 5_000; i += 1) {
      log.append(say('claude', i));
      if (i % 1000 === 0) log.append(say('codex', i));
    }
    log.close();

    const events = readEvents(dir);
    expect(events.filter((record) => record.agent === 'codex')).toHaveLength(5);
    expect(events.filter((record) => record.agent === 'claude').length).toBeLessThan(200);
  });

  it('writes a tail held at close (hydra stopped before the agent ended) after its note', () => {
    const log = new EventLog(dir, limits);
    for (let i = 0; i < 1_000; i += 1) log.append(say('claude', i));
    log.close();

    const lines = readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n');
    expect(lines.some((line) => line.includes('record_truncated'))).toBe(true);
    expect(readEvents(dir).at(-1)?.at).toBe(999);
  });
});
