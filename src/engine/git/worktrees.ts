/**
 * Agent worktrees and branches. Each agent works on `hydra/<run-id>/<agent>` in its own worktree
 * outside the repository; when it settles, hydra commits whatever it changed there (as "hydra",
 * hooks and signing off), so every result is a commit that can be diffed, merged or inspected.
 */
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { DiffSummary, FileStat } from '../types.js';
import { EngineError } from '../errors.js';
import { HYDRA_IDENTITY, NO_HOOKS, gitLine, runGit, splitZ } from './git.js';
import type { RunGitOptions } from './git.js';

/** Flags for every commit hydra makes on its own branches. */
const COMMIT_FLAGS = ['-c', 'commit.gpgsign=false', ...NO_HOOKS];

/** How a worktree is made: cancellable, time-limited, named in errors, marked with the run's id. */
export type WorktreeGitOptions = Pick<
  RunGitOptions,
  'signal' | 'timeoutMs' | 'graceMs' | 'step' | 'env' | 'processes' | 'owner'
>;

/** Refuses a worktree directory or branch that already exists: it is not hydra's to reuse or remove. */
export async function assertWorktreeFree(root: string, dir: string, branch: string): Promise<void> {
  if (existsSync(dir)) {
    throw new EngineError(
      'SpawnFailed',
      `The worktree directory ${dir} already exists.`,
      'Run `hydra clean` to remove left-overs of earlier runs (or move that directory away), then try again.',
    );
  }
  if (await branchExists(root, branch)) {
    throw new EngineError(
      'SpawnFailed',
      `Branch ${branch} already exists.`,
      `Run \`hydra clean\` to remove left-overs of earlier runs (or rename that branch: \`git branch -m ${branch} <new-name>\`), then try again.`,
    );
  }
}

/**
 * Creates the agent's worktree and branch from the base commit, without the user's hooks (see
 * NO_HOOKS). A failure names the step; the caller removes whatever git left (a failed checkout
 * keeps the new branch, a killed one can keep a half-made worktree).
 */
export async function createWorktree(
  root: string,
  dir: string,
  branch: string,
  baseRef: string,
  options: WorktreeGitOptions = {},
): Promise<void> {
  await assertWorktreeFree(root, dir, branch);
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  await runGit(root, [...NO_HOOKS, 'worktree', 'add', '--quiet', '-b', branch, dir, baseRef], options);
}

const inside = (parent: string, child: string): boolean => {
  const relative = path.relative(parent, child);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

/**
 * Removes a worktree (even with changes in it) and prunes git's bookkeeping. Missing is fine. When
 * git cannot remove it, the directory is deleted only if it really lies inside `area` (hydra's
 * directory for the run): never anything outside hydra's worktree root.
 */
export async function removeWorktree(root: string, dir: string, area: string): Promise<void> {
  if (existsSync(dir)) {
    try {
      await runGit(root, ['worktree', 'remove', '--force', '--force', dir]);
    } catch (error) {
      // Not (or no longer) a registered worktree: remove the directory itself, if it is hydra's.
      if (!inside(area, dir) || !inside(realpathSync(area), realpathSync(dir))) throw error;
      await rm(dir, { recursive: true, force: true });
    }
  }
  await runGit(root, ['worktree', 'prune']);
}

export async function branchExists(root: string, branch: string): Promise<boolean> {
  const result = await runGit(root, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], {
    okExitCodes: [1],
  });
  return result.exitCode === 0;
}

export async function deleteBranch(root: string, branch: string): Promise<boolean> {
  if (!(await branchExists(root, branch))) return false;
  await runGit(root, [...NO_HOOKS, 'branch', '-D', branch]);
  return true;
}

/**
 * Commits everything the agent changed in its worktree (new files included) on its branch and
 * returns the result commit. Makes no commit when nothing changed (the result is then the base).
 */
export async function commitAgentResult(worktree: string, branch: string, message: string): Promise<string> {
  // The agent may have switched its worktree to another branch, possibly one of the user's:
  // commit on a detached HEAD (keeping every file as it is) so no branch but hydra's moves.
  const current = await runGit(worktree, ['symbolic-ref', '-q', 'HEAD'], { okExitCodes: [1] });
  if (current.exitCode === 0 && current.stdout.trim() !== `refs/heads/${branch}`)
    await runGit(worktree, [...NO_HOOKS, 'checkout', '-q', '--detach']);
  await runGit(worktree, ['add', '-A']);
  const staged = await runGit(worktree, ['diff', '--cached', '--quiet'], { okExitCodes: [1] });
  if (staged.exitCode === 1) {
    await runGit(worktree, [...COMMIT_FLAGS, 'commit', '--no-verify', '--quiet', '-m', message], {
      env: { ...HYDRA_IDENTITY },
    });
  }
  const head = await gitLine(worktree, ['rev-parse', 'HEAD']);
  // The agent may have switched branches in its worktree: its result is where HEAD is.
  const tip = await runGit(worktree, ['rev-parse', '--verify', '-q', `refs/heads/${branch}`], {
    okExitCodes: [1],
  });
  if (tip.stdout.trim() !== head) {
    await runGit(worktree, [
      ...NO_HOOKS,
      'update-ref',
      '-m',
      'hydra: agent result',
      `refs/heads/${branch}`,
      head,
    ]);
  }
  return head;
}

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

/**
 * Removes a run's scratch space and its worktree directory once nothing else is left in it, then
 * the repository's directory above it (`<worktree root>/<repo key>`) when that is empty too.
 */
export async function removeRunDirIfEmpty(runDir: string): Promise<void> {
  await rm(path.join(runDir, '.scratch'), { recursive: true, force: true });
  for (const dir of [runDir, path.dirname(runDir)]) {
    try {
      await rmdir(dir);
    } catch {
      // not empty (kept worktrees, another run) or already gone
      return;
    }
  }
}
