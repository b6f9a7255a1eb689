/** What a result changed: per-file counts and the whole patch, asked of the repository. */
import type { DiffSummary, FileStat } from '../types.js';
import { runGit, splitZ } from './git.js';

/** Parses `git diff --numstat -z --no-renames`. */
const parseNumstat = (text: string): DiffSummary => {
  const files: FileStat[] = [];
  for (const entry of splitZ(text)) {
    const match = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(entry);
    if (match === null) continue;
    const [, ins = '0', del = '0', file = ''] = match;
    const binary = ins === '-' && del === '-';
    files.push({
      path: file,
      insertions: binary ? 0 : Number(ins),
      deletions: binary ? 0 : Number(del),
      ...(binary ? { binary: true } : {}),
    });
  }
  return {
    filesChanged: files.length,
    insertions: files.reduce((sum, file) => sum + file.insertions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
    files,
  };
};

export async function diffSummary(root: string, base: string, commit: string): Promise<DiffSummary> {
  if (commit === base) return parseNumstat('');
  const { stdout } = await runGit(root, [
    'diff',
    '--numstat',
    '-z',
    '--no-renames',
    '--no-ext-diff',
    base,
    commit,
  ]);
  return parseNumstat(stdout);
}

export async function fullPatch(root: string, base: string, commit: string): Promise<string> {
  const { stdout } = await runGit(root, ['diff', '--no-color', '--no-ext-diff', base, commit]);
  return stdout;
}
