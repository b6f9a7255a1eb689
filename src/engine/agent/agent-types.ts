/** Shapes shared by the agent machine, its process actor and the race machine. */
import type { AgentEvent, CompletedEvent, FailedEvent } from '../../core/events.js';
import type { AdapterId, BuiltCommand, ParserOptions } from '../../adapters/types.js';
import type { ErrorInfo } from '../../core/events.js';
import type { RefSnapshot } from '../git/index.js';
import type { ProcessRegistry } from '../process/index.js';
import type { Limiter } from '../process/index.js';
import type { CliStatePlan, SandboxPolicy } from '../sandbox/index.js';
import type { SharedDir } from '../setup/index.js';
import type { AgentName } from '../agent-name.js';
import type { CheckRun, CheckSpec } from '../check-types.js';
import type { DiffSummary } from '../git/index.js';
import type { FinalStatus, SetupSource } from '../records/index.js';
import type { SetupPlan } from '../setup/index.js';
import type { ContainerLaunch } from '../container/index.js';

/** Where an agent is in its lifetime: waiting, setting up, starting, running, then how it settled. */
export type AgentStatus =
  | 'pending'
  /** Its worktree's setup commands run (`[setup] run`, src/engine/setup); the agent starts after. */
  | 'setting_up'
  | 'spawning'
  | 'running'
  | FinalStatus;

/** An agent's worktree setup (src/engine/setup): running while the agent is `setting_up`, then how it went. */
export interface AgentSetup {
  /** Where the commands came from. */
  source: SetupSource;
  /** The worktree came from the pool with the setup's output kept: nothing ran. */
  warm: boolean;
  /** Epoch ms it started. */
  startedAt: number;
  /** Null while it runs. */
  durationMs: number | null;
  /** The last command's exit code; null while it runs, when warm, or when it did not exit by itself. */
  exitCode: number | null;
}

/**
 * Why hydra stopped an agent (ProcessEnd.stoppedBy). `after_result`: its stream had already
 * carried its final result (the result grace ran out, or it was stopped or cancelled during it).
 */
export type StopReason =
  | 'idle_timeout'
  | 'timeout'
  | 'cancel'
  | 'after_result'
  | 'budget'
  | 'race_budget'
  /** `--stop first-verified`: another result passed every check first. */
  | 'first_verified';

/** Everything needed to run one agent: plain data, so the machine can be driven by fakes. */
export interface AgentLaunch {
  runId: string;
  /** The agent's name (branch, worktree, record keys). */
  agent: AgentName;
  /** The CLI it runs: its parser reads the output. */
  adapter: AdapterId;
  /** Which round this launch is: 1 for the race, 2 and on for follow-ups (absent = 1). */
  round?: number;
  displayName: string;
  command: BuiltCommand;
  /** Extra environment from the plan (hydra.toml `env`), over the command's own. */
  env: Record<string, string>;
  parser: ParserOptions;
  repoRoot: string;
  recordDir: string;
  worktree: string;
  scratchDir: string;
  branch: string;
  baseRef: string;
  prompt: string;
  idleTimeoutMs: number;
  /** 0 = no overall limit. */
  timeoutMs: number;
  graceMs: number;
  /** How long a process may outlive the result it printed (default RESULT_GRACE_MS). */
  resultGraceMs?: number;
  /** The user's refs when the race started: checked and put back when this agent settles. */
  refsAtStart?: RefSnapshot;
  /** Run in the worktree once the agent completed and its result is committed. */
  checks?: CheckSpec[];
  /** `[race] check_pass_env`: the credentials of hydra's environment its checks and their setup get. */
  checkPassEnv?: readonly string[];
  /** `[setup] copy`: the user's ignored files its checks' checkout gets too (setup/copy.ts). */
  copy?: readonly string[];
  /** Stopped once its estimated spend passes this (USD). */
  maxCostUsd?: number;
  /** The race's budget (USD), named when the race stops it for passing it. */
  raceMaxCostUsd?: number;
  /** Its OS sandbox (src/engine/sandbox), for it and its checks; null or absent: unsandboxed. */
  sandbox?: SandboxPolicy | null;
  /**
   * Its own copy of its CLI's state (sandbox/cli-state.ts; its variables are in `env`), made before
   * it starts (ensureCliState) and kept with the run; null or absent: it uses the user's.
   */
  cliState?: CliStatePlan | null;
  /**
   * Variables its CLI's own configuration reads a key from (a Codex provider's `env_key`, opencode's
   * `{env:NAME}`): passed from hydra's environment besides the allowlist (process/agent-env.ts).
   */
  configuredVariables?: string[];
  /** The checkout's directories it, its setup and its checks see copy-on-write (`[setup] share`). */
  shared?: SharedDir[];
  /** The first port of its block (`HYDRA_PORT`, setup/ports.ts), for it and its checks; null or absent: none. */
  port?: number | null;
  /** Its worktree's setup commands, run before it starts (src/engine/setup); null or absent: none. */
  setup?: SetupPlan | null;
  /** The setup commands run in its checks' checkout before the checks; null or absent: none. */
  checksSetup?: SetupPlan | null;
  /** Runs in a container (`runner = "container"`; src/engine/container); null or absent: on this machine. */
  container?: ContainerLaunch | null;
}

/** What an agent machine and its process actor start from: the launch and the race's process registry. */
export interface AgentInput {
  launch: AgentLaunch;
  processes: ProcessRegistry;
  /** The race's limit on checks running at once (needed when the launch has checks). */
  checkSlots?: Limiter;
  /** Stopped before it started (a stop asked while the worktrees were made): it settles cancelled, nothing runs. */
  stopAtStart?: boolean;
}

export type AgentProcessCommand = { type: 'TERMINATE'; reason: StopReason } | { type: 'KILL' };

export type AgentProcessEvent =
  | { type: 'SPAWNED'; at: number; pid: number }
  | { type: 'OUTPUT'; at: number; events: AgentEvent[] }
  /** The stream carried its final result (the first terminal event); the process may linger. */
  | { type: 'RESULT'; at: number; terminal: CompletedEvent | FailedEvent }
  | {
      type: 'EXITED';
      at: number;
      terminal: CompletedEvent | FailedEvent;
      exitCode: number | null;
      stoppedBy: StopReason | null;
    };

export type SettledStatus = Extract<AgentStatus, 'completed' | 'failed' | 'timed_out' | 'cancelled'>;

export interface FinalizeInput {
  repoRoot: string;
  worktree: string;
  branch: string;
  baseRef: string;
  message: string;
  agent: AgentName;
  refsAtStart?: RefSnapshot;
}

export interface FinalizeOutput {
  /** Null when the agent broke its worktree: nothing was committed (see `failure`). */
  commit: string | null;
  diff: DiffSummary | null;
  /** What hydra found and put back (the user's refs, stash), or how it built the result. */
  warnings?: string[];
  /** Set when the agent's work could not be taken (its worktree is broken): the agent fails. */
  failure?: ErrorInfo;
}

/** What an agent machine tells the race machine. */
export type AgentReport =
  /** Its worktree's setup started (`durationMs` null), or ended well or was warm; the agent starts next. */
  | { type: 'AGENT.SETUP'; agent: AgentName; at: number; setup: AgentSetup }
  | { type: 'AGENT.SPAWNED'; agent: AgentName; at: number; pid: number }
  | { type: 'AGENT.OUTPUT'; agent: AgentName; at: number; events: AgentEvent[] }
  | { type: 'AGENT.RESULT'; agent: AgentName; at: number; terminal: CompletedEvent | FailedEvent }
  /** Its result is committed and its checks are running. */
  | { type: 'AGENT.CHECKING'; agent: AgentName; at: number; diff: DiffSummary | null }
  | {
      type: 'AGENT.EXITED';
      agent: AgentName;
      at: number;
      terminal: CompletedEvent | FailedEvent;
      exitCode: number | null;
      status: SettledStatus;
    }
  | {
      type: 'AGENT.SETTLED';
      agent: AgentName;
      at: number;
      status: SettledStatus;
      diff: DiffSummary | null;
      commit: string | null;
      warnings: string[];
      /** Set when settling itself failed the agent (its worktree was broken). */
      error: ErrorInfo | null;
      /** Its checks, or null when none ran. */
      checks: CheckRun[] | null;
    };

/** The agent machine's context: its launch, and what it learns as the agent runs and settles. */
export interface AgentContext {
  launch: AgentLaunch;
  processes: ProcessRegistry;
  checkSlots: Limiter | null;
  checks: CheckRun[] | null;
  stoppedBy: StopReason | null;
  status: SettledStatus | null;
  terminal: CompletedEvent | FailedEvent | null;
  diff: DiffSummary | null;
  commit: string | null;
  warnings: string[];
  /** Set when settling failed the agent (its worktree was broken). */
  error: ErrorInfo | null;
  /** A container agent has had its room on its host (`max_agents`): it does not wait again. */
  roomTaken: boolean;
  /** A stop came before it started (AgentInput.stopAtStart). */
  stopAtStart: boolean;
}

/**
 * STOP: the user or a cancel; OVER_BUDGET: the race's total spend passed its budget; STOP_EARLY:
 * another result passed every check (`--stop first-verified`).
 */
export type AgentMachineEvent =
  | AgentProcessEvent
  | { type: 'STOP' }
  | { type: 'OVER_BUDGET' }
  | { type: 'STOP_EARLY' }
  | { type: 'QUEUED'; detail: string }
  | { type: 'ROOM' };
