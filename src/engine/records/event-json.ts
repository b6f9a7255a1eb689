/**
 * Each agent event is serialized once: the run record's line (events.jsonl) and the headless
 * NDJSON line are both built around the same JSON text, kept per event object while the event
 * lives. The text is terminal-safe: DEL and the C1 controls, which JSON.stringify leaves raw, are
 * escaped as \u00XX (the same value to any JSON reader), so a printer can put it on a terminal.
 */
import type { AgentEvent } from '../../core/events.js';

const C1 = /[\u007F-\u009F]/g;

/** JSON text with DEL and the C1 controls escaped (what `terminalSafeJson` prints). */
const escapeC1 = (json: string): string =>
  json.replace(C1, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

const serialized = new WeakMap<AgentEvent, string>();

/** The event's JSON text, computed on first use. */
export const eventJson = (event: AgentEvent): string => {
  let json = serialized.get(event);
  if (json === undefined) {
    json = escapeC1(JSON.stringify(event));
    serialized.set(event, json);
  }
  return json;
};
