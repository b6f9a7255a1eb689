/** What a race is asked to do: the options config builds from hydra.toml and flags, and a recorded run to reopen. */
import type { PriceTable } from '../../adapters/types.js';
import type { AgentName } from '../agent-name.js';
import type { AgentPlan } from '../agent-plan.js';
import type { CheckSpec, ScoreReference, ScoreWeights } from '../check-types.js';
import type { AgentSummary, MergeResult, RaceSummary } from '../records/index.js';
import type { SandboxSettings } from '../sandbox/index.js';
import type { ContainerSettings } from '../container/index.js';
import type { PortRange, SetupSettings } from '../setup/index.js';

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
   * `[race] check_pass_env`: the credentials of hydra's environment (names, or `PREFIX*`) that the
   * commands running an agent's code get (checks, the contract, cross-tests, their setup); absent: none.
   */
  checkPassEnv?: string[];
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
   * `--attempts` with `--auto-merge best`: the auto-merge waits for `handle.releaseAutoMerge()`
   * (after the last attempt) instead of deciding at the race's first review.
   */
  holdAutoMerge?: boolean;
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
  /**
   * `--stop first-verified`, `[race] stop`: once one result passes every check, the agents still
   * running get `graceMs`, then are stopped; their work so far stays on their branches.
   */
  stopFirstVerified?: { graceMs: number };
  /** `[container]`: the image, hosts and network of agents whose runner is `container`; absent: DEFAULT_CONTAINER. */
  container?: ContainerSettings;
}

/** A recorded run as a reopened race starts from (built from a checked record: reopenFromRecord). */
export interface ReopenRun {
  runId: string;
  startedAt: number;
  /** When the recorded race ended (its summary's), if it wrote one: a review that starts no round keeps it. */
  endedAt?: number;
  baseRef: string;
  baseBranch: string | null;
  /** The agents as they settled (their summaries), with the branch each result is on. */
  agents: AgentSummary[];
  merge: MergeResult | null;
  /** The baseline's checks as recorded (kept in the summary a reopened run writes again). */
  baseline?: RaceSummary['baseline'];
  /** A round to start at once, before anything else (the CLI's `continue` and `rerun`). */
  round?: RoundRequest;
  /** The race's score yardsticks (checks/score.ts), kept so a round never moves the others' scores. */
  scoreReference?: ScoreReference;
}

/**
 * Another round for one settled agent: a follow-up prompt continuing its session on its branch, or
 * a rerun (a fresh attempt from the base, on a new branch, as a new agent `<agent>-2`).
 */
export type RoundRequest =
  | { kind: 'follow_up'; agent: AgentName; prompt: string }
  /** `prompt`: the rerun's own (`--attempts`: the race's prompt and the failing checks' output). */
  | { kind: 'rerun'; agent: AgentName; prompt?: string };
