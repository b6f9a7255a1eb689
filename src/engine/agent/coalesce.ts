/**
 * Merges runs of repeated noise in a batch of events: consecutive `parse_error` events become one
 * that counts them and keeps the first line as its example, consecutive `unknown` events of the
 * same type become one with a count, and consecutive lines of plain text (`progress` events of
 * TEXT_OUTPUT_STAGE) become one that keeps the first few kilobytes. Consecutive streamed fragments
 * of a message (partial `message` events of the same role, both answer or both thinking) become
 * one fragment with their texts joined: nothing of that text is dropped, a merged fragment is cut
 * only where it would pass MESSAGE_CHARS (the next one goes on from there). A CLI that floods its
 * stdout with a million lines, or streams a long answer a few characters at a time, costs a few
 * events per chunk of output instead of one per line, in the snapshot, the record and the headless
 * output alike. Every other event passes through unchanged and in order.
 */
import { TEXT_OUTPUT_STAGE, ev } from '../../core/events.js';
import type {
  AgentEvent,
  MessageEvent,
  ParseErrorEvent,
  ProgressEvent,
  UnknownEvent,
} from '../../core/events.js';
import { MESSAGE_CHARS } from '../../core/text.js';

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

/** Consecutive fragments of one streamed message being merged: the first, and every text in order. */
interface Fragments {
  first: MessageEvent;
  texts: string[];
  chars: number;
}

const isFragment = (event: AgentEvent): event is MessageEvent =>
  event.kind === 'message' && event.partial === true;

/** Whether `event` is the next fragment of the same message, and the merged text stays in bounds. */
const continuesFragments = (fragments: Fragments, event: AgentEvent): event is MessageEvent =>
  isFragment(event) &&
  event.role === fragments.first.role &&
  (event.thinking === true) === (fragments.first.thinking === true) &&
  fragments.chars + event.text.length <= MESSAGE_CHARS;

const fragmentsEvent = ({ first, texts }: Fragments): MessageEvent =>
  texts.length === 1 ? first : { ...first, text: texts.join('') };

export const coalesceEvents = (events: readonly AgentEvent[]): AgentEvent[] => {
  const out: AgentEvent[] = [];
  let run: Run | null = null;
  let fragments: Fragments | null = null;
  for (const event of events) {
    if (run !== null && continues(run.first, event)) {
      extendRun(run, event);
      continue;
    }
    if (fragments !== null && continuesFragments(fragments, event)) {
      fragments.texts.push(event.text);
      fragments.chars += event.text.length;
      continue;
    }
    if (run !== null) out.push(runEvent(run));
    if (fragments !== null) out.push(fragmentsEvent(fragments));
    run = null;
    fragments = null;
    if (isNoise(event)) run = startRun(event);
    else if (isFragment(event)) fragments = { first: event, texts: [event.text], chars: event.text.length };
    else out.push(event);
  }
  if (run !== null) out.push(runEvent(run));
  if (fragments !== null) out.push(fragmentsEvent(fragments));
  return out;
};
