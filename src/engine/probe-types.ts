/**
 * Who races and what probing says of it: an agent's name, doctor's and the probing phase's view of
 * one adapter, and what doctor says of git and the repository (re-exported by types.ts).
 */
import type { ErrorInfo } from '../core/events.js';
import type { AdapterId, Capabilities, Tier } from '../adapters/types.js';

/**
 * An agent's name in a race (`claude`, `opus`, `claude-2`): lowercase letters, digits and dashes,
 * unique in the race. It names the agent's branch `hydra/<run>/<name>`, its worktree, its record
 * keys and its pane; which CLI runs is its adapter's business (`AdapterId`), never read from the name.
 */
export type AgentName = string;

/** Doctor's and the probing phase's view of one adapter. */
export type AdapterStatus = 'ready' | 'missing' | 'unsupported' | 'disabled' | 'needs-opt-in';

export interface AgentProbeReport {
  /** The agent probed for (its binary is probed once however many agents share it). */
  agent: AgentName;
  adapterId: AdapterId;
  displayName: string;
  tier: Tier;
  status: AdapterStatus;
  /** Resolved absolute path of the binary, or null when none was found. */
  binary: string | null;
  version: string | null;
  capabilities: Capabilities | null;
  /** The exact command a race would run for a sample prompt (argument array), when ready. */
  command: string[] | null;
  warnings: string[];
  error: ErrorInfo | null;
  /** Whether the result came from the capability cache. */
  cached: boolean;
}

/** What `hydra doctor` says about git and the repository. */
export interface RepoInfo {
  gitVersion: string | null;
  isRepo: boolean;
  root: string | null;
  branch: string | null;
  detached: boolean;
  head: string | null;
  hasCommits: boolean;
  dirtyFiles: number;
  problems: ErrorInfo[];
}
