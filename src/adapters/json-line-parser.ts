import { ev } from '../core/events.js';
import type { AgentEvent, CompletedEvent, FailedEvent } from '../core/events.js';
import { finishRun } from './finish.js';
import type { RunState } from './finish.js';
import { parseJsonLine, rawForUnknown } from './json-line.js';
import { asString } from '../core/text.js';
import type { LineParser, ProcessEnd } from './types.js';

/**
 * The line loop every NDJSON-speaking CLI shares: blank lines are skipped, non-JSON lines become
 * `parse_error` (or whatever `nonJson` makes of them), known types go to `handle`, and anything
 * else is kept as an `unknown` event with its raw object. Never throws.
 */
export abstract class JsonLineParser implements LineParser {
  protected abstract readonly state: RunState;

  /** Events for a known line type, or null when the line is of an unknown type or shape. */
  protected abstract handle(value: Record<string, unknown>): AgentEvent[] | null;

  parseLine(line: string): AgentEvent[] {
    const parsed = parseJsonLine(line);
    if (parsed.ok === 'blank') return [];
    if (parsed.ok === false) {
      this.state.firstNonJson ??= parsed.raw;
      return this.nonJson(line, parsed.raw, parsed.reason);
    }
    this.state.sawJson = true;
    const events = this.handle(parsed.value);
    if (events !== null) return this.track(events);
    const type = asString(parsed.value['type']);
    return [
      ev({
        kind: 'unknown',
        ...(type === undefined ? {} : { type }),
        raw: rawForUnknown(parsed.value, parsed.length),
      }),
    ];
  }

  finish(end: ProcessEnd): CompletedEvent | FailedEvent {
    return finishRun(this.state, end);
  }

  /** A line that is not JSON: a parse error unless the CLI is known to print text there. */
  protected nonJson(_line: string, raw: string, reason: string): AgentEvent[] {
    return [ev({ kind: 'parse_error', raw, reason })];
  }

  /** Remembers the first terminal event and the latest usage, for `finish`. */
  protected track(events: AgentEvent[]): AgentEvent[] {
    for (const event of events) {
      if ((event.kind === 'completed' || event.kind === 'failed') && this.state.terminal === undefined)
        this.state.terminal = event;
      if (event.kind === 'usage') this.state.usage = event.usage;
    }
    return events;
  }
}
