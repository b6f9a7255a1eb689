/**
 * What of a run hydra may touch when it works from a run record (`hydra clean`, `hydra merge`).
 * A record is data, never authority: a worktree path it names is acted on only when it lies in
 * hydra's own directory for that run (`<worktree root>/<repo key>/<run id>`, real paths compared, no
 * `..`, no symbolic link leading out) and `git worktree list` names it.
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { runGit } from '../git/index.js';
import { isInside, repoKey, runWorktreesDir } from '../records/index.js';

export interface WorktreeEntry {
  /** As git lists it. */
  path: string;
  /** Its real path (the listed path when it no longer exists). */
  real: string;
  branch: string | null;
}

/** A path's real path, or the path itself (resolved) when it does not exist. */
export const realOrSelf = (file: string): string => {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
};

/** The worktrees git knows for this repository (its own bookkeeping, never a record). */
export async function listWorktrees(root: string): Promise<WorktreeEntry[]> {
  const { stdout } = await runGit(root, ['worktree', 'list', '--porcelain', '-z']);
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | null = null;
  for (const field of stdout.split('\0')) {
    if (field.startsWith('worktree ')) {
      const listed = field.slice('worktree '.length);
      current = { path: listed, real: realOrSelf(listed), branch: null };
      entries.push(current);
    } else if (field.startsWith('branch ') && current !== null) {
      current.branch = field.slice('branch '.length).replace(/^refs\/heads\//, '');
    }
  }
  return entries;
}

/** Hydra's directory for a repository's worktrees, and the one for a run's. */
export interface RunArea {
  /** `<worktree root>/<repo key>`. */
  repoDir: string;
  /** `<worktree root>/<repo key>/<run id>`. */
  runDir: string;
}

export const runArea = (worktreeRoot: string, root: string, runId: string): RunArea => ({
  repoDir: path.join(path.resolve(worktreeRoot), repoKey(root)),
  runDir: runWorktreesDir(path.resolve(worktreeRoot), root, runId),
});

/** Whether `file` lies in `dir`, both as written and once every symbolic link is resolved. */
export const reallyInside = (dir: string, file: string): boolean =>
  isInside(dir, path.resolve(file)) && isInside(realOrSelf(dir), realOrSelf(file));

export type Verdict = { ok: true; entry: WorktreeEntry } | { ok: false; reason: string } | { ok: 'gone' };

/** Whether hydra may remove a worktree path that a record names. */
export function checkRecordedWorktree(
  recorded: string,
  area: RunArea,
  worktrees: readonly WorktreeEntry[],
): Verdict {
  if (!path.isAbsolute(recorded) || recorded.split(/[\\/]/).includes('..'))
    return { ok: false, reason: 'not an absolute path without `..`' };
  if (!isInside(area.runDir, recorded))
    return { ok: false, reason: `outside hydra's worktree directory for this run (${area.runDir})` };
  if (lstatSync(recorded, { throwIfNoEntry: false }) === undefined) return { ok: 'gone' };
  const real = realOrSelf(recorded);
  if (!isInside(realOrSelf(area.runDir), real))
    return { ok: false, reason: `leads through a symbolic link to ${real}, outside ${area.runDir}` };
  const entry = worktrees.find((item) => item.real === real);
  if (entry === undefined)
    return { ok: false, reason: 'git does not list it as a worktree of this repository' };
  return { ok: true, entry };
}
