/**
 * Where hydra puts things. Worktrees live outside the user's repository (so their test runners,
 * linters and grep never see them); run records live in `<repo>/.hydra/runs/<run-id>/`, which is
 * excluded from git through `.git/info/exclude`.
 */
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { AgentName } from '../agent-name.js';

/** Root of every hydra worktree on this machine (per user). */
export const defaultWorktreeRoot = (env: NodeJS.ProcessEnv = process.env): string => {
  if (env.HYDRA_WORKTREE_ROOT) return path.resolve(env.HYDRA_WORKTREE_ROOT);
  if (env.XDG_CACHE_HOME) return path.join(path.resolve(env.XDG_CACHE_HOME), 'hydra', 'worktrees');
  return path.join(os.homedir(), '.cache', 'hydra', 'worktrees');
};

/** `<basename>-<8 hex of sha256(repoRoot)>`: readable, and unique per repository. */
export const repoKey = (repoRoot: string): string =>
  `${path.basename(repoRoot)}-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 8)}`;

/** The directory holding one run's worktrees: `<root>/<repo-key>/<run-id>`. */
export const runWorktreesDir = (worktreeRoot: string, repoRoot: string, runId: string): string =>
  path.join(worktreeRoot, repoKey(repoRoot), runId);

/**
 * The warm worktree pool of a repository (`[race] worktree_pool`): idle worktrees, detached and on
 * no branch, kept between races. A name no run id can take (run ids never start with a dot).
 */
export const worktreePoolDir = (worktreeRoot: string, repoRoot: string): string =>
  path.join(worktreeRoot, repoKey(repoRoot), '.pool');

export const agentWorktreeDir = (runDir: string, agent: AgentName): string => path.join(runDir, agent);

/** Private scratch space per agent (prompt files, last message), outside its worktree. */
export const agentScratchDir = (runDir: string, agent: AgentName): string =>
  path.join(runDir, '.scratch', agent);

/** An agent's private git repository (its own objects and refs, the shared ones as alternates). */
export const agentPrivateGitDir = (runDir: string, agent: AgentName): string =>
  path.join(runDir, '.git-private', agent);

export const branchName = (runId: string, agent: AgentName): string => `hydra/${runId}/${agent}`;

export const RUN_ID_PATTERN = /^\d{8}-\d{6}-[0-9a-f]{4}$/;

/** Sortable, short run id: UTC time plus 4 random hex digits, e.g. `20261123-052233-a1b2`. */
export const newRunId = (now: Date = new Date()): string => {
  const pad = (value: number): string => String(value).padStart(2, '0');
  const date = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  return `${date}-${time}-${randomBytes(2).toString('hex')}`;
};

export const recordsRoot = (repoRoot: string): string => path.join(repoRoot, '.hydra', 'runs');

export const runRecordDir = (repoRoot: string, runId: string): string =>
  path.join(recordsRoot(repoRoot), runId);

/** Default capability cache (the adapters' probe writes `adapter-capabilities.json` in it). */
export const defaultCacheDir = (repoRoot: string): string => path.join(repoRoot, '.cache', 'hydra');

/** True when `child` is `parent` or inside it. */
export const isInside = (parent: string, child: string): boolean => {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};
