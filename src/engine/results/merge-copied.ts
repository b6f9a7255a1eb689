/**
 * The merge's refusal of a result that commits a file hydra copied from the user's checkout into
 * its worktree (setup/copy.ts: a `.env`, a local config; git ignores it in the checkout, so only an
 * agent's `git add -f` commits it). The run's copied.json names the files; their secret values are
 * read again from the checkout for the secret scan (secret-scan.ts).
 */
import type { BroughtCommit } from '../git/index.js';
import { EngineError, listSome } from '../errors.js';
import { commitSubject, runGit, splitZ } from '../git/index.js';
import { branchName, runRecordDir } from '../records/index.js';
import { copiedForMerge } from '../setup/index.js';
import type { CopiedSecrets } from '../setup/index.js';

/** What of a merge request (merge-checks.ts, which imports this file) the refusals name. */
interface MergeRequest {
  root: string;
  runId: string;
  agent: string;
}

/** merge-checks.ts's refusal (not imported from there: it imports this file). */
const refuse = (message: string, hint: string, files: string[] = []): never => {
  throw new EngineError({ kind: 'Refused', message, hint, files });
};

const NOTHING_COPIED: CopiedSecrets = { paths: [], values: [], hashes: new Map() };

/** What the run copied, or nothing; a damaged record is refused (it could hide a copied file). */
export async function copiedOf(request: MergeRequest): Promise<CopiedSecrets> {
  const found = await copiedForMerge(request.root, runRecordDir(request.root, request.runId));
  if (found === null) return NOTHING_COPIED;
  if ('problem' in found)
    return refuse(
      `The record of what run ${request.runId} copied into its worktrees is damaged: ${found.problem}.`,
      `Nothing was changed. Check that ${request.agent}'s result (\`git show ${branchName(request.runId, request.agent)}\`) holds none of your git-ignored files (.env) nor their values, then merge with \`hydra merge ${request.runId} ${request.agent} --allow-secrets\`.`,
    );
  return found;
}

const copiedHint = (request: MergeRequest, files: readonly string[]): string =>
  `Nothing was changed. Drop ${files.length === 1 ? 'it' : 'them'} from the branch: a follow-up (\`hydra continue ${request.runId} ${request.agent} "git rm --cached ${files.join(' ')} and commit"\`), or merge only the other files (\`hydra merge ${request.runId} ${request.agent} --only <path>...\`); to commit ${files.length === 1 ? 'it' : 'them'} on purpose, \`hydra merge ${request.runId} ${request.agent} --allow-secrets\`.`;

/** Refuses a result whose net change adds or changes a copied file. */
export async function refuseCopiedFiles(
  request: MergeRequest,
  copied: CopiedSecrets,
  head: string,
  tree: string,
): Promise<void> {
  if (copied.paths.length === 0) return;
  const paths = new Set(copied.paths);
  const { stdout } = await runGit(request.root, ['diff', '--name-only', '-z', '--no-renames', head, tree]);
  const committed = splitZ(stdout).filter((file) => paths.has(file));
  if (committed.length > 0)
    refuse(
      `${request.agent}'s result commits ${listSome(committed)}, which hydra copied from your checkout into its worktree (git ignores ${committed.length === 1 ? 'it' : 'them'} there: local files, often secrets).`,
      copiedHint(request, committed),
      committed,
    );
}

/** Refuses commits that put a copied file into the user's history, even when a later one removed it. */
export function refuseCopiedInHistory(
  request: MergeRequest,
  copied: CopiedSecrets,
  brought: readonly BroughtCommit[],
): void {
  if (copied.paths.length === 0) return;
  const paths = new Set(copied.paths);
  const leaking = brought.filter((item) => item.files.some((file) => paths.has(file)));
  if (leaking.length === 0) return;
  const files = [...new Set(leaking.flatMap((item) => item.files.filter((file) => paths.has(file))))];
  const named = leaking.map(
    (item) =>
      `${item.commit.slice(0, 12)} ("${commitSubject(item.subject)}") commits ${listSome(item.files.filter((file) => paths.has(file)))}`,
  );
  refuse(
    `Merging ${request.agent}'s result would put files hydra copied from your checkout into your history, although its final files no longer hold them: commit ${named.join('; commit ')}.`,
    `Nothing was changed. \`hydra merge ${request.runId} ${request.agent} --squash\` brings only the net change (one new commit, without that history); or, to keep it on purpose, \`hydra merge ${request.runId} ${request.agent} --allow-secrets\`.`,
    files,
  );
}
