/**
 * The engine's public shapes: what a race is asked to do, the snapshot a UI renders, the summary a
 * headless run prints, and the handle through which the CLI and dashboard drive a race.
 * The UI imports only types from here and never performs side effects itself.
 */
import type { AgentEvent, ErrorInfo, Usage } from '../core/events.js';
import type { AdapterId, Capabilities, PriceTable, Tier } from '../adapters/types.js';
// From the pure files themselves, not the folder's index: the index reaches back to this file.
import type { ScoreWeights } from './checks/score.js';
import type { CheckSpec, CheckSummary, NewTestsSummary, ScoreSummary } from './check-types.js';
import type { AgentName } from './probe-types.js';
import type { SandboxMechanism, SandboxSettings } from './sandbox/settings.js';
import type { ContainerSettings, RunnerKind } from './container/settings.js';
import type { SetupSettings } from './setup/settings.js';
import type { PortRange } from './setup/port-range.js';

// The checks' and the probe's shapes live in files of their own; every name is still exported here.
export type { CheckRun, CheckSpec, CheckStatus, CheckSummary, ScoreSummary } from './check-types.js';
export type { NewTestRun, NewTestStatus, NewTestsSummary } from './check-types.js';
export type { AdapterStatus, AgentName, AgentProbeReport, RepoInfo } from './probe-types.js';

/** One agent as configured for a race (config file and flags already merged). */
export interface AgentPlan {
  /** The agent's name; absent for an agent named after its adapter (see agentNameOf). */
  name?: AgentName;
  /** The CLI it runs. */
  adapterId: AdapterId;
  /** The `[agents.<table>]` its settings come from, when not its own name (`claude` for `claude-2`). */
  table?: string;
  /** Configured binary path or name; discovery falls back to the adapter's candidates. */
  binary?: string;
  model?: string;
  extraArgs: string[];
  env: Record<string, string>;
  /** Idle timeout for this agent, in milliseconds. */
  idleTimeoutMs: number;
  maxTurns?: number;
  /** False when the config disables this agent: probeAgents reports it as 'disabled' without probing. */
  enabled?: boolean;
  /** Stop the agent once its estimated spend passes this many USD (`max_cost_usd`). */
  maxCostUsd?: number; /**
   * Its checks, when they differ from the race's (`[[agents.<name>.checks]]`): the race-wide ones
   * with its overrides, then its own. Absent: the race's checks.
   */
  checks?: CheckSpec[];
  /** Where it runs (`runner`, `--runner`; src/engine/container); absent: `local`. */
  runner?: RunnerKind;
}

export interface RaceOptions {
  /** Any directory inside the user's repository. */
  repoPath: string;
  prompt: string;
  agents: AgentPlan[];
  allowExperimental: boolean;
  /** Overall time limit per agent, in milliseconds (0 = none). */
  timeoutMs: number;
  unsafe: boolean;
  keepWorktrees: boolean;
  prices: PriceTable;
  /** Recorded in the run record, for replay and audit (env values are never written). */
  configSnapshot?: unknown;
  /** Said before the race starts, with the repository's own warnings (e.g. ignored untrusted config keys). */
  warnings?: string[];
  /**
   * The hint for an agent whose CLI is missing, by agent name, in place of "install it": a
   * repository's `agents.<name>.binary` that hydra ignored until `hydra trust` (src/cli/trust-hints.ts).
   */
  missingHints?: Record<string, string>;
  /** Where to cache probe results; defaults to <repo>/.cache/hydra. */
  cacheDir?: string;
  /** Optional run id (tests); generated otherwise. */
  runId?: string;
  /**
   * Where agent worktrees live (outside the repository). Defaults to env HYDRA_WORKTREE_ROOT, else
   * $XDG_CACHE_HOME/hydra/worktrees, else ~/.cache/hydra/worktrees.
   */
  worktreeRoot?: string;
  /**
   * Reopens a recorded run instead of starting one: its agents come back settled, as recorded, for
   * review, follow-ups and merging (`hydra continue`, `hydra rerun`, `--resume-dashboard`).
   */
  reopen?: ReopenRun;
  /** Time between SIGTERM and SIGKILL when stopping an agent, in milliseconds (default 5000). */
  killGraceMs?: number;
  /**
   * How long an agent may go on running after it printed its final result before hydra stops it
   * and keeps the result, in milliseconds (default RESULT_GRACE_MS, a few seconds).
   */
  resultGraceMs?: number;
  /** Checks run in every completed result and once on the base commit (none: no checks, no baseline). */
  checks?: CheckSpec[];
  /** How many checks may run at once across the race (default: the number of cores). */
  checkConcurrency?: number;
  /**
   * Worktrees kept between races (`[race] worktree_pool`): a race takes its agents' worktrees from
   * the pool and gives them back at clean-up; 0 or absent: made and removed per race.
   */
  worktreePool?: number;
  /** The score's weights (hydra.toml `[score]`); defaults to DEFAULT_SCORE_WEIGHTS. */
  scoreWeights?: ScoreWeights;
  /** Glob patterns of the paths agents may change; a changed file outside them is flagged (scope). */
  allowedPaths?: string[];
  /** Stop every agent once the race's estimated spend passes this many USD (`--max-cost-usd`). */
  maxCostUsd?: number;
  /** `--auto-merge best`: once every agent settled, merge the top score if it passed every gate and nobody ties it. */
  autoMerge?: 'best';
  /**
   * `--allow-test-changes`: a result whose checks no longer run the baseline's tests, or whose
   * check command or config it changed, is scored like any other and may win `--auto-merge best`.
   */
  allowTestChanges?: boolean;
  /**
   * `--unverified`: `--auto-merge best` may merge a result no check ran for (its score is then diff
   * size, time and cost alone); without it such a result is never auto-merged.
   */
  allowUnverified?: boolean;
  /**
   * `--judge <agent>`: asked, read-only, to rank the best results when they tie or are within
   * `judgeMargin` points (engine/judge); its ranking only breaks that tie.
   */
  judge?: AgentPlan;
  /** `[score] judge_margin`: how close to the top a result must be for the judge to rank it. */
  judgeMargin?: number;
  /** The OS sandbox around each agent (`[sandbox]`, `--sandbox`); absent: as `mode = "off"`. */
  sandbox?: SandboxSettings;
  /** `[setup]`: copied files, setup commands and shared directories for each worktree; absent: none. */
  setup?: SetupSettings;
  /** `[race] port_range`: where each agent's block of ports (HYDRA_PORT) is taken; absent: 20000-29999. */
  portRange?: PortRange;
  /** `--no-cross-test`, `[race] cross_test = false`: agents' new tests are not cross-tested; absent: they are. */
  crossTest?: false;
  /** `[container]`: the image, hosts and network of agents whose runner is `container`; absent: DEFAULT_CONTAINER. */
  container?: ContainerSettings;
}

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

/** A recorded run as a reopened race starts from (built from a checked record: reopenFromRecord). */
export interface ReopenRun {
  runId: string;
  startedAt: number;
  baseRef: string;
  baseBranch: string | null;
  /** The agents as they settled (their summaries), with the branch each result is on. */
  agents: AgentSummary[];
  merge: MergeResult | null;
  /** The baseline's checks as recorded (kept in the summary a reopened run writes again). */
  baseline?: RaceSummary['baseline'];
  /** A round to start at once, before anything else (the CLI's `continue` and `rerun`). */
  round?: RoundRequest;
}

/**
 * Another round for one settled agent: a follow-up prompt continuing its session on its branch, or
 * a rerun (a fresh attempt from the base, on a new branch, as a new agent `<agent>-2`).
 */
export type RoundRequest =
  { kind: 'follow_up'; agent: AgentName; prompt: string } | { kind: 'rerun'; agent: AgentName };

/** One round of an agent: the race's prompt, then each follow-up; its own usage and time. */
export interface AgentRound {
  prompt: string;
  usage: Usage;
  startedAt: number | null;
  endedAt: number | null;
}

export type RacePhase =
  | 'checking_repo'
  | 'probing'
  | 'creating_worktrees'
  | 'racing'
  /** Every agent settled; each agent's new tests run on the others' results (checks/cross-test). */
  | 'cross_testing'
  /** The judge ranks the tied results (`--judge`). */
  | 'judging'
  | 'reviewing'
  | 'merging'
  | 'done'
  | 'cancelled'
  | 'failed';

export type AgentStatus =
  | 'pending'
  /** Its worktree's setup commands run (`[setup] run`, src/engine/setup); the agent starts after. */
  | 'setting_up'
  | 'spawning'
  | 'running'
  | 'completed'
  | 'failed'
  | 'timed_out'
  | 'cancelled'
  | 'skipped';

/** An agent's worktree setup (src/engine/setup): running while the agent is `setting_up`, then how it went. */
export interface AgentSetup {
  /** Where the commands came from. */
  source: 'hydra.toml' | 'cursor';
  /** The worktree came from the pool with the setup's output kept: nothing ran. */
  warm: boolean;
  /** Epoch ms it started. */
  startedAt: number;
  /** Null while it runs. */
  durationMs: number | null;
  /** The last command's exit code; null while it runs, when warm, or when it did not exit by itself. */
  exitCode: number | null;
}

export interface FileStat {
  path: string;
  insertions: number;
  deletions: number;
  /** Binary files have no line counts. */
  binary?: boolean;
}

/** A secret a commit adds (results/secret-scan.ts). */
export interface SecretFound {
  file: string;
  /** What it looks like: `private key`, `github token`. */
  label: string;
}

/** A commit a merge would bring into the base branch. */
export interface BroughtCommit {
  commit: string;
  subject: string;
  /** Files its diff touches. */
  files: string[];
  /** Secrets its diff adds (empty for nearly every commit). */
  secrets: SecretFound[];
}

export interface DiffSummary {
  filesChanged: number;
  insertions: number;
  deletions: number;
  files: FileStat[];
  /**
   * The commits of the result a merge would bring into the base branch, oldest first, each with the
   * secrets it adds (results/secret-scan.ts): the net diff hides a key committed and deleted later.
   */
  commits?: BroughtCommit[];
}

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
  status: 'running' | 'done' | 'failed' | 'cancelled';
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

export interface AgentSummary {
  agent: AgentName;
  /** The CLI the agent ran (records written before named agents: the agent's own name). */
  adapter: AdapterId;
  status: Exclude<AgentStatus, 'pending' | 'setting_up' | 'spawning' | 'running'>;
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
  setup?: { durationMs: number; exitCode: number | null; source: AgentSetup['source']; warm: boolean } | null;
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
  baseline?: { status?: BaselineSnapshot['status']; error?: string; checks: CheckSummary[] };
  /** The weights the scores were computed with (absent when nothing was scored). */
  scoreWeights?: ScoreWeights;
  /** The race allowed results that change what its checks run (`--allow-test-changes`). */
  allowTestChanges?: boolean;
  /** What was merged, or null; `mergeReason` says why nothing was (absent before the race settled). */
  merged?: { agent: AgentName; branch: string; method: MergeResult['method'] } | null;
  mergeReason?: string;
  /** The judge's verdict on a tie (`--judge`), when it was asked. */
  judge?: JudgeSummary;
}

export interface MergeOptions {
  squash?: boolean;
  /** Keep every worktree and branch of the race, the merged agent's too. */
  keepWorktrees?: boolean;
  /**
   * Also remove the other agents' worktrees and branches (hydra's behaviour before a merge kept
   * the choice open). By default only the merged agent's worktree (and, after a whole merge, its
   * branch) go; the other results stay until `hydra clean`.
   */
  discardOthers?: boolean;
  /**
   * Merge only these paths (files or folders, relative to the repository root) of the agent's
   * result, as one new commit on the user's branch; the agent's branch stays.
   */
  only?: string[];
  /**
   * Merge although the result (or a commit it brings into history) adds what looks like a secret:
   * `--allow-secrets`, for a test fixture or a public key that only looks like one.
   */
  allowSecrets?: boolean;
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
}

/** Streamed to headless consumers for every normalized event, as it happens. */
export interface AgentEventRecord {
  agent: AgentName;
  at: number;
  event: AgentEvent;
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

export interface CleanReport {
  dryRun: boolean;
  removedWorktrees: string[];
  removedBranches: string[];
  removedRecords: string[];
  killedProcesses: number[];
  /** Runs left alone (still running, or unmerged results kept on purpose). */
  skipped: Array<{ runId: string; reason: string }>;
  /** What a record named but hydra refused to touch (a path or process that is not the run's), and why. */
  refused: Array<{ runId: string; target: string; reason: string }>;
  /**
   * Merged runs cleaned this time whose record was kept, so `hydra runs` still lists them (the
   * history); `forgetMerged` removes those records too.
   */
  keptHistory?: string[];
  /** Agents in containers: the runs' containers and volumes removed, `<engine>: <id> (run <id>)`. */
  removedContainers?: string[];
  removedVolumes?: string[];
  /** Engines that did not answer (their containers stay for the next clean), and removals that failed. */
  warnings?: string[];
}
