/** Plain-text tables for `hydra runs` and `hydra doctor`. */
import { visibleWidth } from '../ui/index.js';

/** Pads cells to column widths (measured on screen, colours not counted); the last column is not padded. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, visibleWidth(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, index) =>
        index === row.length - 1 ? cell : cell + ' '.repeat((widths[index] ?? 0) - visibleWidth(cell)),
      )
      .join('  ')
      .trimEnd(),
  );
}
