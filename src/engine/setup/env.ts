/**
 * Who a process of a race is, in its environment: every agent, its setup commands and its checks
 * (and the baseline's) get the same few variables, so a project's scripts can tell the agents
 * apart and start their dev servers at once (docs/setup-ports.md).
 */

/** `HYDRA_AGENT` of the baseline's setup and checks (and of cross-testing on the base). */
export const BASELINE_AGENT = 'baseline';

export interface WorktreeIdentity {
  runId: string;
  /** The agent's name, or BASELINE_AGENT. */
  agent: string;
  /** The absolute path of the tree the process runs in (its worktree, or its checks' checkout). */
  worktree: string;
  /** The first port of its block (setup/ports.ts), or null when it has none. */
  port: number | null;
}

/** `HYDRA_RUN_ID`, `HYDRA_AGENT`, `HYDRA_WORKTREE`, and with a port `HYDRA_PORT` and `PORT`. */
export const worktreeEnv = (identity: WorktreeIdentity): Record<string, string> => ({
  HYDRA_RUN_ID: identity.runId,
  HYDRA_AGENT: identity.agent,
  HYDRA_WORKTREE: identity.worktree,
  ...(identity.port === null ? {} : { HYDRA_PORT: String(identity.port), PORT: String(identity.port) }),
});
