/**
 * Merging one agent's result into the branch the race started from, without ever losing the
 * user's work. Everything is checked before anything changes: the user is on that branch, no merge
 * or rebase is in progress, `git merge-tree --write-tree` reports no conflict, and no uncommitted
 * change (staged, unstaged, untracked, or an ignored file in the way) touches a file the merge
 * writes. The switch itself is `git read-tree -m -u` (the same two-tree move `git checkout` makes,
 * which carries every other uncommitted change over untouched) followed by a compare-and-swap
 * `update-ref` of the branch. Fast-forward when the branch has not moved, otherwise a merge commit,
 * or one squashed commit when asked.
 */
import { lstat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { getAdapter } from '../../adapters/registry.js';
import type { AgentName, MergeOptions, MergeResult } from '../types.js';
import { EngineError, listSome } from '../errors.js';
import {
  HYDRA_IDENTITY,
  GitCommandError,
  commitSubject,
  gitLine,
  gitVersion,
  runGit,
  splitZ,
  versionAtLeast,
} from '../git/index.js';
import { branchName, defaultWorktreeRoot, runRecordDir } from '../records/index.js';
import { loadRun, trackedRunIds, writeMergeRecord } from '../records/index.js';
import { checkRecordedWorktree, listWorktrees, runArea } from './run-targets.js';
import { dirtyPaths, findRepoRoot } from '../git/index.js';
import { branchExists, deleteBranches, removeWorktrees } from '../git/index.js';
import { checkOnlyPaths, onlyCommit } from './partial-merge.js';
import { lockMerge, lockRun } from '../locks/index.js';
import {
  assertRoomFor,
  changedSince,
  noteWritten,
  planRestore,
  restoreTree,
  treeChanges,
  withSignalsHeld,
} from './tree-guard.js';
import type { RestorePlan } from './tree-guard.js';
import { commitsBrought, secretsInDiff } from './secret-scan.js';
import type { SecretFound } from '../types.js';

export interface MergeRequest {
  root: string;
  runId: string;
  agent: AgentName;
  prompt: string;
  /** The branch the race started from; null when it started on a detached HEAD (then refused). */
  baseBranch: string | null;
  /** The commit the race started from. */
  baseRef: string;
  /**
   * Every worktree and branch of the run, removed after the merge with `discardOthers`. Only
   * hydra's own: the race's, or those of a record that passed checkRecordedWorktree.
   */
  worktrees: string[];
  branches: string[];
  /** The merged agent's own worktree among `worktrees` (null when gone or not hydra's). */
  agentWorktree: string | null;
  /** The run's merges before this one, kept in its record. */
  earlier?: MergeResult[];
  options: MergeOptions;
  /** What merges, as the user would name it, for anyone who finds the merge lock taken. */
  command?: string;
}

function refuse(message: string, hint: string, files: string[] = []): never {
  throw new EngineError('Refused', message, hint, { files });
}

const IN_PROGRESS: Array<[string, string]> = [
  ['MERGE_HEAD', 'a merge'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
  ['rebase-merge', 'a rebase'],
  ['rebase-apply', 'a rebase or am'],
];

async function assertNothingInProgress(root: string): Promise<void> {
  for (const [name, what] of IN_PROGRESS) {
    const file = path.resolve(root, await gitLine(root, ['rev-parse', '--git-path', name]));
    if (existsSync(file)) {
      refuse(
        `${what[0]!.toUpperCase()}${what.slice(1)} is in progress in ${root}.`,
        `Finish or abort it first (e.g. \`git ${what.includes('rebase') ? 'rebase' : what.split(' ')[1]} --abort\`), then merge again.`,
      );
    }
  }
  const lock = path.resolve(root, await gitLine(root, ['rev-parse', '--git-path', 'index.lock']));
  if (existsSync(lock)) {
    refuse(
      `The index is locked: ${lock} exists.`,
      'Nothing was changed. Another git process is using the repository, or one crashed: if no git command is running, remove that file, then merge again.',
    );
  }
  const unmerged = await gitLine(root, ['ls-files', '--unmerged']);
  if (unmerged !== '')
    refuse(
      'The index has unresolved conflicts.',
      'Resolve them (`git status` lists them) and commit, then merge again.',
    );
}

async function assertOnBaseBranch(root: string, baseBranch: string): Promise<void> {
  const current = await runGit(root, ['symbolic-ref', '-q', '--short', 'HEAD'], { okExitCodes: [1, 128] });
  if (current.exitCode !== 0) {
    refuse(
      `HEAD is detached, but the race started from branch ${baseBranch}.`,
      `Run \`git switch ${baseBranch}\`, then merge again.`,
    );
  }
  const branch = current.stdout.trim();
  if (branch !== baseBranch) {
    refuse(
      `You are on branch ${branch}, but the race started from ${baseBranch}.`,
      `Run \`git switch ${baseBranch}\` (or merge the result yourself), then merge again.`,
    );
  }
}

const isAncestor = async (root: string, ancestor: string, descendant: string): Promise<boolean> =>
  (await runGit(root, ['merge-base', '--is-ancestor', ancestor, descendant], { okExitCodes: [1] }))
    .exitCode === 0;

/** The merged tree, or the list of conflicting files. */
async function dryRunMerge(
  root: string,
  head: string,
  tip: string,
): Promise<{ tree: string; conflicts: string[] }> {
  const result = await runGit(
    root,
    ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', head, tip],
    { okExitCodes: [1] },
  );
  const [tree = '', ...files] = splitZ(result.stdout);
  return { tree, conflicts: result.exitCode === 1 ? [...new Set(files)] : [] };
}

/** Uncommitted changes, or files in the way, that the merge would overwrite. */
async function overlappingChanges(root: string, head: string, tree: string): Promise<string[]> {
  const { stdout } = await runGit(root, ['diff', '--name-status', '-z', '--no-renames', head, tree]);
  const parts = splitZ(stdout);
  const touched: Array<{ status: string; file: string }> = [];
  for (let i = 0; i + 1 < parts.length; i += 2) touched.push({ status: parts[i]!, file: parts[i + 1]! });
  const dirty = new Set(await dirtyPaths(root));
  const overlap: string[] = [];
  for (const { status, file } of touched) {
    if (dirty.has(file)) {
      overlap.push(file);
      continue;
    }
    // An added file that already exists on disk is an untracked or ignored file in the way.
    if (status === 'A') {
      const exists = await lstat(path.join(root, file)).then(
        () => true,
        () => false,
      );
      if (exists) overlap.push(file);
    }
  }
  return overlap;
}

const secretList = (found: readonly SecretFound[]): string =>
  listSome([...new Set(found.map((item) => `${item.label} in ${item.file}`))]);

/**
 * Refuses a merge that would bring a secret (a private key, an API token: records/redact.ts's
 * shapes) into the user's history: with a squash, what the net diff adds; otherwise what every
 * commit the merge brings adds, so a key committed and deleted later is found too. Nothing has
 * changed yet; the message names each commit and file, the hint how to go on.
 */
async function refuseSecrets(
  request: MergeRequest,
  head: string,
  tip: string,
  tree: string,
  squash: boolean,
): Promise<void> {
  if (request.options.allowSecrets === true) return;
  const merge = `hydra merge ${request.runId} ${request.agent}`;
  const net = await secretsInDiff(request.root, head, tree);
  if (net.length > 0)
    refuse(
      `${request.agent}'s result adds what looks like a secret: ${secretList(net)}.`,
      `Nothing was changed. Look at it (\`git show ${branchName(request.runId, request.agent)}\`); remove it from the result (a follow-up: \`hydra continue\`) or, if it is no secret, merge with \`${merge} --allow-secrets\`.`,
      [...new Set(net.map((item) => item.file))],
    );
  if (squash) return;
  const leaking = (await commitsBrought(request.root, head, tip)).filter((item) => item.secrets.length > 0);
  if (leaking.length === 0) return;
  const named = leaking.map(
    (item) =>
      `${item.commit.slice(0, 12)} ("${commitSubject(item.subject)}") adds ${secretList(item.secrets)}`,
  );
  refuse(
    `Merging ${request.agent}'s result would put a secret into your history, although its final files no longer hold it: commit ${named.join('; commit ')}.`,
    `Nothing was changed. \`${merge} --squash\` brings only the net change (one new commit, without that history); or, if it is no secret, \`${merge} --allow-secrets\`.`,
    [...new Set(leaking.flatMap((item) => item.secrets.map((secret) => secret.file)))],
  );
}

const commitMessage = (request: MergeRequest, squash: boolean, only: readonly string[] | null): string => {
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
async function wantsSignedCommits(root: string): Promise<boolean> {
  const result = await runGit(root, ['config', '--type=bool', '--get', 'commit.gpgsign'], {
    okExitCodes: [1],
  }).catch(() => null);
  return result?.stdout.trim() === 'true';
}

/** Creates a commit with the user's identity, or hydra's when the user has none configured. */
async function commitTree(
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
async function cleanUpAfterMerge(request: MergeRequest, whole: boolean): Promise<string[]> {
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
async function failedMidway(
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
    throw new EngineError(
      kind,
      `Merging ${request.agent}'s result failed ${when}: ${detail}. Meanwhile the checkout changed: ${changed.join('; ')}.`,
      `hydra wrote nothing back, so that newer work is not overwritten. ${plan.written === null ? 'The merge may have written some of' : "The merge's checkout had written"} ${listSome(files)} (from ${plan.head.slice(0, 12)} towards ${request.agent}'s result); its branch was not moved. See \`git status\` and \`git log -1\`; \`git checkout HEAD -- <file>\` takes a file back to what HEAD has (losing its changes), \`git merge ${branchName(request.runId, request.agent)}\` merges the result by hand.${gitHint}`,
      { cause: error, files },
    );
  }
  const left = await restoreTree(request.root, plan);
  if (left.length === 0) {
    throw new EngineError(
      kind,
      `Merging ${request.agent}'s result failed ${when}: ${detail}`,
      `Your working tree and index were put back exactly as they were; nothing was merged.${gitHint}`,
      { cause: error },
    );
  }
  throw new EngineError(
    kind,
    `Merging ${request.agent}'s result failed ${when}, and ${listSome(left)} could not be put back: ${detail}`,
    `Nothing was merged. Put those files back with \`git reset -q HEAD -- <file>\` and \`git checkout HEAD -- <file>\` (or delete the ones HEAD does not have).${gitHint}`,
    { cause: error, files: left },
  );
}

/** The refusal of a merge into a detached HEAD, with the command that gives the commit a branch. */
const refuseDetached = (request: MergeRequest): never =>
  refuse(
    `Run ${request.runId} started on a detached HEAD (${request.baseRef.slice(0, 12)}), so there is no branch to merge ${request.agent}'s result into.`,
    `Create a branch at that commit and merge into it: \`git switch -c <new-branch> ${request.baseRef.slice(0, 12)}\`, then \`git merge ${branchName(request.runId, request.agent)}\` (or merge that branch into any branch you like).`,
  );

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
    return finishWith(method, target, touched.length);
  });
}

/**
 * The agent a word names in a run: an agent's name (any case), else the agent named after the
 * adapter the word is an alias of (`Claude` for `claude`); else the word, which names none.
 */
const agentInRun = (agents: ReadonlyArray<{ agent: AgentName }>, word: string): AgentName => {
  const name = word.trim().toLowerCase();
  if (agents.some((entry) => entry.agent === name)) return name;
  const adapter = getAdapter(name)?.id;
  return adapter !== undefined && agents.some((entry) => entry.agent === adapter) ? adapter : word;
};

/**
 * Merges an agent of a finished run (the `hydra merge <run-id> <agent>` path), holding the run's
 * lock: a `hydra continue`, `hydra rerun`, dashboard or `hydra clean` working on the run makes it
 * wait, then refuse, naming that command.
 */
export async function mergeRun(
  repoPath: string,
  runId: string,
  agentWord: string,
  options: MergeOptions = {},
  where: { worktreeRoot?: string } = {},
): Promise<MergeResult> {
  const root = await findRepoRoot(path.resolve(repoPath));
  if (root === null)
    refuse(
      `${path.resolve(repoPath)} is not inside a git repository.`,
      'Run `hydra merge` inside the repository the race ran in.',
    );
  const command = `hydra merge ${runId} ${agentWord}`;
  const lock = await lockRun(root, runId, command, { what: 'nothing of it is merged now' });
  try {
    return await mergeRecorded(root, runId, agentWord, options, where, command);
  } finally {
    lock.release();
  }
}

async function mergeRecorded(
  root: string,
  runId: string,
  agentWord: string,
  options: MergeOptions,
  where: { worktreeRoot?: string },
  command: string,
): Promise<MergeResult> {
  const loaded = loadRun(root, runId, await trackedRunIds(root), false);
  if (loaded.kind === 'foreign')
    refuse(`Run ${runId} is not hydra's: ${loaded.problem}.`, 'Merge its branch yourself if you trust it.');
  if (loaded.kind === 'damaged') {
    refuse(
      loaded.problem === 'the record directory is gone'
        ? `No run ${runId} in this repository.`
        : `The record of run ${runId} is damaged: ${loaded.problem}.`,
      loaded.problem === 'the record directory is gone'
        ? 'Run `hydra runs` to list the recorded runs.'
        : `Nothing was changed. Merge branch ${branchName(runId, agentWord)} yourself if it exists, or run \`hydra clean\` to remove the run.`,
    );
  }
  const { record } = loaded;
  // A merge keeps the choice open: another result (or more files of one) may be merged after it.
  const earlier =
    record.merge === null ? [] : [...(record.merge.earlier ?? []), { ...record.merge, earlier: undefined }];
  const agent = agentInRun(record.meta.agents, agentWord);
  const planned = record.meta.agents.find((entry) => entry.agent === agent);
  if (planned === undefined) {
    refuse(
      `Agent ${agent} did not take part in run ${runId}.`,
      `Pick one of: ${record.meta.agents.map((entry) => entry.agent).join(', ')}.`,
    );
  }
  const summary = record.summary?.agents.find((entry) => entry.agent === agent);
  if (summary === undefined) {
    refuse(
      `Run ${runId} did not finish, so ${agent}'s result is not known.`,
      'Only completed agents can be merged; run `hydra clean` to remove the run.',
    );
  }
  if (summary.status !== 'completed') {
    refuse(
      `${agent} did not complete in run ${runId} (status: ${summary.status})${summary.error === undefined ? '.' : `: ${summary.error.message}`}`,
      'Only a completed agent can be merged; pick another one.',
    );
  }
  // The record's paths are data: only hydra's own worktrees of this run are removed afterwards.
  const area = runArea(where.worktreeRoot ?? defaultWorktreeRoot(), root, runId);
  const worktrees = await listWorktrees(root);
  const ours = (dir: string): boolean => checkRecordedWorktree(dir, area, worktrees).ok === true;
  return mergeAgentBranch({
    root: root,
    runId,
    agent,
    prompt: record.meta.prompt,
    baseBranch: record.meta.baseBranch,
    baseRef: record.meta.baseRef,
    worktrees: record.meta.agents.map((entry) => entry.worktree).filter(ours),
    branches: record.meta.agents.map((entry) => branchName(runId, entry.agent)),
    agentWorktree: ours(planned.worktree) ? planned.worktree : null,
    earlier,
    options,
    command,
  });
}
