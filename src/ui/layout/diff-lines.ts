/** The diff view: an agent's patch as coloured lines, with where each file starts (for n/p). */
import { sanitize, type Theme } from '../text/index.js';
import { fitLine, seg, wrapLines, type Line } from './lines.js';

export type PatchState =
  { status: 'loading' } | { status: 'ready'; text: string } | { status: 'error'; message: string };

export interface DiffView {
  lines: Line[];
  /** Line index where each file starts. */
  fileStarts: number[];
  files: string[];
}

const FILE_HEADER = /^diff --git a\/(.*) b\/(.*)$/;

/** A unified patch as coloured lines, with the offsets of each file for n/p. */
export const diffView = (patch: PatchState | undefined, theme: Theme, width: number): DiffView => {
  const ellipsis = theme.symbols.ellipsis;
  if (patch === undefined || patch.status === 'loading')
    return { lines: [[seg(`loading patch${ellipsis}`, 'muted')]], fileStarts: [], files: [] };
  if (patch.status === 'error') {
    return {
      lines: wrapLines([[seg(`Could not read the patch: ${patch.message}`, 'error')]], width),
      fileStarts: [],
      files: [],
    };
  }
  if (patch.text.trim() === '')
    return {
      lines: [[seg('No changes: this agent left the files as they were.', 'muted')]],
      fileStarts: [],
      files: [],
    };
  const lines: Line[] = [];
  const fileStarts: number[] = [];
  const files: string[] = [];
  // `---`/`+++` are a file's header only before its first hunk: inside one, `+++i` is an added `++i`.
  let inHunk = false;
  for (const raw of sanitize(patch.text).replace(/\n$/, '').split('\n')) {
    const header = FILE_HEADER.exec(raw);
    if (header !== null) {
      inHunk = false;
      fileStarts.push(lines.length);
      files.push(header[2] ?? header[1] ?? raw);
      lines.push([seg(raw, 'accent', true)]);
    } else if (!inHunk && (raw.startsWith('+++') || raw.startsWith('---')))
      lines.push([seg(raw, null, true)]);
    else if (raw.startsWith('@@')) {
      inHunk = true;
      lines.push([seg(raw, 'hunk')]);
    } else if (raw.startsWith('+')) lines.push([seg(raw, 'added')]);
    else if (raw.startsWith('-')) lines.push([seg(raw, 'removed')]);
    else if (raw.startsWith(' ') || raw === '') lines.push([seg(raw)]);
    else lines.push([seg(raw, 'muted')]);
  }
  return { lines: lines.map((line) => fitLine(line, width, ellipsis)), fileStarts, files };
};
