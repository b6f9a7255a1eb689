/**
 * Merging one agent's result into the branch the race started from, without ever losing the
 * user's work. Everything is checked before anything changes: the user is on that branch, no merge
 * or rebase is in progress, `git merge-tree --write-tree` reports no conflict, and no uncommitted
 * change (staged, unstaged, untracked, or an ignored file in the way) touches a file the merge
 * writes. The switch itself is `git read-tree -m -u` (the same two-tree move `git checkout` makes,
 * which carries every other uncommitted change over untouched) followed by a compare-and-swap
 * `update-ref` of the branch. Fast-forward when the branch has not moved, otherwise a merge commit,
 * or one squashed commit when asked.
 *
 * This file runs the merge; merge-checks.ts holds the checks before it, merge-commit.ts its commit,
 * clean-up and undoing, merge-run.ts the merge of a recorded run.
 */
import { copiedOf, refuseCopiedFiles } from './merge-copied.js';
import type { MergeResult } from '../records/index.js';
import { listSome } from '../errors.js';
import { gitLine, gitVersion, runGit, splitZ, versionAtLeast } from '../git/index.js';
import { branchExists } from '../git/index.js';
import { runRecordDir, branchName, writeMergeRecord } from '../records/index.js';
import { checkOnlyPaths, onlyCommit } from './partial-merge.js';
import { lockMerge } from '../locks/index.js';
import {
  assertNothingInProgress,
  assertOnBaseBranch,
  dryRunMerge,
  isAncestor,
  overlappingChanges,
  refuse,
  refuseDetached,
  refuseSecrets,
} from './merge-checks.js';
import type { MergeRequest } from './merge-checks.js';
import {
  cleanUpAfterMerge,
  commitMessage,
  commitTree,
  failedMidway,
  wantsSignedCommits,
} from './merge-commit.js';
import { assertRoomFor, noteWritten, planRestore, treeChanges, withSignalsHeld } from './tree-guard.js';
import { isProtectedAtTop, isProtectedPath } from '../sandbox/index.js';

export type { MergeRequest } from './merge-checks.js';

/**
 * What a merge says of the protected files it brought (MergeResult.protectedFiles): each runs code
 * in the user's tools once used there, so it is named for review. Null when there are none.
 */
export const protectedFilesNote = (merge: Pick<MergeResult, 'agent' | 'protectedFiles'>): string | null => {
  const files = merge.protectedFiles ?? [];
  if (files.length === 0) return null;
  const shown = files.slice(0, 10).join(', ');
  const more = files.length > 10 ? ` and ${files.length - 10} more` : '';
  return `${merge.agent}'s result added or changed ${shown}${more}: files your editor, shell, git or AI tools run or load (tasks, MCP servers, commands, submodules, rc files). Review them before you open the project in those tools.`;
};

/**
 * Refuses, unless the user allowed it (`--allow-protected`), a result that adds or changes a
 * protected file below the repository's top (`pkg/.vscode/tasks.json`, `sub/.mcp.json`): the
 * sandbox keeps an agent from writing those at the top of its worktree, but cannot below it (a
 * directory the agent makes has nothing to bind read-only over), so the merge asks. At the top
 * such a file comes only from `[sandbox] allow_write` or an unsandboxed agent: named, not refused.
 */
const refuseNestedProtected = (request: MergeRequest, protectedFiles: readonly string[]): void => {
  const nested = protectedFiles.filter((file) => !isProtectedAtTop(file));
  if (nested.length === 0 || request.options.allowProtected === true) return;
  const branch = branchName(request.runId, request.agent);
  refuse(
    `${request.agent}'s result adds or changes ${listSome(nested)}: files your editor, shell, git or AI tools run or load (tasks, MCP servers, commands, submodules, rc files), below the repository's top where the sandbox cannot protect them.`,
    `Nothing was changed. Review them (\`git diff ${request.baseRef} ${branch} -- ${nested.join(' ')}\`); drop them (a follow-up: \`hydra continue\`, or \`--only\` the other files) or, if you trust them, merge with \`hydra merge ${request.runId} ${request.agent} --allow-protected\`.`,
    nested,
  );
};

/**
 * Merges under the repository's merge lock: two merges (of one run or two, from the CLI or a
 * dashboard) never write the checkout, index and branch at once.
 */
export async function mergeAgentBranch(request: MergeRequest): Promise<MergeResult> {
  const lock = await lockMerge(
    request.root,
    request.command ?? `hydra: merge of ${request.agent} (run ${request.runId})`,
  );
  try {
    return await mergeLocked(request);
  } finally {
    lock.release();
  }
}

async function mergeLocked(request: MergeRequest): Promise<MergeResult> {
  const { root } = request;
  const baseBranch = request.baseBranch ?? refuseDetached(request);
  if (!versionAtLeast(await gitVersion(), 2, 38)) {
    refuse(
      'Merging needs git 2.38 or newer (for its conflict dry run).',
      `Upgrade git, or merge branch ${branchName(request.runId, request.agent)} yourself.`,
    );
  }
  const branch = branchName(request.runId, request.agent);
  if (!(await branchExists(root, branch))) {
    refuse(
      `Branch ${branch} no longer exists, so there is nothing to merge.`,
      'Was the run cleaned? Run `hydra runs` to see what is left.',
    );
  }
  await assertNothingInProgress(root);
  await assertOnBaseBranch(root, baseBranch);
  const head = await gitLine(root, ['rev-parse', 'HEAD']);
  const branchTip = await gitLine(root, ['rev-parse', `refs/heads/${branch}`]);
  const only = request.options.only === undefined ? null : checkOnlyPaths(request.options.only);
  // Some files only: a commit of just those changes, merged as one new commit.
  const tip =
    only === null
      ? branchTip
      : await onlyCommit(
          root,
          request.agent,
          await gitLine(root, ['merge-base', head, branchTip]),
          branchTip,
          only,
        );
  const squash = request.options.squash === true || only !== null;

  const finishWith = async (
    method: MergeResult['method'],
    commit: string,
    filesChanged: number,
    protectedFiles: readonly string[] = [],
  ): Promise<MergeResult> => {
    const removed = await cleanUpAfterMerge(request, only === null);
    const result: MergeResult = {
      runId: request.runId,
      agent: request.agent,
      into: baseBranch,
      method,
      commit,
      filesChanged,
      removed,
      ...(only === null ? {} : { only }),
      ...(protectedFiles.length === 0 ? {} : { protectedFiles: [...protectedFiles] }),
      ...(request.earlier === undefined || request.earlier.length === 0 ? {} : { earlier: request.earlier }),
    };
    writeMergeRecord(runRecordDir(root, request.runId), result);
    return result;
  };

  if (await isAncestor(root, tip, head)) return finishWith('nothing-to-merge', head, 0);
  const { tree, conflicts } = await dryRunMerge(root, head, tip);
  if (conflicts.length > 0) {
    refuse(
      `Merging ${request.agent}'s result into ${baseBranch} would conflict in ${listSome(conflicts)}.`,
      `Nothing was changed. Resolve it by hand: \`git merge ${branch}\`, or pick another agent.`,
      conflicts,
    );
  }
  const headTree = await gitLine(root, ['rev-parse', `${head}^{tree}`]);
  if (tree === headTree) return finishWith('nothing-to-merge', head, 0);
  // A committed copy of the user's ignored file (.env) is named as such, before it is "in the way".
  if (request.options.allowSecrets !== true)
    await refuseCopiedFiles(request, await copiedOf(request), head, tree);
  const overlap = await overlappingChanges(root, head, tree);
  if (overlap.length > 0) {
    refuse(
      `Your uncommitted changes touch files the merge would change: ${listSome(overlap)}.`,
      'Nothing was changed. Commit or stash those changes (or move the files away), then merge again.',
      overlap,
    );
  }

  await refuseSecrets(request, head, tip, tree, squash);

  const changes = await treeChanges(root, head, tree);
  // Files that run code in the user's tools (an editor's tasks, an MCP server, a shell's rc): named.
  const protectedFiles = changes
    .filter((change) => change.status !== 'D' && isProtectedPath(change.path))
    .map((change) => change.path);
  refuseNestedProtected(request, protectedFiles);
  await assertRoomFor(root, changes);
  const restorePlan = await planRestore(root, head, `refs/heads/${baseBranch}`, changes);

  // A user who signs their commits gets a signed merge commit on their branch, never a fast-forward
  // to hydra's own result commits (those are hydra's, made unattended, and unsigned).
  const sign = await wantsSignedCommits(root);
  const fastForward = !squash && !sign && (await isAncestor(root, head, tip));
  const target = fastForward
    ? tip
    : await commitTree(root, tree, squash ? [head] : [head, tip], commitMessage(request, squash, only), sign);
  const touched = splitZ(
    (await runGit(root, ['diff', '--name-only', '-z', '--no-renames', head, target])).stdout,
  );

  const method: MergeResult['method'] = fastForward ? 'fast-forward' : squash ? 'squash' : 'merge-commit';
  // From here on the user's tree and branch change: no signal cuts it off, and git is not killed
  // with hydra's other processes (only its time limit stops it, and then the tree is restored).
  return withSignalsHeld(async () => {
    await runGit(root, ['update-index', '-q', '--refresh'], { okExitCodes: [1], uninterruptible: true });
    try {
      await runGit(root, ['read-tree', '-m', '-u', head, target], { uninterruptible: true });
    } catch (error) {
      await failedMidway(request, restorePlan, error, 'while updating your working tree');
    }
    await noteWritten(root, restorePlan);
    try {
      await runGit(
        root,
        [
          'update-ref',
          '-m',
          `hydra: ${method} of run ${request.runId} (${request.agent})`,
          `refs/heads/${baseBranch}`,
          target,
          head,
        ],
        { uninterruptible: true },
      );
    } catch (error) {
      // The branch moved under us, or its ref could not be written: put the working tree back.
      await failedMidway(request, restorePlan, error, `while moving branch ${baseBranch}`);
    }
    return finishWith(method, target, touched.length, protectedFiles);
  });
}
