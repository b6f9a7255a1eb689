/**
 * Where the judge runs (issue 35): in the OS sandbox wherever the race's agents would be, writing
 * its scratch directory only (its CLI's read-only mode is the CLI's word; the jail is hydra's), and
 * with a fresh copy of the user's CLI state in that directory, never an agent's copy nor the
 * user's own directory: what an agent planted in its state (a SessionStart hook, an MCP server)
 * never runs in the judge, and the judge changes nothing the user's next run reads.
 */
import os from 'node:os';
import path from 'node:path';
import type { AgentAdapter } from '../../adapters/types.js';
import type { AgentPlan } from '../agent-plan.js';
import {
  agentPolicy,
  cliStatePlan,
  configuredEndpoints,
  ensureCliState,
  sandboxVerdict,
} from '../sandbox/index.js';
import type { SandboxPolicy, SandboxSettings } from '../sandbox/index.js';

export interface JudgeJail {
  /** The judge's sandbox, or null where the race's agents run unsandboxed. */
  sandbox: SandboxPolicy | null;
  /** Its state copy's variables, over its command's environment. */
  env: Record<string, string>;
}

/** Makes the judge's fresh state copy in `scratchDir` and its policy (it may write nothing else). */
export async function judgeJail(
  adapter: AgentAdapter,
  plan: AgentPlan,
  scratchDir: string,
  settings: SandboxSettings | undefined,
): Promise<JudgeJail> {
  const userEnv = { ...process.env, ...plan.env };
  const home = userEnv.HOME !== undefined && userEnv.HOME !== '' ? userEnv.HOME : os.homedir();
  const state = cliStatePlan(adapter, userEnv, home, path.join(scratchDir, 'state'));
  if (state !== null) ensureCliState(state);
  const env = state?.env ?? {};
  // Unsandboxed where the race's agents are (mode off, or auto on a machine without it: said already).
  const verdict = await sandboxVerdict(settings);
  if (!verdict.sandboxed) return { sandbox: null, env };
  const policy = agentPolicy({
    mechanism: verdict.mechanism,
    adapter,
    env: { ...userEnv, ...env },
    worktree: scratchDir,
    scratchDir,
    privateGitDir: scratchDir,
    tmpDir: path.join(scratchDir, 'tmp'),
    settings: { ...(settings ?? { mode: 'auto', allowHosts: [] }), allowWrite: [] },
    // No extra_args for a judge: only its CLI's own configuration.
    endpoints: configuredEndpoints(adapter, userEnv, home, []),
  });
  // Read-only: its own scratch directory (prompt, answer, state copy, temp) and nothing else.
  return { sandbox: { ...policy, allowWrite: [scratchDir] }, env };
}
