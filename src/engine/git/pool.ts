/**
 * The warm worktree pool (`worktree_pool`): an agent's worktree kept after its race, detached in
 * `<worktree root>/<repo key>/.pool/`, and handed to a later race's agent as a fresh checkout.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { runGit } from './git.js';
import { pinWorktree, runPinned } from './pinned.js';
import { oneAtATime, removeWorktree } from './worktrees.js';
import type { WorktreeGitOptions } from './worktrees.js';

/**
 * Takes an idle worktree from the pool (`pool`, see worktreePoolDir) and makes it the agent's:
 * moved to `dir` (`git worktree move`, which is also the claim: of two races after the same one,
 * the second finds nothing to move and tries the next), then reset to the base on a new `branch`
 * (`checkout --force -b` and `clean -ffdx`, hooks off), so git updates only the files that differ.
 * False when the pool has none to give (the caller makes one with createWorktree). A pooled
 * worktree that is no longer sound (git will not move it, or its `.git` is broken) is removed and
 * skipped. The caller checks
 * `dir` and `branch` with assertWorktreeFree first and rolls back `dir` and `branch` on a throw.
 */
export async function takePooledWorktree(
  root: string,
  pool: string,
  dir: string,
  branch: string,
  baseRef: string,
  options: WorktreeGitOptions = {},
): Promise<boolean> {
  const idle = (await readdir(pool).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));
  if (idle.length === 0) return false;
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  for (const name of idle) {
    const from = path.join(pool, name);
    const moved = await oneAtATime(root, () =>
      runGit(root, ['worktree', 'move', from, dir], { ...options, okExitCodes: [128] }),
    );
    if (moved.exitCode !== 0) {
      // Still there: git refused to move it (its `.git` no longer points back): not worth keeping.
      if (existsSync(from)) await removeWorktree(root, from, pool).catch(() => undefined);
      continue;
    }
    const pinned = await pinWorktree(root, dir).catch(() => null);
    if (pinned === null) {
      await removeWorktree(root, dir, path.dirname(dir));
      continue;
    }
    // Nothing the last race's agent set for this worktree alone (`git config --worktree`) carries over.
    await rm(path.join(pinned.gitDir, 'config.worktree'), { force: true });
    await runPinned(pinned, ['checkout', '-q', '--force', '-b', branch, baseRef], options);
    await runPinned(pinned, ['clean', '-ffdxq'], options);
    return true;
  }
  return false;
}

/**
 * Gives an agent's worktree back to the pool instead of removing it, when the pool holds fewer
 * than `size`: detached (so its branch can be deleted), changes dropped, moved under `pool`. False
 * when it was not pooled (the pool is full, the worktree is no longer sound, git refused the
 * move, e.g. for submodules); the caller then removes it as usual.
 */
export async function returnToPool(root: string, dir: string, pool: string, size: number): Promise<boolean> {
  const held = (await readdir(pool).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));
  if (held.length >= size) return false;
  try {
    const pinned = await pinWorktree(root, dir);
    await runPinned(pinned, ['checkout', '-q', '--force', '--detach']);
    await mkdir(pool, { recursive: true, mode: 0o700 });
    await oneAtATime(root, () => runGit(root, ['worktree', 'move', dir, path.join(pool, randomUUID())]));
    return true;
  } catch {
    return false;
  }
}

/** Every idle worktree of the pool. */
export async function pooledWorktrees(pool: string): Promise<string[]> {
  const names = await readdir(pool).catch(() => [] as string[]);
  return names.filter((name) => !name.startsWith('.')).map((name) => path.join(pool, name));
}
