/** Helpers that turn vendor data into text fit for one terminal line. */

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
