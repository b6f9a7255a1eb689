/**
 * The merge's own writes and their undoing: the commit it makes (signed when the user signs, with
 * hydra's identity when the user has none), what it removes afterwards, and a merge that failed
 * half-way put back exactly as it was.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { EngineError, listSome } from '../errors.js';
import { HYDRA_IDENTITY, GitCommandError, commitSubject, runGit } from '../git/index.js';
import { deleteBranches, removeWorktrees } from '../git/index.js';
import { branchName } from '../records/index.js';
import { refuse } from './merge-checks.js';
import type { MergeRequest } from './merge-checks.js';
import { changedSince, restoreTree } from './tree-guard.js';
import type { RestorePlan } from './tree-guard.js';

export const commitMessage = (
  request: MergeRequest,
  squash: boolean,
  only: readonly string[] | null,
): string => {
  const subject = commitSubject(request.prompt);
  if (only !== null)
    return `${request.agent}: ${subject}\n\nPart of the result of hydra run ${request.runId} (agent ${request.agent}): ${only.join(', ')}.\n`;
  return squash
    ? `${request.agent}: ${subject}\n\nSquashed result of hydra run ${request.runId} (agent ${request.agent}).\n`
    : `Merge hydra run ${request.runId} (${request.agent}): ${subject}\n`;
};

/**
 * Whether the user's configuration asks for signed commits. `git commit-tree` is plumbing and never
 * reads `commit.gpgsign` itself, so hydra passes `-S` (git then uses `user.signingkey` and
 * `gpg.format`, gpg, ssh or x509, as `git commit` would).
 */
export async function wantsSignedCommits(root: string): Promise<boolean> {
  const result = await runGit(root, ['config', '--type=bool', '--get', 'commit.gpgsign'], {
    okExitCodes: [1],
  }).catch(() => null);
  return result?.stdout.trim() === 'true';
}

/** Creates a commit with the user's identity, or hydra's when the user has none configured. */
export async function commitTree(
  root: string,
  tree: string,
  parents: string[],
  message: string,
  sign: boolean,
): Promise<string> {
  const args = ['commit-tree', ...(sign ? ['-S'] : []), tree, ...parents.flatMap((parent) => ['-p', parent])];
  try {
    try {
      return (await runGit(root, args, { input: message })).stdout.trim();
    } catch (error) {
      if (
        error instanceof GitCommandError &&
        /identity|tell me who you are|empty ident|user\.(name|email)/i.test(error.result.stderr)
      ) {
        return (await runGit(root, args, { input: message, env: { ...HYDRA_IDENTITY } })).stdout.trim();
      }
      throw error;
    }
  } catch (error) {
    if (sign && error instanceof GitCommandError) {
      refuse(
        `Your git configuration asks for signed commits (commit.gpgsign), and signing the merge commit failed: ${error.result.stderr.trim() || error.message}`,
        'Nothing was changed. Fix signing (`git commit --allow-empty -S -m test` shows the problem), then merge again.',
      );
    }
    throw error;
  }
}

/**
 * What a merge removes: with `discardOthers`, every worktree and branch of the run; otherwise only
 * the merged agent's worktree, and its branch when the whole result was merged (after `--only` the
 * rest of it is still on that branch). The other results stay until `hydra clean`.
 */
export async function cleanUpAfterMerge(request: MergeRequest, whole: boolean): Promise<string[]> {
  if (request.options.keepWorktrees === true) return [];
  const own = branchName(request.runId, request.agent);
  const discard = request.options.discardOthers === true;
  const worktrees = discard
    ? request.worktrees
    : request.worktrees.filter((dir) => dir === request.agentWorktree);
  const branches = discard ? request.branches : request.branches.filter((branch) => whole && branch === own);
  // All at once, as a race's clean-up does (removeWorktrees, deleteBranches).
  const present = worktrees.filter((dir) => existsSync(dir));
  await removeWorktrees(
    request.root,
    present.map((dir) => ({ dir, area: path.dirname(dir) })),
  );
  return [...present, ...(await deleteBranches(request.root, branches))];
}

/**
 * A merge that failed after it began to write: puts the working tree and index back exactly as
 * they were and says so, or names what could not be put back and how to do it by hand.
 */
export async function failedMidway(
  request: MergeRequest,
  plan: RestorePlan,
  error: unknown,
  when: string,
): Promise<never> {
  const detail = error instanceof GitCommandError ? error.message : String(error);
  const gitHint = error instanceof GitCommandError ? ` ${error.hint}` : '';
  // What went wrong is git's (a failure, a time-out); a branch that moved is a refusal.
  const kind = error instanceof GitCommandError ? error.kind : 'Refused';
  // Put back only what is still the merge's own doing: never write over newer work.
  const changed = await changedSince(request.root, plan);
  if (changed.length > 0) {
    const files = [...plan.entries.keys()];
    throw new EngineError({
      kind,
      message: `Merging ${request.agent}'s result failed ${when}: ${detail}. Meanwhile the checkout changed: ${changed.join('; ')}.`,
      hint: `hydra wrote nothing back, so that newer work is not overwritten. ${plan.written === null ? 'The merge may have written some of' : "The merge's checkout had written"} ${listSome(files)} (from ${plan.head.slice(0, 12)} towards ${request.agent}'s result); its branch was not moved. See \`git status\` and \`git log -1\`; \`git checkout HEAD -- <file>\` takes a file back to what HEAD has (losing its changes), \`git merge ${branchName(request.runId, request.agent)}\` merges the result by hand.${gitHint}`,
      cause: error,
      files,
    });
  }
  const left = await restoreTree(request.root, plan);
  if (left.length === 0) {
    throw new EngineError({
      kind,
      message: `Merging ${request.agent}'s result failed ${when}: ${detail}`,
      hint: `Your working tree and index were put back exactly as they were; nothing was merged.${gitHint}`,
      cause: error,
    });
  }
  throw new EngineError({
    kind,
    message: `Merging ${request.agent}'s result failed ${when}, and ${listSome(left)} could not be put back: ${detail}`,
    hint: `Nothing was merged. Put those files back with \`git reset -q HEAD -- <file>\` and \`git checkout HEAD -- <file>\` (or delete the ones HEAD does not have).${gitHint}`,
    cause: error,
    files: left,
  });
}
