/**
 * `hydra open` and the dashboard's shell: an agent's worktree, made again from its branch when the
 * race removed it. Its path is hydra's own (the run's directory under the worktree root), never one
 * a record names, so `hydra clean` removes it like any other.
 */
import { existsSync } from 'node:fs';
import { EngineError } from '../errors.js';
import { listWorktrees } from './run-targets.js';
import { reopenWorktree, runGit } from '../git/index.js';
import {
  agentWorktreeDir,
  branchName,
  defaultWorktreeRoot,
  readRun,
  runWorktreesDir,
} from '../records/index.js';

/** The worktree of `agent` in run `runId`: where it is, or made again from its branch. */
export async function openWorktree(
  root: string,
  runId: string,
  agent: string,
  worktreeRoot: string = defaultWorktreeRoot(),
): Promise<string> {
  const record = await readRun(root, runId);
  if (!record.meta.agents.some((item) => item.agent === agent)) {
    throw new EngineError(
      'Refused',
      `Run ${runId} has no agent ${agent}; its agents: ${record.meta.agents.map((item) => item.agent).join(', ')}.`,
      `See the run with: hydra show ${runId}`,
    );
  }
  const branch = branchName(runId, agent);
  const dir = agentWorktreeDir(runWorktreesDir(worktreeRoot, root, runId), agent);
  // Git's own list says where the branch is checked out (hydra's directory, or one the user moved).
  const holder = (await listWorktrees(root)).find((entry) => entry.branch === branch);
  if (holder !== undefined && existsSync(holder.path)) return holder.path;
  if (holder !== undefined) await runGit(root, ['worktree', 'prune']);
  await reopenWorktree(root, dir, branch);
  return dir;
}
