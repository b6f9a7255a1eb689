/**
 * What a run record holds, as hydra writes and reads it back: each agent's summary, the race's,
 * the merge, the judge's verdict, the event stream, and a run as `hydra runs` lists it.
 */
import type { AgentEvent, ErrorInfo, Usage } from '../../core/events.js';
import type { AdapterId, Capabilities } from '../../adapters/types.js';
import type { AgentName } from '../agent-name.js';
import type { RunnerKind } from '../agent-plan.js';
import type {
  CheckSummary,
  ContractSummary,
  NewTestsSummary,
  ScoreReference,
  ScoreSummary,
  ScoreWeights,
} from '../check-types.js';

/** How an agent ended, as its summary records it (AgentStatus without the live ones). */
export type FinalStatus = 'completed' | 'failed' | 'timed_out' | 'cancelled' | 'skipped';

/** Where an agent's setup commands came from (`[setup] run`, or the repository's `.cursor/worktrees.json`). */
export type SetupSource = 'hydra.toml' | 'cursor';

/** The baseline's state: `cancelled`: the race was cancelled before the baseline's checks finished. */
export type BaselineStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** The judge's verdict on a tie (engine/judge), as the snapshot and summary carry it. */
export interface JudgeSummary {
  /** The judge agent (`--judge`). */
  agent: AgentName;
  /** The contenders: the results within the margin of the top, best score first. */
  contenders: AgentName[];
  /** Its ranking of the contenders, best first, with its reasons; null when it was ignored. */
  ranking: Array<{ agent: AgentName; reason: string }> | null;
  /** Why there is no ranking, or what hydra did about the answer; null when all went well. */
  warning: string | null;
  /** Contenders whose diff addresses the judge: not shown to it, ranked last (`<agent>: "<text>"`). */
  addressedJudge: string[];
  /** What asking it cost (counted in the race's spend); null when unknown or it was not asked. */
  costUsd: number | null;
}

/** One round of an agent: the race's prompt, then each follow-up; its own usage and time. */
export interface AgentRound {
  prompt: string;
  usage: Usage;
  startedAt: number | null;
  endedAt: number | null;
}

export interface AgentSummary {
  agent: AgentName;
  /** The CLI the agent ran (records written before named agents: the agent's own name). */
  adapter: AdapterId;
  status: FinalStatus;
  exitCode: number | null;
  durationMs: number;
  usage: Usage;
  diff: { filesChanged: number; insertions: number; deletions: number };
  branch: string | null;
  worktree: string | null;
  error?: ErrorInfo;
  /** What hydra found when the agent settled (refs or stash it put back, how the result was built). */
  warnings?: string[];
  /** Its checks, compared with the baseline (empty when the race has none or it did not complete). */
  checks?: CheckSummary[];
  /**
   * What its result changed of the base's tests and their configuration, and whether its checks pass
   * with its own versions and with the base's (checks/contract); absent when it changed none.
   */
  contract?: ContractSummary;
  score?: ScoreSummary;
  /** Changed files outside allowed_paths (only when allowed_paths is configured). */
  outsideAllowed?: string[];
  /** The CLI's session (thread) id, kept so a follow-up can continue it. */
  sessionId?: string;
  /** Each round's prompt and usage, once there was a follow-up. */
  rounds?: AgentRound[];
  /** For a rerun (`claude-2`): the agent it reruns, whose configuration it runs with. */
  rerunOf?: AgentName;
  /** The tests it added or changed, cross-tested (checks/cross-test); absent when it added none or the race has no checks. */
  newTests?: NewTestsSummary;
  /** What sandboxed it (`bubblewrap`, `sandbox-exec`), or null (unsandboxed); absent in older records. */
  sandbox?: string | null;
  /** The first port of its block (`HYDRA_PORT`) in its last round, or null; absent in older records. */
  port?: number | null;
  /** Its worktree's setup commands (`warm`: kept from the pool, nothing ran), null when none ran; absent in older records. */
  setup?: { durationMs: number; exitCode: number | null; source: SetupSource; warm: boolean } | null;
  /** Where it ran (`local`, `container`), and the container engine's host; absent in older records. */
  runner?: RunnerKind;
  host?: string;
}

export interface RaceSummary {
  runId: string;
  prompt: string;
  baseRef: string | null;
  baseBranch: string | null;
  startedAt: number;
  endedAt: number;
  agents: AgentSummary[];
  error: ErrorInfo | null;
  /**
   * The baseline's checks (absent when the race has no checks); its status and why it did not run
   * (records written before the status have none).
   */
  baseline?: { status?: BaselineStatus; error?: string; checks: CheckSummary[] };
  /** The weights the scores were computed with (absent when nothing was scored). */
  scoreWeights?: ScoreWeights;
  /** The yardsticks the scores compare with, as the race's agents ended (absent in older records). */
  scoreReference?: ScoreReference;
  /** The race allowed results that change what its checks run (`--allow-test-changes`). */
  allowTestChanges?: boolean;
  /** What was merged, or null; `mergeReason` says why nothing was (absent before the race settled). */
  merged?: {
    agent: AgentName;
    branch: string;
    method: MergeResult['method'];
    /** The merge's protected files (MergeResult.protectedFiles), when it brought any. */
    protectedFiles?: string[];
  } | null;
  mergeReason?: string;
  /** The judge's verdict on a tie (`--judge`), when it was asked. */
  judge?: JudgeSummary;
  /** `--stop first-verified`: whose result passed every check first, and the agents then stopped. */
  stoppedEarly?: { by: AgentName; agents: AgentName[] };
}

export interface MergeResult {
  runId: string;
  agent: AgentName;
  /** The branch merged into. */
  into: string;
  method: 'fast-forward' | 'merge-commit' | 'squash' | 'nothing-to-merge';
  /** The new HEAD of the target branch. */
  commit: string;
  filesChanged: number;
  /** Worktrees and branches removed afterwards. */
  removed: string[];
  /** The paths merged, when only some were (`--only`); absent for a whole merge. */
  only?: string[];
  /** The merges of this run before this one (a merge keeps the choice open: another may follow). */
  earlier?: MergeResult[];
  /** What hydra put back in the user's git settings and refs before merging. */
  warnings?: string[];
  /**
   * Files the merge added or changed that run code in the user's tools when used there (an
   * editor's tasks, an MCP server, a slash command, `.gitmodules`, a shell's rc file: the sandbox's
   * protected paths, at any depth), for the user to review.
   */
  protectedFiles?: string[];
}

/** Streamed to headless consumers for every normalized event, as it happens. */
export interface AgentEventRecord {
  agent: AgentName;
  at: number;
  event: AgentEvent;
}

/** One line of `hydra runs`. */
export interface RunListEntry {
  runId: string;
  prompt: string;
  startedAt: number;
  endedAt: number | null;
  /**
   * 'running' when the record has no summary and its process is alive; 'dead' when not alive;
   * 'damaged' when a record file is unreadable or malformed (`problem` says which and what);
   * 'foreign' when the record is committed to the repository, so not written by hydra here.
   */
  state: 'running' | 'finished' | 'dead' | 'damaged' | 'foreign';
  /** What is wrong with a damaged or foreign record; null otherwise. */
  problem: string | null;
  baseBranch: string | null;
  /** The agents the race set out with (from its meta record; known even with no summary). */
  agentIds: AgentName[];
  /** Per-agent outcome, from the summary; empty while running or for a dead run. */
  agents: AgentSummary[];
  totalCostUsd: number | null;
  merged: { agent: AgentName; commit: string } | null;
}

/** A run record as read back from .hydra/runs/<run-id>/. */
export interface RunRecord {
  runId: string;
  dir: string;
  meta: {
    runId: string;
    prompt: string;
    promptSha256: string;
    repoRoot: string;
    baseRef: string;
    baseBranch: string | null;
    startedAt: number;
    pid: number;
    hydraVersion: string;
    config: unknown;
    agents: Array<{
      agent: AgentName;
      /** The CLI it ran (an older record without it: the agent's name). */
      adapter: AdapterId;
      branch: string;
      worktree: string;
      version: string | null;
      capabilities: Capabilities | null;
      command: string[];
    }>;
  };
  events: AgentEventRecord[];
  summary: RaceSummary | null;
  merge: MergeResult | null;
  /** What reading the record left out (unreadable event lines, an events file too large to read whole). */
  notes: string[];
  /** Agents whose entry in summary.json is damaged: each stands in the summary as failed, saying so. */
  damagedAgents?: Array<{ agent: AgentName; problem: string }>;
}
