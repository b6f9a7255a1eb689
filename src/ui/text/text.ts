/**
 * Width-aware text helpers for the dashboard and the CLI's printers.
 *
 * Widths are Ink's own: string-width measures (the library Ink measures with; bundled into dist/,
 * so the headless CLI gets it without loading Ink), and cuts fall between graphemes. Every
 * width hydra computes, in the dashboard and in the CLI's printers, goes through `displayWidth`,
 * so a line hydra cut to a pane's width is one Ink draws in that width, emoji and CJK included.
 * Beside them, the sanitizer that keeps agent output from writing control sequences to the
 * terminal or hiding what it says.
 */
import stringWidth from 'string-width';
import { oneLine as foldLine, stripEscapes } from '../../core/text.js';

/* Every C0 and C1 control and DEL left once the escape sequences are gone, a lone ESC included. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/*
 * Characters a terminal draws as nothing, or that reorder what follows (issue 21, case 19): the bidi
 * embeddings, overrides and isolates (U+202A-202E, U+2066-2069) and marks (U+200E, U+200F, U+061C),
 * zero-width spaces and joiners (U+200B-200D, U+2060, U+FEFF), the other invisible format
 * characters (soft hyphen, invisible operators, deprecated format controls, interlinear
 * annotations, shorthand and musical format controls, tags) and the blank Hangul fillers. With them
 * an agent's text or file name can read differently from what it is (`txt.exe` shown as `exe.txt`).
 * The first alternative is what stays: a zero-width joiner inside an emoji sequence (a family) and
 * the tags of a flag, which draw as one picture.
 */
const INVISIBLE =
  /(\p{Extended_Pictographic}(?:[\u{1F3FB}-\u{1F3FF}]|\uFE0F)?(?:\u200D\p{Extended_Pictographic}(?:[\u{1F3FB}-\u{1F3FF}]|\uFE0F)?)+|\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F})|[\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}]/gu;

/** A cheap first test (most text has none of them): the BMP ones, or a surrogate of the others. */
const MAYBE_INVISIBLE =
  /[\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\uD82F\uD834\uDB40]/;

/** A character as the escape that names it: `\u202E`, `\u{E0041}`; line breaks and tabs as `\n`, `\t`. */
const escapeChar = (char: string): string => {
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
};

/** Invisible and reordering characters shown as their escapes, so nothing hides or flips text. */
const showInvisible = (text: string): string =>
  MAYBE_INVISIBLE.test(text)
    ? text.replace(INVISIBLE, (char: string, kept: string | undefined) => kept ?? escapeChar(char))
    : text;

/**
 * The one sanitizer for text hydra did not write (agent messages, results, stderr, a CLI's help or
 * version output) before any printer puts it on a terminal: escape sequences and control
 * characters removed, tabs become spaces, line breaks kept (CR LF and lone CR become LF), and
 * invisible or reordering characters (bidi overrides, zero-width spaces) shown as escapes (`\u202E`).
 */
export const sanitize = (text: string): string =>
  showInvisible(stripEscapes(text).replace(/\r\n?/g, '\n').replace(/\t/g, '  ').replace(CONTROL, ''));

// eslint-disable-next-line no-control-regex
const NAME_CONTROL = /[\u0000-\u001F\u007F-\u009F]/g;

/**
 * A name hydra did not choose (a file an agent wrote, a path from a record) for one line of a
 * terminal: every control character, line breaks and escape included, and every invisible or
 * reordering character shown as its escape (`a\nb`, `\u202Etxt`). A name keeps its length in
 * characters a reader can see: nothing is dropped, so two names never print alike.
 */
export const sanitizeName = (name: string): string => showInvisible(name).replace(NAME_CONTROL, escapeChar);

/** A copy of a JSON-like value with every string sanitized (a record or report before printing). */
export const sanitizeStrings = <T>(value: T): T => {
  if (typeof value === 'string') return sanitize(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => sanitizeStrings(item)) as T;
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = sanitizeStrings(item);
    return copy as T;
  }
  return value;
};

/**
 * JSON for a terminal: the same value, but DEL, the C1 controls and the invisible or reordering
 * characters (bidi overrides, zero-width spaces), which JSON.stringify leaves raw, are escaped as
 * \uXXXX too, so `hydra show --json` in a terminal cannot act on them or hide text.
 */
export const terminalSafeJson = (value: unknown): string =>
  JSON.stringify(value).replace(
    /[\u007F-\u009F\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/**
 * One terminal line: sanitized, every run of whitespace (line breaks too) one space, and cut to
 * `maxColumns` with an ellipsis when given. The folding is the adapters' own, the one that already
 * bounded the text when it became an event.
 */
export const oneLine = (text: string, maxColumns?: number): string => {
  const line = foldLine(sanitize(text), Number.POSITIVE_INFINITY);
  return maxColumns === undefined ? line : truncate(line, maxColumns);
};

/** Columns a string takes, as Ink measures it (string-width: emoji sequences 2, combining marks 0). */
export const displayWidth = (text: string): number => stringWidth(text);

/** Columns a string takes on screen, not counting escape sequences (colours). */
export const visibleWidth = (text: string): number => displayWidth(sanitize(text));

/** Built on first use: a segmenter loads ICU's break data (~10 ms), which most commands never need. */
let graphemeSegmenter: Intl.Segmenter | undefined;
const graphemes = (text: string): Intl.Segments =>
  (graphemeSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(text);

/**
 * Cuts `text` so it takes at most `width` columns, ending with `ellipsis` when something was cut.
 * Cuts between graphemes, so a wide character or an emoji sequence is never split. (cli-truncate,
 * which Ink uses, keeps a wide character that straddles the limit: one column too many.)
 */
export const truncate = (text: string, width: number, ellipsis = '…'): string => {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  const budget = width - displayWidth(ellipsis);
  if (budget < 0) return truncate(ellipsis, width, '');
  let used = 0;
  let out = '';
  for (const { segment } of graphemes(text)) {
    const w = displayWidth(segment);
    if (used + w > budget) break;
    out += segment;
    used += w;
  }
  return out + ellipsis;
};

/** Pads with spaces on the right to exactly `width` columns (cutting first when longer). */
export const padEnd = (text: string, width: number, ellipsis = '…'): string => {
  const cut = truncate(text, width, ellipsis);
  return cut + ' '.repeat(Math.max(0, width - displayWidth(cut)));
};

/** Pads with spaces on the left to exactly `width` columns (cutting first when longer). */
export const padStart = (text: string, width: number, ellipsis = '…'): string => {
  const cut = truncate(text, width, ellipsis);
  return ' '.repeat(Math.max(0, width - displayWidth(cut))) + cut;
};

const firstGrapheme = (text: string): string =>
  graphemes(text)[Symbol.iterator]().next().value?.segment ?? text;

/** Wraps sanitized text to `width` columns, breaking on spaces where possible. */
export const wrap = (text: string, width: number): string[] => {
  if (width <= 0) return [];
  const lines: string[] = [];
  for (const paragraph of sanitize(text).split('\n')) {
    let line = '';
    let lineWidth = 0;
    for (const word of paragraph.split(/(\s+)/)) {
      if (word === '') continue;
      const w = displayWidth(word);
      if (lineWidth + w <= width) {
        line += word;
        lineWidth += w;
        continue;
      }
      if (line.trim() !== '') lines.push(line.trimEnd());
      line = '';
      lineWidth = 0;
      if (/^\s+$/.test(word)) continue;
      let rest = word;
      while (displayWidth(rest) > width) {
        // A grapheme wider than the whole line (an emoji in one column) still goes on a line of its own.
        const head = truncate(rest, width, '') || firstGrapheme(rest);
        if (head === rest) break;
        lines.push(head);
        rest = rest.slice(head.length);
      }
      line = rest;
      lineWidth = displayWidth(rest);
    }
    lines.push(line.trimEnd());
  }
  return lines;
};

/** Text with the Unicode ellipsis spelled as the theme spells it (`...` in ASCII mode). */
export const plainEllipsis = (text: string, ellipsis: string): string =>
  ellipsis === '…' ? text : text.replaceAll('…', ellipsis);
