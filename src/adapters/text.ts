/** Helpers that turn vendor data into text fit for one terminal line. */
import { shorten, wellFormed } from './json-line.js';

/** Longest one-line summary kept in events. */
const SUMMARY_CHARS = 160;

/** Longest tool output kept in `tool_result` events. */
export const OUTPUT_CHARS = 4000;

/** Longest message text kept in `message` events. */
export const MESSAGE_CHARS = 64 * 1024;

/** Collapses whitespace and newlines into single spaces and shortens to one line. */
export const oneLine = (text: string, maxChars: number = SUMMARY_CHARS): string => {
  const flat = wellFormed(text).replace(/\s+/g, ' ').trim();
  return flat.length <= maxChars ? flat : `${flat.slice(0, Math.max(0, maxChars - 1))}…`;
};

/** The first non-empty line of a text, shortened. */
export const firstLine = (text: string, maxChars: number = SUMMARY_CHARS): string => {
  const line = text.split(/\r?\n/).find((candidate) => candidate.trim() !== '') ?? '';
  return oneLine(line, maxChars);
};

/** Keeps a bounded, well-formed copy of a longer text. */
export const clip = (text: string, maxChars: number): string => wellFormed(shorten(text, maxChars));

/** Shows a path relative to the agent's working directory when it lies inside it. */
export const relativePath = (path: string, cwd: string | undefined): string => {
  if (cwd === undefined || cwd === '') return path;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
};

export const asString = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

export const asNumber = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** A compact one-line rendering of a tool's input, for tools without a dedicated summary. */
export const compactJson = (value: unknown, maxChars: number = SUMMARY_CHARS): string => {
  if (value === undefined) return '';
  let text: string;
  try {
    text = JSON.stringify(value) ?? '';
  } catch {
    text = String(value);
  }
  return oneLine(text, maxChars);
};
