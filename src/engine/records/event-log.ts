/**
 * events.jsonl: every normalized event of a run, appended with a synchronous write as it arrives
 * (so a crash keeps them), bounded per agent so a flooding agent cannot grow the record.
 */
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ev } from '../../core/events.js';
import type { AgentEventRecord } from './record-types.js';
import type { AgentName } from '../agent-name.js';
import { eventJson } from './event-json.js';
import { FILE_MODE, ensureRecordDir } from './record-files.js';

/** How much of one agent's events a record keeps from the start of its run. */
const AGENT_LOG_HEAD_BYTES = 4 * 1024 * 1024;
/** How much of the end of an agent's events is kept once its head is full. */
const AGENT_LOG_TAIL_BYTES = 512 * 1024;

export interface EventLogLimits {
  headBytes: number;
  tailBytes: number;
}

/** What is kept of one agent's events once its head is full: the latest lines, and what was dropped. */
interface AgentTail {
  /** The held lines are `lines[first..]`. */
  lines: Array<{ line: string; bytes: number; at: number }>;
  first: number;
  bytes: number;
  droppedEvents: number;
  droppedBytes: number;
}

const MB = 1024 * 1024;
const size = (bytes: number): string =>
  bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;

/**
 * Appends events to events.jsonl, one synchronous write per batch (`appendBatch`: the events of one
 * chunk of an agent's output), so a crash loses at most the batch being handled. Bounded
 * per agent: the first `headBytes` of an agent's events are written as they come; after that only
 * the latest `tailBytes` are held, and written (after a note saying how much was dropped) when the
 * agent's final event arrives or the log closes. An agent that floods its output cannot grow the
 * record past about head + tail.
 */
export class EventLog {
  private fd: number | null;
  private readonly written = new Map<AgentName, number>();
  private readonly tails = new Map<AgentName, AgentTail>();

  constructor(
    dir: string,
    private readonly limits: EventLogLimits = {
      headBytes: AGENT_LOG_HEAD_BYTES,
      tailBytes: AGENT_LOG_TAIL_BYTES,
    },
  ) {
    ensureRecordDir(dir);
    this.fd = openSync(
      path.join(dir, 'events.jsonl'),
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      FILE_MODE,
    );
  }

  /** Lines written by `write` since the last flush: one writeSync per batch, not per event. */
  private pending: string[] = [];

  append(record: AgentEventRecord): void {
    this.appendBatch([record]);
  }

  /** Appends the events and writes them with one system call before returning. */
  appendBatch(records: readonly AgentEventRecord[]): void {
    if (this.fd === null) return;
    try {
      for (const record of records) this.add(record);
    } finally {
      this.flush();
    }
  }

  private add(record: AgentEventRecord): void {
    // The event's JSON is shared with the headless printer (eventJson): serialized once.
    const line = `{"agent":${JSON.stringify(record.agent)},"at":${JSON.stringify(record.at)},"event":${eventJson(record.event)}}\n`;
    const bytes = Buffer.byteLength(line);
    const final = record.event.kind === 'completed' || record.event.kind === 'failed';
    const written = this.written.get(record.agent) ?? 0;
    if (!this.tails.has(record.agent) && written + bytes <= this.limits.headBytes) {
      this.write(record.agent, line, bytes);
      return;
    }
    this.keepInTail(record.agent, { line, bytes, at: record.at });
    if (final) this.flushTail(record.agent);
  }

  close(): void {
    if (this.fd === null) return;
    try {
      for (const agent of [...this.tails.keys()]) this.flushTail(agent);
      this.flush();
    } finally {
      const fd = this.fd;
      this.fd = null;
      closeSync(fd);
    }
  }

  private write(agent: AgentName, line: string, bytes = Buffer.byteLength(line)): void {
    if (this.fd === null) return;
    this.pending.push(line);
    this.written.set(agent, (this.written.get(agent) ?? 0) + bytes);
  }

  private flush(): void {
    if (this.fd === null || this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    writeSync(this.fd, text);
  }

  private keepInTail(agent: AgentName, held: { line: string; bytes: number; at: number }): void {
    const tail = this.tails.get(agent) ?? {
      lines: [],
      first: 0,
      bytes: 0,
      droppedEvents: 0,
      droppedBytes: 0,
    };
    this.tails.set(agent, tail);
    tail.lines.push(held);
    tail.bytes += held.bytes;
    while (tail.bytes > this.limits.tailBytes && tail.first < tail.lines.length - 1) {
      const dropped = tail.lines[tail.first]!;
      tail.bytes -= dropped.bytes;
      tail.droppedEvents += 1;
      tail.droppedBytes += dropped.bytes;
      tail.first += 1;
    }
    // Drops the lines left behind now and then, not on every event.
    if (tail.first > 1024 && tail.first * 2 > tail.lines.length) {
      tail.lines = tail.lines.slice(tail.first);
      tail.first = 0;
    }
  }

  /** Writes the note and the held tail of one agent; its later events start a new tail. */
  private flushTail(agent: AgentName): void {
    const tail = this.tails.get(agent);
    if (tail === undefined) return;
    this.tails.delete(agent);
    const held = tail.lines.slice(tail.first);
    if (tail.droppedEvents > 0) {
      // Dated like the first event kept after the gap, so the record stays in time order.
      const note: AgentEventRecord = {
        agent,
        at: held[0]?.at ?? Date.now(),
        event: ev({
          kind: 'progress',
          stage: 'record_truncated',
          detail:
            `${tail.droppedEvents} events (${size(tail.droppedBytes)}) were left out of this record: it keeps ` +
            `the first ${size(this.limits.headBytes)} and the last ${size(tail.bytes)} of each agent's events.`,
        }),
      };
      this.write(agent, `${JSON.stringify(note)}\n`);
    }
    for (const { line, bytes } of held) this.write(agent, line, bytes);
  }
}
