/** Plain-text tables for the bench's report. */

export type Cell = string | number;

const format = (cell: Cell): string => {
  if (typeof cell === 'string') return cell;
  if (!Number.isFinite(cell)) return 'n/a';
  if (Number.isInteger(cell)) return cell.toLocaleString('en-US');
  if (Math.abs(cell) >= 100) return Math.round(cell).toLocaleString('en-US');
  if (Math.abs(cell) >= 10) return cell.toFixed(1);
  return cell.toFixed(2);
};

/** Right-aligns numbers, left-aligns text. */
export const table = (title: string, headers: string[], rows: Cell[][]): string => {
  const cells = rows.map((row) => row.map(format));
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...cells.map((row) => (row[column] ?? '').length)),
  );
  const line = (values: string[], numeric: boolean[]): string =>
    values
      .map((value, column) =>
        numeric[column] ? value.padStart(widths[column] ?? 0) : value.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const numericColumns = headers.map((_, column) => rows.every((row) => typeof row[column] === 'number'));
  return [
    title,
    line(headers, numericColumns),
    line(
      widths.map((width) => '-'.repeat(width)),
      numericColumns,
    ),
    ...cells.map((row) => line(row, numericColumns)),
  ].join('\n');
};
