/**
 * Merging an agent of a finished run from its record (`hydra merge <run-id> <agent>`): the run's
 * lock held, the record read and checked, the agent named as the user wrote it, only hydra's own
 * worktrees of the run removed afterwards.
 */
import path from 'node:path';
import { getAdapter } from '../../adapters/registry.js';
import type { AgentName } from '../agent-name.js';
import type { MergeResult } from '../records/index.js';
import { findRepoRoot } from '../git/index.js';
import { branchName, defaultWorktreeRoot, loadRun, trackedRunIds } from '../records/index.js';
import { lockRun } from '../locks/index.js';
import { mergeAgentBranch } from './merge.js';
import { refuse } from './merge-checks.js';
import type { MergeOptions } from './merge-checks.js';
import { checkRecordedWorktree, listWorktrees, runArea } from './run-targets.js';

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
