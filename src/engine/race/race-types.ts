/** Inputs and outputs of the race machine's named actors (plain data, so tests can fake them). */
import type { AgentEventRecord, JudgeSummary } from '../records/index.js';
import type { AgentName } from '../agent-name.js';
import type { DiffSummary } from '../git/index.js';
import type { Capabilities } from '../../adapters/types.js';
import type { AgentLaunch, AgentReport } from '../agent/index.js';
import type { MergeRequest } from '../results/index.js';
import type { RepoCheck } from '../git/index.js';
import type { ProcessRegistry } from '../process/index.js';
import type { AgentEvent, ErrorInfo } from '../../core/events.js';
import type { Prepared } from './prepared.js';
import type { BaselineOutput, CrossTestOutput } from '../checks/index.js';
import type { Limiter } from '../process/index.js';
import type { PortLeases } from '../setup/index.js';
import type { AgentPlan } from '../agent-plan.js';
import type { AgentProbeReport } from '../probe-types.js';
import type { AgentSnapshot, BaselineSnapshot } from './race-handle.js';
import type { CheckRun, ScoreReference } from '../check-types.js';
import type { MergeOptions } from '../results/index.js';
import type { MergeResult } from '../records/index.js';
import type { RaceOptions, RoundRequest } from '../config/index.js';

/** RaceOptions with every default filled in. */
export interface ResolvedRaceOptions extends RaceOptions {
  runId: string;
  worktreeRoot: string;
  killGraceMs: number;
}

export interface ProbeInput {
  plans: AgentPlan[];
  allowExperimental: boolean;
  unsafe: boolean;
  repoRoot: string;
  /** null: the default `<repo>/.cache/hydra`. */
  cacheDir: string | null;
  /** The race's registry: a probe's process group is killed with the agents' if hydra goes away. */
  processes: ProcessRegistry;
  /** RaceOptions.missingHints: a missing CLI's hint when its configured binary was ignored. */
  missingHints: Readonly<Record<string, string>>;
}

export interface WorkspaceInput {
  options: ResolvedRaceOptions;
  repo: RepoCheck;
  startedAt: number;
  /** Only the agents that will race. */
  reports: AgentProbeReport[];
  /** The race's registry: git making a worktree is killed with the agents' if hydra goes away. */
  processes: ProcessRegistry;
  /** The race's port blocks: each agent's launch gets one. */
  ports: PortLeases;
  /** Tells the race an agent's events before it starts (the dev container's build, stage `image`). */
  report?: (agent: AgentName, events: AgentEvent[]) => void;
}

export interface Workspace {
  recordDir: string;
  launches: AgentLaunch[];
  /** Said in the header and the summary (agents that run unsandboxed, and why). */
  warnings?: string[];
  /** Container agents' CLIs as probed in their image (placement.ts): what they run, and its version. */
  imageCapabilities?: Partial<Record<AgentName, Capabilities>>;
}

/** A recorded run's workspace: its launches, and which of their worktrees are still on disk. */
export interface ReopenedWorkspace extends Workspace {
  worktreesOnDisk: string[];
  /** What each agent's branch changes since the race's base (an agent whose diff could not be read has none). */
  diffs: Record<AgentName, DiffSummary>;
}

export interface CleanUpInput {
  repoRoot: string;
  keepWorktrees: boolean;
  launches: AgentLaunch[];
  /** Branches of these agents are kept (their results can still be merged with `hydra merge`). */
  keepBranchesOf: AgentName[];
  /** Worktrees of these agents are kept: their work could not be committed, so it lives only there. */
  keepWorktreesOf: AgentName[];
  /** The warm worktree pool (`worktree_pool`): worktrees go back there, up to `size`. */
  pool?: { dir: string; size: number };
}

export interface CleanUpOutput {
  removed: string[];
  /** What was found changed in the user's git settings and refs when the race ended. */
  warnings?: string[];
}

/** The merge request, or why it could not be built (the merge actor then fails with it). */
export type MergeInput = Prepared<MergeRequest>;

export interface MergeRequestEvent {
  agent: AgentName;
  options: MergeOptions;
}

export type RaceEvent =
  | AgentReport
  | { type: 'STOP_AGENT'; agent: AgentName }
  /** `--stop first-verified`: the grace after the first verified result is over. */
  | { type: 'STOP_EARLY' }
  /** `--attempts`: the last attempt is in; `--auto-merge best` decides now. */
  | { type: 'RELEASE_AUTO_MERGE' }
  /** `--stop first-verified` with cross-testing: the rivals' reproductions ran on the candidate's result. */
  | { type: 'VERIFY.DONE'; agent: AgentName; output: CrossTestOutput }
  | { type: 'CANCEL' }
  | ({ type: 'MERGE' } & MergeRequestEvent)
  | { type: 'FINISH' }
  | ({ type: 'BASELINE.DONE' } & BaselineOutput)
  | { type: 'ROUND'; request: RoundRequest }
  | ({ type: 'SHELL_DONE' } & ShellDone);

/** What the user's shell in an agent's worktree left (race-run.ts runShell). */
export interface ShellDone {
  agent: AgentName;
  worktree: string;
  diff: DiffSummary | null;
  warnings: string[];
}

/** The events of one batch of an agent's output (or its final event), in order. */
export interface RaceEmitted {
  type: 'agentEvents';
  records: AgentEventRecord[];
}

export interface RaceInput {
  options: ResolvedRaceOptions;
  startedAt: number;
  /** The race's process registry, handed to the actors that start processes. */
  processes: ProcessRegistry;
  /** The race's port blocks (default: taken from `options.portRange`); given back as the race ends. */
  ports?: PortLeases;
}

export interface RaceContext {
  options: ResolvedRaceOptions;
  runId: string;
  startedAt: number;
  processes: ProcessRegistry;
  repo: RepoCheck | null;
  reports: AgentProbeReport[];
  agents: AgentSnapshot[];
  launches: AgentLaunch[];
  recordDir: string | null;
  settled: AgentName[];
  warnings: string[];
  error: ErrorInfo | null;
  merge: MergeResult | null;
  mergeError: ErrorInfo | null;
  /** The merge asked for (or picked by `--auto-merge best`), set as the race enters merging. */
  mergeRequest: MergeRequestEvent | null;
  /** Counts merge attempts so a caller can tell which attempt an error belongs to. */
  mergeAttempts: number;
  cancelRequested: boolean;
  endedAt: number | null;
  /**
   * A reopened run's recorded end, while this session starts no round: its summary keeps the
   * race's own duration instead of running to when the review closed. Null once a round starts.
   */
  recordedEndedAt: number | null;
  /** The checks on the base commit; null when the race has no checks (or before it races). */
  baseline: BaselineSnapshot | null;
  /** The race's limit on checks running at once, shared by the baseline and every agent. */
  checkSlots: Limiter;
  /** The race's blocks of ports (HYDRA_PORT), one per agent and the baseline, held until it ends. */
  ports: PortLeases;
  /** Set once the race's total spend passed race budget (its agents were told once). */
  overBudget: boolean;
  /**
   * `--stop first-verified`: the agent whose result passed every check first, and the agents
   * stopped after the grace (their work kept on their branches); null until one was verified.
   */
  stoppedEarly: { by: AgentName; agents: AgentName[] } | null;
  /**
   * `--stop first-verified` with cross-testing: the result whose checks all passed and on which the
   * settled rivals' reproductions now run (the `verify` child), or null.
   */
  verifying: AgentName | null;
  /** Results that passed every check but failed a rival's reproduction: never the first verified. */
  unverified: AgentName[];
  /** Why `--auto-merge best` merged nothing, else null. */
  mergeNote: string | null;
  /** `holdAutoMerge` (`--attempts`): `--auto-merge best` waits until RELEASE_AUTO_MERGE. */
  autoMergeHeld: boolean;
  /** The judge's verdict on a tie (`--judge`), once asked; null before (or without a judge). */
  judge: JudgeSummary | null;
  /**
   * The score's yardsticks as the race's agents first ended (or as recorded, for a reopened run),
   * kept for every later round (checks/score.ts); null before.
   */
  scoreReference: ScoreReference | null;
  /** Each agent's check runs (with test names), kept to compare again once the baseline is in. */
  checkRuns: Record<AgentName, CheckRun[]>;
  /** The baseline's check runs, once done. */
  baselineRuns: CheckRun[] | null;
  /** The round asked for and not yet started (a follow-up or rerun); null otherwise. */
  pendingRound: RoundRequest | null;
  /** Counts round requests so a caller can tell which one an error belongs to. */
  roundAttempts: number;
  /** Why the last round asked for could not start; null when it started. */
  roundError: ErrorInfo | null;
  /** Agents the user stopped before the race started them (while its worktrees were made). */
  earlyStops: AgentName[];
}
