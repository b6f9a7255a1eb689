/**
 * What the CLI and the dashboard see of a race: the snapshot every UI renders, and the handle
 * through which they observe and drive it. The UI imports only types from here and never performs
 * side effects itself.
 */
import type { AgentEvent, ErrorInfo, Usage } from '../../core/events.js';
import type { AdapterId, Capabilities, Tier } from '../../adapters/types.js';
import type { AgentName } from '../agent-name.js';
import type { RunnerKind } from '../agent-plan.js';
import type { CheckSummary, NewTestsSummary, ScoreSummary } from '../check-types.js';
import type { AgentSetup, AgentStatus } from '../agent/index.js';
import type { DiffSummary } from '../git/index.js';
import type {
  AgentEventRecord,
  AgentRound,
  BaselineStatus,
  JudgeSummary,
  MergeResult,
  RaceSummary,
} from '../records/index.js';
import type { MergeOptions } from '../results/index.js';
import type { RoundRequest } from '../config/index.js';
import type { SandboxMechanism } from '../sandbox/index.js';

export type RacePhase =
  | 'checking_repo'
  | 'probing'
  | 'creating_worktrees'
  | 'racing'
  /** Every agent's process ended; their checks (and the baseline's) still run. */
  | 'checking'
  /** Every agent settled; each agent's new tests run on the others' results (checks/cross-test). */
  | 'cross_testing'
  /** The judge ranks the tied results (`--judge`). */
  | 'judging'
  | 'reviewing'
  | 'merging'
  | 'done'
  | 'cancelled'
  | 'failed';

export interface AgentSnapshot {
  agent: AgentName;
  /** The CLI this agent runs. */
  adapter: AdapterId;
  /** The pane's label: the CLI's display name for an agent named after its adapter, else the name. */
  displayName: string;
  /** The CLI's display name (shown beside a named agent's name). */
  adapterName: string;
  tier: Tier;
  model: string | null;
  status: AgentStatus;
  /** Epoch ms; null until spawned. */
  startedAt: number | null;
  endedAt: number | null;
  /** Epoch ms of the last stdout line. */
  lastOutputAt: number | null;
  /** The latest events, bounded (oldest dropped first). */
  recentEvents: AgentEvent[];
  /** Total events seen (recentEvents may hold fewer). */
  eventCount: number;
  usage: Usage;
  diff: DiffSummary | null;
  error: ErrorInfo | null;
  exitCode: number | null;
  branch: string | null;
  worktree: string | null;
  /** Flags inferred from docs rather than verified from help text: the UI warns. */
  inferredFlags: boolean;
  warnings: string[];
  capabilities: Capabilities | null;
  /** Its checks against the baseline: null until they ran (or when it has none); `checking` while they run. */
  checks: CheckSummary[] | null;
  checking: boolean;
  /** Set once every agent and the baseline have settled (the score compares them). */
  score: ScoreSummary | null;
  /** The CLI's session (thread) id from its stream: what a follow-up continues. */
  sessionId?: string;
  /** Set once the agent has had a follow-up: every round, the last one current; `usage` is their sum. */
  rounds?: AgentRound[];
  /** For a rerun (`claude-2`): the agent it reruns, whose configuration it runs with. */
  rerunOf?: AgentName;
  /** The tests it added or changed, cross-tested (checks/cross-test); absent when it added none or the race has no checks. */
  newTests?: NewTestsSummary;
  /** What sandboxes it (`bubblewrap`, `sandbox-exec`), null when it runs unsandboxed; absent until launched. */
  sandbox?: SandboxMechanism | null;
  /** The first port of its block (`HYDRA_PORT`), null when it has none; absent until launched. */
  port?: number | null;
  /** Its worktree's setup; absent when the race has no setup commands. */
  setup?: AgentSetup;
  /** Where it runs (`local`, `container`) and, in a container, the engine's host; absent until launched. */
  runner?: RunnerKind;
  host?: string;
}

/** The checks on the base commit, run once per race in a worktree of their own. */
export interface BaselineSnapshot {
  /** `cancelled`: the race was cancelled before the baseline's checks finished. */
  status: BaselineStatus;
  checks: CheckSummary[];
  /** Why the baseline could not run (its worktree could not be made, the race was cancelled), or null. */
  error: string | null;
}

export interface RaceSnapshot {
  runId: string;
  prompt: string;
  phase: RacePhase;
  repoRoot: string | null;
  baseBranch: string | null;
  baseRef: string | null;
  startedAt: number;
  /** Epoch ms at which the snapshot was taken (so a UI needs no clock of its own). */
  now: number;
  /** A run reopened from its record (`hydra show --tui`, `continue`, `rerun`), not a new race. */
  reopened?: boolean;
  /** The reopened run's recorded end while this session starts no round: its duration is done. */
  endedAt?: number;
  agents: AgentSnapshot[];
  /** Race-level problems (no usable adapter, dirty repo...). */
  error: ErrorInfo | null;
  warnings: string[];
  merge: MergeResult | null;
  /** Null when the race has no checks. */
  baseline: BaselineSnapshot | null;
  /** Why `--auto-merge best` merged nothing (or why its merge failed), else null. */
  mergeNote: string | null;
  /** The judge's verdict on a tie (`--judge`), once asked; null otherwise. */
  judge?: JudgeSummary | null;
}

/** The handle through which the CLI and the dashboard observe and drive a race. */
export interface RaceHandle {
  readonly runId: string;
  getSnapshot(): RaceSnapshot;
  /** Called on every snapshot change; returns an unsubscribe function. */
  subscribe(listener: (snapshot: RaceSnapshot) => void): () => void;
  /** Called for every normalized event (unbounded stream, not batched). */
  onEvent(listener: (record: AgentEventRecord) => void): () => void;
  /** Stops one agent (SIGTERM, then SIGKILL after the grace period). */
  stopAgent(agent: AgentName): void;
  /** Cancels the race: every agent is stopped; resolves when all processes are gone. */
  cancel(): Promise<void>;
  /** Resolves when every agent has settled (the race is reviewable), with the summary. */
  settled: Promise<RaceSummary>;
  /** Merges one completed agent's result into the base branch. */
  merge(agent: AgentName, options?: MergeOptions): Promise<MergeResult>;
  /**
   * Ends the race without merging: cleans worktrees unless kept; resolves when done, with the final
   * summary (branches and worktrees the clean-up removed are null there).
   */
  finish(): Promise<RaceSummary>;
  /** The full patch of one agent's result against the base. */
  getPatch(agent: AgentName): Promise<string>;
  /**
   * Starts another round for a settled agent (a follow-up or a rerun) while the race is reviewing;
   * resolves with the summary once that round has settled, rejects when it cannot start.
   */
  startRound(request: RoundRequest): Promise<RaceSummary>;
  /**
   * `--attempts` with `--auto-merge best` (`holdAutoMerge`): the last attempt is in, and the
   * auto-merge decides now; resolves once its merge (if any) is done.
   */
  releaseAutoMerge(): Promise<void>;
  /**
   * Runs the user's shell in a settled agent's worktree (made again from its branch if removed),
   * on this terminal; afterwards commits what was changed there on the agent's branch.
   */
  runShell(request: ShellRequest): Promise<ShellResult>;
}

export interface ShellRequest {
  agent: AgentName;
  /** The program to run ($SHELL). */
  shell: string;
  env: NodeJS.ProcessEnv;
  /** Called with the worktree just before the shell starts, once Ctrl-C is the shell's. */
  onStart?: (worktree: string) => void;
}

export interface ShellResult {
  worktree: string;
  exitCode: number | null;
  /** The agent's result against the base, with what the shell changed; null when it could not be taken. */
  diff: DiffSummary | null;
}
