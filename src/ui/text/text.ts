/**
 * Width-aware text helpers for the dashboard and the CLI's printers.
 *
 * Ink depends on string-width and cli-truncate, but they are not direct dependencies of hydra (and
 * the headless CLI must not load Ink), so the few things the printers need live here: a display
 * width that counts wide (CJK, emoji) characters as two columns and combining marks as zero, a
 * truncation that cuts to a column budget, and a sanitizer that keeps agent output from writing
 * control sequences to the terminal.
 */
import { oneLine as foldLine } from '../../core/text.js';

/*
 * Everything an agent (or a CLI's help output) might print that a terminal would act on instead of
 * show: 7-bit and 8-bit (C1) forms alike, since some terminals honour U+009B as CSI.
 * - strings: OSC (ESC ] / 0x9d: titles, clipboard writes, hyperlinks), DCS (ESC P / 0x90),
 *   SOS (ESC X / 0x98), PM (ESC ^ / 0x9e) and APC (ESC _ / 0x9f), up to BEL or ST (ESC \ / 0x9c),
 *   or to the end of the text when unterminated (a terminal would swallow the rest too);
 * - CSI (ESC [ / 0x9b) with its parameters: colours, cursor moves, `\e[2J`;
 * - any other escape sequence (ESC, intermediates, a final byte: `\e(B`, `\ec`, `\e7`);
 * - then every remaining C0 and C1 control and DEL, a lone ESC included.
 */
// eslint-disable-next-line no-control-regex
const CONTROL_STRING = /(?:\u001B[\]PX^_]|[\u0090\u0098\u009D-\u009F])[\s\S]*?(?:\u0007|\u001B\\|\u009C|$)/g;
// eslint-disable-next-line no-control-regex
const CSI_SEQUENCE = /(?:\u001B\[|\u009B)[0-?]*[ -/]*[@-~]?/g;
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCE = /\u001B[ -/]*[0-~]?/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * The one sanitizer for text hydra did not write (agent messages, results, stderr, a CLI's help or
 * version output) before any printer puts it on a terminal: escape sequences and control
 * characters removed, tabs become spaces, line breaks kept (CR LF and lone CR become LF).
 */
export const sanitize = (text: string): string =>
  text
    .replace(CONTROL_STRING, '')
    .replace(CSI_SEQUENCE, '')
    .replace(ESCAPE_SEQUENCE, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, '  ')
    .replace(CONTROL, '');

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
 * JSON for a terminal: the same value, but DEL and the C1 controls, which JSON.stringify leaves
 * raw, are escaped as \u00XX too, so `hydra show --json` in a terminal cannot act on them.
 */
export const terminalSafeJson = (value: unknown): string =>
  JSON.stringify(value).replace(
    /[\u007F-\u009F]/g,
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

const isZeroWidth = (code: number): boolean =>
  (code >= 0x0300 && code <= 0x036f) ||
  (code >= 0x1ab0 && code <= 0x1aff) ||
  (code >= 0x1dc0 && code <= 0x1dff) ||
  (code >= 0x20d0 && code <= 0x20ff) ||
  (code >= 0xfe00 && code <= 0xfe0f) ||
  (code >= 0xfe20 && code <= 0xfe2f) ||
  code === 0x200b ||
  code === 0x200c ||
  code === 0x200d ||
  code === 0x2060 ||
  (code >= 0xe0100 && code <= 0xe01ef);

const isWide = (code: number): boolean =>
  (code >= 0x1100 && code <= 0x115f) ||
  (code >= 0x2e80 && code <= 0x303e) ||
  (code >= 0x3041 && code <= 0x33ff) ||
  (code >= 0x3400 && code <= 0x4dbf) ||
  (code >= 0x4e00 && code <= 0x9fff) ||
  (code >= 0xa000 && code <= 0xa4cf) ||
  (code >= 0xac00 && code <= 0xd7a3) ||
  (code >= 0xf900 && code <= 0xfaff) ||
  (code >= 0xfe30 && code <= 0xfe4f) ||
  (code >= 0xff00 && code <= 0xff60) ||
  (code >= 0xffe0 && code <= 0xffe6) ||
  (code >= 0x1f300 && code <= 0x1f64f) ||
  (code >= 0x1f900 && code <= 0x1f9ff) ||
  (code >= 0x1f680 && code <= 0x1f6ff) ||
  (code >= 0x20000 && code <= 0x3fffd);

/** Columns one code point takes in a terminal. */
const charWidth = (char: string): number => {
  const code = char.codePointAt(0) ?? 0;
  if (isZeroWidth(code)) return 0;
  return isWide(code) ? 2 : 1;
};

/** Columns a string takes (expects sanitized text). */
export const displayWidth = (text: string): number => {
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
};

/** Columns a string takes on screen, not counting escape sequences (colours). */
export const visibleWidth = (text: string): number => displayWidth(sanitize(text));

/**
 * Cuts `text` so it takes at most `width` columns, ending with `ellipsis` when something was cut.
 * Wide characters are never split.
 */
export const truncate = (text: string, width: number, ellipsis = '…'): string => {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  const budget = width - displayWidth(ellipsis);
  if (budget <= 0) return ellipsis.slice(0, width);
  let used = 0;
  let out = '';
  for (const char of text) {
    const w = charWidth(char);
    if (used + w > budget) break;
    out += char;
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
        const head = truncate(rest, width, '');
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
