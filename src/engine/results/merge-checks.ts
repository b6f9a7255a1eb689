/**
 * What a merge is asked (MergeRequest) and every check made before it changes anything: nothing in
 * progress, the user on the race's branch, no conflict (`git merge-tree`), no uncommitted change in
 * the way, no secret brought into the user's history. Each refusal says nothing was changed.
 */
import { lstat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AgentName } from '../agent-name.js';
import type { MergeResult } from '../records/index.js';
import type { SecretFound } from '../git/index.js';
import { EngineError, listSome } from '../errors.js';
import { commitSubject, dirtyPaths, gitLine, runGit, splitZ } from '../git/index.js';
import { branchName } from '../records/index.js';
import { commitsBrought, secretsInDiff } from './secret-scan.js';
import { copiedOf, refuseCopiedInHistory } from './merge-copied.js';

/** What the user asks of a merge (`hydra merge`, the dashboard): how, and what may stay or go. */
export interface MergeOptions {
  squash?: boolean;
  /** Keep every worktree and branch of the race, the merged agent's too. */
  keepWorktrees?: boolean;
  /**
   * Also remove the other agents' worktrees and branches (hydra's behaviour before a merge kept
   * the choice open). By default only the merged agent's worktree (and, after a whole merge, its
   * branch) go; the other results stay until `hydra clean`.
   */
  discardOthers?: boolean;
  /**
   * Merge only these paths (files or folders, relative to the repository root) of the agent's
   * result, as one new commit on the user's branch; the agent's branch stays.
   */
  only?: string[];
  /**
   * Merge although the result (or a commit it brings into history) adds what looks like a secret:
   * `--allow-secrets`, for a test fixture or a public key that only looks like one.
   */
  allowSecrets?: boolean;
  /**
   * Merge although the result adds or changes a protected file below the repository's top
   * (`pkg/.vscode/tasks.json`), which the sandbox cannot keep an agent from writing:
   * `--allow-protected`, once the files are reviewed.
   */
  allowProtected?: boolean;
}

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

export function refuse(message: string, hint: string, files: string[] = []): never {
  throw new EngineError({ kind: 'Refused', message, hint, files });
}

const IN_PROGRESS: Array<[string, string]> = [
  ['MERGE_HEAD', 'a merge'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
  ['rebase-merge', 'a rebase'],
  ['rebase-apply', 'a rebase or am'],
];

export async function assertNothingInProgress(root: string): Promise<void> {
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

export async function assertOnBaseBranch(root: string, baseBranch: string): Promise<void> {
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

export const isAncestor = async (root: string, ancestor: string, descendant: string): Promise<boolean> =>
  (await runGit(root, ['merge-base', '--is-ancestor', ancestor, descendant], { okExitCodes: [1] }))
    .exitCode === 0;

/** The merged tree, or the list of conflicting files. */
export async function dryRunMerge(
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
export async function overlappingChanges(root: string, head: string, tree: string): Promise<string[]> {
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
export async function refuseSecrets(
  request: MergeRequest,
  head: string,
  tip: string,
  tree: string,
  squash: boolean,
): Promise<void> {
  if (request.options.allowSecrets === true) return;
  const merge = `hydra merge ${request.runId} ${request.agent}`;
  // Files copied from the user's checkout (setup/copy.ts): never committed, their values secrets.
  const copied = await copiedOf(request);
  const net = await secretsInDiff(request.root, head, tree, copied);
  if (net.length > 0)
    refuse(
      `${request.agent}'s result adds what looks like a secret: ${secretList(net)}.`,
      `Nothing was changed. Look at it (\`git show ${branchName(request.runId, request.agent)}\`); remove it from the result (a follow-up: \`hydra continue\`) or, if it is no secret, merge with \`${merge} --allow-secrets\`.`,
      [...new Set(net.map((item) => item.file))],
    );
  if (squash) return;
  const brought = await commitsBrought(request.root, head, tip, copied);
  refuseCopiedInHistory(request, copied, brought);
  const leaking = brought.filter((item) => item.secrets.length > 0);
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

/** The refusal of a merge into a detached HEAD, with the command that gives the commit a branch. */
export const refuseDetached = (request: MergeRequest): never =>
  refuse(
    `Run ${request.runId} started on a detached HEAD (${request.baseRef.slice(0, 12)}), so there is no branch to merge ${request.agent}'s result into.`,
    `Create a branch at that commit and merge into it: \`git switch -c <new-branch> ${request.baseRef.slice(0, 12)}\`, then \`git merge ${branchName(request.runId, request.agent)}\` (or merge that branch into any branch you like).`,
  );
