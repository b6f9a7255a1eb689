/**
 * Line handling shared by every parser: line endings, safe JSON parsing, shortening of huge or
 * malformed lines, and text clean-up. Nothing here throws.
 */

import { shorten, wellFormed } from '../core/text.js';

/** Lines longer than this are not parsed at all (a 10 MB line costs one length check). */
const MAX_PARSE_CHARS = 4 * 1024 * 1024;

/** Objects from lines longer than this are not kept whole in `unknown` events. */
const MAX_RAW_OBJECT_CHARS = 64 * 1024;

/** Removes a trailing CR (CRLF output) and a leading byte-order mark. */
export const normalizeLine = (line: string): string => {
  let text = line;
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
};

export type JsonLine =
  | { ok: true; value: Record<string, unknown>; length: number }
  | { ok: false; reason: string; raw: string }
  | { ok: 'blank' };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const JSON_SCALAR = /^\s*(?:true|false|null)\s*$/;

/**
 * Why a line cannot be a JSON object, told from its first character, or null when JSON.parse must
 * decide. Cheap on purpose: a thrown SyntaxError costs about as much as the rest of the engine's
 * work per line, and a CLI can print a million lines of plain text.
 */
const cannotBeObject = (text: string): string | null => {
  const first = text.trimStart().charAt(0);
  if (first === '{') return null;
  // Valid JSON that is not an object (an array, a string, a number, a literal) says so below.
  if ('["-0123456789'.includes(first) || JSON_SCALAR.test(text)) return null;
  return `not JSON: starts with ${JSON.stringify(first)}`;
};

/** Parses one line as a JSON object, never throwing. */
export const parseJsonLine = (line: string): JsonLine => {
  // The common line of a JSON stream: it opens an object and has no CR to strip (so no BOM, not
  // blank, and JSON.parse decides), and goes straight to JSON.parse: the checks below each cost a
  // scan or a copy of the line, and a flood is a hundred thousand of them.
  if (
    line.charCodeAt(0) === 0x7b &&
    line.charCodeAt(line.length - 1) !== 0x0d &&
    line.length <= MAX_PARSE_CHARS
  )
    return parseObject(line);
  const text = normalizeLine(line);
  if (text.trim() === '') return { ok: 'blank' };
  if (text.length > MAX_PARSE_CHARS) {
    return {
      ok: false,
      reason: `line too long to parse (${text.length} chars)`,
      raw: wellFormed(shorten(text)),
    };
  }
  const notObject = cannotBeObject(text);
  if (notObject !== null) return { ok: false, reason: notObject, raw: wellFormed(shorten(text)) };
  return parseObject(text);
};

/** JSON.parse of a line that passed the checks above, as a JsonLine. */
const parseObject = (text: string): JsonLine => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? `not JSON: ${error.message}` : 'not JSON';
    return { ok: false, reason: shorten(reason, 200), raw: wellFormed(shorten(text)) };
  }
  if (!isRecord(value)) return { ok: false, reason: 'not a JSON object', raw: wellFormed(shorten(text)) };
  return { ok: true, value, length: text.length };
};

/** The raw object to keep in an `unknown` event: whole when small, a shortened line when huge. */
export const rawForUnknown = (value: Record<string, unknown>, length: number): unknown =>
  length <= MAX_RAW_OBJECT_CHARS
    ? value
    : { truncated: true, type: value['type'], preview: shorten(JSON.stringify(value)) };
