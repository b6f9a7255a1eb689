/**
 * `hydra open` and the dashboard's shell: an agent's worktree, made again from its branch when the
 * race removed it. Its path is hydra's own (the run's directory under the worktree root), never one
 * a record names, so `hydra clean` removes it like any other.
 */
import { existsSync } from 'node:fs';
import { EngineError } from '../errors.js';
import { lockRun } from '../locks/index.js';
import { listWorktrees } from './run-targets.js';
import { reopenWorktree, runGit } from '../git/index.js';
import { copyIncludedFiles } from '../setup/index.js';
import {
  agentWorktreeDir,
  branchName,
  defaultWorktreeRoot,
  readRun,
  runWorktreesDir,
} from '../records/index.js';

export interface OpenOptions {
  worktreeRoot?: string;
  /** Making it again takes the run's lock under this name (`hydra open`, outside any race). */
  lockAs?: string;
  /** `[setup] copy` of the config that applies, beside `.worktreeinclude` (setup/copy.ts). */
  copy?: readonly string[];
}

/**
 * The worktree of `agent` in run `runId`: where it is, or made again from its branch, with the
 * ignored files every tree hydra makes gets (`.worktreeinclude`, `[setup] copy`). With `lockAs`,
 * making it again takes the run's lock, so it never races a `hydra continue` or a merge of that
 * run; the dashboard's shell already holds it.
 */
export async function openWorktree(
  root: string,
  runId: string,
  agent: string,
  options: OpenOptions = {},
): Promise<string> {
  const { worktreeRoot = defaultWorktreeRoot(), lockAs, copy = [] } = options;
  const first = await locate(root, runId, agent, worktreeRoot, copy);
  if (first.found !== null) return first.found;
  if (lockAs === undefined) return first.make();
  const lock = await lockRun(root, runId, lockAs, { what: `${agent}'s worktree cannot be made again now` });
  try {
    // Looked up again under the lock: the command that held it may have made the worktree.
    const again = await locate(root, runId, agent, worktreeRoot, copy);
    return again.found ?? (await again.make());
  } finally {
    lock.release();
  }
}

/** Where the agent's worktree is (null: gone), and how to make it again from its branch. */
async function locate(
  root: string,
  runId: string,
  agent: string,
  worktreeRoot: string,
  copy: readonly string[],
): Promise<{ found: string | null; make: () => Promise<string> }> {
  const record = await readRun(root, runId);
  if (!record.meta.agents.some((item) => item.agent === agent)) {
    throw new EngineError({
      kind: 'Refused',
      message: `Run ${runId} has no agent ${agent}; its agents: ${record.meta.agents.map((item) => item.agent).join(', ')}.`,
      hint: `See the run with: hydra show ${runId}`,
    });
  }
  const branch = branchName(runId, agent);
  const dir = agentWorktreeDir(runWorktreesDir(worktreeRoot, root, runId), agent);
  // Git's own list says where the branch is checked out (hydra's directory, or one the user moved).
  const holder = (await listWorktrees(root)).find((entry) => entry.branch === branch);
  if (holder !== undefined && existsSync(holder.path))
    return { found: holder.path, make: async () => holder.path };
  return {
    found: null,
    make: async () => {
      if (holder !== undefined) await runGit(root, ['worktree', 'prune']);
      await reopenWorktree(root, dir, branch);
      await copyIncludedFiles({ checkout: root, target: dir, patterns: copy });
      return dir;
    },
  };
}
