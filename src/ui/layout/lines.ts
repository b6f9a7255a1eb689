/**
 * The dashboard draws everything as lines of styled segments, built by pure functions and cut to
 * the available width before Ink sees them. Ink then never wraps a line, so the height of the live
 * area is known exactly and stays below the terminal's height.
 */
import type { Tone } from '../text/index.js';
import { displayWidth, truncate, wrap } from '../text/index.js';

export interface Segment {
  text: string;
  tone?: Tone | null;
  bold?: boolean;
  inverse?: boolean;
}

export type Line = Segment[];

export const seg = (text: string, tone: Tone | null = null, bold = false): Segment => ({ text, tone, bold });

export const lineText = (line: Line): string => line.map((segment) => segment.text).join('');

export const lineWidth = (line: Line): number => displayWidth(lineText(line));

/** Cuts a line to `width` columns; the segment where the cut falls ends with the ellipsis. */
export const fitLine = (line: Line, width: number, ellipsis: string): Line => {
  if (lineWidth(line) <= width) return line;
  const reserve = displayWidth(ellipsis);
  const out: Line = [];
  let used = 0;
  for (const segment of line) {
    const w = displayWidth(segment.text);
    if (used + w <= width - reserve) {
      out.push(segment);
      used += w;
      continue;
    }
    // The cut falls in this segment: keep what fits and end with the ellipsis.
    const kept = truncate(segment.text, Math.max(0, width - used - reserve), '');
    out.push({ ...segment, text: truncate(kept + ellipsis, width - used, ellipsis) });
    break;
  }
  return out;
};

/** Left part, then right part flush right; the left part is cut first when both do not fit. */
export const spread = (left: Line, right: Line, width: number, ellipsis: string): Line => {
  const rightWidth = lineWidth(right);
  if (rightWidth + 2 > width) return fitLine(left, width, ellipsis);
  const fittedLeft = fitLine(left, width - rightWidth - 1, ellipsis);
  const gap = width - lineWidth(fittedLeft) - rightWidth;
  return [...fittedLeft, seg(' '.repeat(Math.max(1, gap))), ...right];
};

/** Wraps each line to `width` columns, keeping the style of its first segment. */
export const wrapLines = (lines: Line[], width: number): Line[] =>
  lines.flatMap((line) => {
    const first = line[0];
    return wrap(lineText(line), width).map((text) => [seg(text, first?.tone ?? null, first?.bold ?? false)]);
  });
