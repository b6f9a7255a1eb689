/**
 * The marks a sandbox leaves in a worktree. A protected path the agent may not write (policy.ts's
 * `denyWrite`) that does not exist yet is kept from being made by a mount over it, and bubblewrap
 * makes an empty file (or, for a missing folder on the way, an empty folder) on the disk for that
 * mount. The library removes them only once every sandbox of the process has ended, after hydra
 * has committed the agent's work: an empty `.gitmodules` or `.bashrc` would be in the result. Once
 * the agent's process has ended, hydra removes them itself: what was absent when it started and is
 * now an empty file or an empty folder.
 */
import { lstatSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';

/** Of `paths` (inside `worktree`), those that do not exist now. */
export const absentPaths = (paths: readonly string[]): string[] =>
  paths.filter((file) => {
    try {
      lstatSync(file);
      return false;
    } catch {
      return true;
    }
  });

/**
 * Removes what a sandbox left at `absent` (absentPaths before it started): an empty regular file,
 * then each empty folder on the way up to `worktree` (not itself). Anything with content stays.
 */
export function removeSandboxStubs(worktree: string, absent: readonly string[]): void {
  for (const file of absent) {
    let at = file;
    while (
      path.dirname(at) !== at &&
      path.relative(worktree, at) !== '' &&
      !path.relative(worktree, at).startsWith('..')
    ) {
      try {
        const stat = lstatSync(at);
        if (stat.isFile() && stat.size === 0) unlinkSync(at);
        else if (stat.isDirectory() && readdirSync(at).length === 0) rmdirSync(at);
        else if (stat.isFile() || stat.isDirectory() || stat.isSymbolicLink()) break;
      } catch {
        // Not there (never made, or removed already): look further up.
      }
      at = path.dirname(at);
    }
  }
}
