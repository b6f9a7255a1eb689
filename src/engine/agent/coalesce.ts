/**
 * Merges runs of repeated noise in a batch of events: consecutive `parse_error` events become one
 * that counts them and keeps the first line as its example, consecutive `unknown` events of the
 * same type become one with a count, and consecutive lines of plain text (`progress` events of
 * TEXT_OUTPUT_STAGE) become one that keeps the first few kilobytes. A CLI that floods its stdout
 * with a million lines costs a few events per chunk of output instead of a million, in the
 * snapshot, the record and the headless output alike. Every other event passes through unchanged
 * and in order.
 */
import { TEXT_OUTPUT_STAGE, ev } from '../../adapters/events.js';
import type { AgentEvent, ParseErrorEvent, ProgressEvent, UnknownEvent } from '../../adapters/events.js';

type Noise = ParseErrorEvent | UnknownEvent | ProgressEvent;

/** How much text a merged run of plain-text lines keeps. */
export const MERGED_TEXT_CHARS = 2000;

const isNoise = (event: AgentEvent): event is Noise =>
  event.kind === 'parse_error' ||
  event.kind === 'unknown' ||
  (event.kind === 'progress' && event.stage === TEXT_OUTPUT_STAGE);

/** Whether `event` continues a run that started with `first`. */
const continues = (first: Noise, event: AgentEvent): event is Noise => {
  switch (first.kind) {
    case 'parse_error':
      return event.kind === 'parse_error';
    case 'unknown':
      return event.kind === 'unknown' && event.type === first.type;
    case 'progress':
      return event.kind === 'progress' && event.stage === TEXT_OUTPUT_STAGE;
  }
};

/** A run of noise being merged: its first event, its line count and (for text) the text kept. */
interface Run {
  first: Noise;
  lines: number;
  text: string;
  textLines: number;
}

const startRun = (event: Noise): Run => ({
  first: event,
  lines: event.lines ?? 1,
  text: event.kind === 'progress' ? (event.detail ?? '') : '',
  textLines: event.lines ?? 1,
});

const extendRun = (run: Run, event: Noise): void => {
  const lines = event.lines ?? 1;
  run.lines += lines;
  if (event.kind !== 'progress' || run.text.length >= MERGED_TEXT_CHARS) return;
  run.text = `${run.text}\n${event.detail ?? ''}`;
  run.textLines += lines;
};

/** One event for a whole run. */
const runEvent = (run: Run): Noise => {
  const { first, lines } = run;
  if (lines === (first.lines ?? 1)) return first;
  switch (first.kind) {
    case 'unknown':
      return { ...first, lines };
    case 'parse_error':
      return ev({
        kind: 'parse_error',
        raw: first.raw,
        reason: `${lines} lines were not JSON, e.g. ${first.reason}`,
        lines,
      });
    case 'progress': {
      const more = lines - run.textLines;
      const detail = more > 0 ? `${run.text}\n… ${more} more lines` : run.text;
      return { ...first, detail, lines };
    }
  }
};

export const coalesceEvents = (events: readonly AgentEvent[]): AgentEvent[] => {
  const out: AgentEvent[] = [];
  let run: Run | null = null;
  for (const event of events) {
    if (run !== null && continues(run.first, event)) {
      extendRun(run, event);
      continue;
    }
    if (run !== null) out.push(runEvent(run));
    run = null;
    if (isNoise(event)) run = startRun(event);
    else out.push(event);
  }
  if (run !== null) out.push(runEvent(run));
  return out;
};
