/** Helpers that turn vendor data into text fit for one terminal line. */

/*
 * The escape sequences a terminal would act on instead of show, 7-bit and 8-bit (C1) forms alike,
 * since some terminals honour U+009B as CSI:
 * - strings: OSC (ESC ] / 0x9d: titles, clipboard writes, hyperlinks), DCS (ESC P / 0x90),
 *   SOS (ESC X / 0x98), PM (ESC ^ / 0x9e) and APC (ESC _ / 0x9f), up to BEL or ST (ESC \ / 0x9c),
 *   or to the end of the text when unterminated (a terminal would swallow the rest too);
 * - CSI (ESC [ / 0x9b) with its parameters: colours (`38:2:r:g:b` too), cursor moves, `\e[?25h`;
 * - any other escape sequence (ESC, intermediates, a final byte: `\e(B`, `\ec`, `\e7`).
 * Hand-written because the libraries drop less: Node's `util.stripVTControlCharacters` (ansi-regex's
 * older pattern) leaves an OSC title with a space, a DCS, an APC, an 8-bit OSC and a colon colour,
 * and strip-ansi 7 (not a dependency) leaves unterminated strings and, in text with no ESC or CSI,
 * an 8-bit OSC; test/unit/core/escapes.test.ts has the cases.
 */
// eslint-disable-next-line no-control-regex
const CONTROL_STRING = /(?:\u001B[\]PX^_]|[\u0090\u0098\u009D-\u009F])[\s\S]*?(?:\u0007|\u001B\\|\u009C|$)/g;
// eslint-disable-next-line no-control-regex
const CSI_SEQUENCE = /(?:\u001B\[|\u009B)[0-?]*[ -/]*[@-~]?/g;
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCE = /\u001B[ -/]*[0-~]?/g;

/**
 * The one ANSI stripper: a text without the escape sequences in it (colours, cursor moves, titles,
 * hyperlinks), for reading what a program printed (a CLI's help, a test runner's summary) or
 * before sanitizing it for a terminal. Line breaks, tabs and other characters stay.
 */
export const stripEscapes = (text: string): string =>
  text.replace(CONTROL_STRING, '').replace(CSI_SEQUENCE, '').replace(ESCAPE_SEQUENCE, '');

/** How much of a raw line an event keeps by default (parse errors, huge unknown objects). */
const MAX_RAW_CHARS = 2000;

/** Keeps the head of a long text and says how much was cut. */
export const shorten = (text: string, maxChars: number = MAX_RAW_CHARS): string => {
  if (text.length <= maxChars) return text;
  const head = text.slice(0, maxChars);
  return `${head}… [${text.length - maxChars} more chars]`;
};

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Any surrogate at all: a cheap first test, since most text has none. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** Replaces lone UTF-16 surrogates (from invalid UTF-8 or broken escapes) with U+FFFD. */
export const wellFormed = (text: string): string =>
  SURROGATE.test(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text;

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

/** A message as a clause inside a sentence of hydra's: one line, no closing full stop. */
export const asClause = (text: string): string => oneLine(text, MESSAGE_CHARS).replace(/\.$/, '');

/** ` (a, b)` from the parts that say something, '' when none does: never `(, merge-commit)`. */
export const inParens = (...parts: ReadonlyArray<string | null | undefined>): string => {
  const said = parts.filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  return said.length === 0 ? '' : ` (${said.join(', ')})`;
};
