/**
 * The agent's finalize step: its work taken from its worktree and committed on its own branch,
 * the user's refs put back, and the result diffed against the base. The agent machine runs it as
 * its `finalizeResult` actor once the process has exited; `hydra`'s shell (race-run.ts) runs it
 * after the user's shell in a worktree.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ErrorInfo } from '../../core/events.js';
import { EngineError } from '../errors.js';
import {
  bringBackPrivateGit,
  commitAgentResult,
  detachFromForeignBranch,
  diffSummary,
  pinWorktree,
  restoreUserRefs,
  snapshotTips,
  stageChanges,
} from '../git/index.js';
import type { PinnedWorktree, WorktreeHead } from '../git/index.js';
import { runRecordDir } from '../records/index.js';
import { trace } from '../../trace.js';
import { asClause } from '../../core/text.js';

import type { FinalizeInput, FinalizeOutput } from './agent-types.js';

/**
 * Takes the agent's work: checks that its worktree is still linked to the repository (else the
 * agent fails and nothing is committed anywhere), stages its changes while it looks where HEAD is
 * and lets go of any branch the agent switched to, then puts back whatever the agent changed in
 * the user's refs and stash while it commits the result on the agent's own branch (the two touch
 * different refs), and diffs it against the base.
 */
export async function finalizeWork(input: FinalizeInput): Promise<FinalizeOutput> {
  trace(`agent ${input.agent}: finalizing`);
  let pinned: PinnedWorktree | null = null;
  let failure: ErrorInfo | undefined;
  let head: WorktreeHead | undefined;
  let staged: Promise<void> | undefined;
  // The commits the agent made in its own repository, taken back first (private-git.ts).
  const back = await bringBackPrivateGit({
    root: input.repoRoot,
    worktree: input.worktree,
    branch: input.branch,
  });
  const taken = back?.warnings ?? [];
  try {
    pinned = await pinWorktree(input.repoRoot, input.worktree);
    // A failed staging is the commit's failure, reported once the user's refs are put back.
    staged = stageChanges(pinned);
    staged.catch(() => undefined);
    head = back?.head ?? (await detachFromForeignBranch(pinned, input.branch, staged));
  } catch (error) {
    await staged?.catch(() => undefined);
    if (!(error instanceof EngineError)) throw error;
    failure = error.toInfo();
  }
  const restored =
    input.refsAtStart === undefined
      ? Promise.resolve([])
      : restoreUserRefs({
          root: input.repoRoot,
          snapshot: input.refsAtStart,
          agent: input.agent,
          runDir: path.dirname(input.worktree),
          isRun: (runId) => existsSync(runRecordDir(input.repoRoot, runId)),
        });
  if (pinned === null) {
    const warnings = [...taken, ...(await restored)];
    return { commit: null, diff: null, warnings, ...(failure ? { failure } : {}) };
  }
  const commitOptions = {
    ...(head === undefined ? {} : { head }),
    ...(staged === undefined ? {} : { staged }),
    tipsAtStart: input.refsAtStart === undefined ? [] : snapshotTips(input.refsAtStart),
    diffBase: input.baseRef,
  };
  const committed = commitAgentResult(pinned, input.branch, input.message, commitOptions);
  // Both run to their end before either's failure is reported (nothing is left running behind).
  const [restoredOutcome, firstCommit] = await Promise.allSettled([restored, committed]);
  if (restoredOutcome.status === 'rejected') throw restoredOutcome.reason;
  // The restore may have repaired what the commit failed on (a damaged packed-refs): once more.
  const committedOutcome =
    firstCommit.status === 'rejected' && restoredOutcome.value.length > 0
      ? (await Promise.allSettled([commitAgentResult(pinned, input.branch, input.message, commitOptions)]))[0]
      : firstCommit;
  if (committedOutcome.status === 'rejected') {
    if (restoredOutcome.value.length === 0) throw committedOutcome.reason;
    // Failed, with what the restore found kept beside the reason.
    const reason = committedOutcome.reason as unknown;
    const why = `Could not commit the agent's work: ${asClause(reason instanceof Error ? reason.message : String(reason))}.`;
    const kept = `Its files are kept in ${input.worktree} until \`hydra clean\` or \`hydra merge\`.`;
    return {
      commit: null,
      diff: null,
      warnings: [...taken, ...restoredOutcome.value, `${why} ${kept}`],
      failure: { kind: 'AgentFailed', message: why, hint: kept },
    };
  }
  const result = committedOutcome.value;
  const diff = result.diff ?? (await diffSummary(input.repoRoot, input.baseRef, result.commit));
  trace(`agent ${input.agent}: finalized`);
  return {
    commit: result.commit,
    diff,
    warnings: [...taken, ...result.warnings, ...restoredOutcome.value],
  };
}
