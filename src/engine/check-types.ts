/**
 * The shapes of a race's checks and score, as the summary, the records and `hydra show` carry them:
 * on the engine's floor, so the records, an agent's plan and the checks themselves can name them
 * (checks/ computes them: test-counts.ts, score.ts).
 */

/** One check of a race (`--check`, `[[checks]]`): a command run in every result and on the base. */
export interface CheckSpec {
  name: string;
  /** The command line; split into arguments, or run with `sh -c` when it needs a shell. */
  run: string;
  /** 0 = no limit. */
  timeoutMs: number;
  /** A gate must pass for its agent to win. */
  gate: boolean;
}

export type CheckStatus = 'passed' | 'failed' | 'timed_out' | 'error';

/**
 * Where a check ran: on this machine (`host`), or in a container agent's image (`container`) on
 * the engine `engine` (its host as configured: `default`, `tcp://...`, `ssh://...`). Absent from
 * records written before it was kept.
 */
export interface CheckWhere {
  where: 'host' | 'container';
  engine?: string;
}

/** One check's run in one worktree (an agent's or the baseline's). */
export interface CheckRun {
  name: string;
  /** The command it ran (an agent's override may differ from the baseline's). */
  run: string;
  gate: boolean;
  status: CheckStatus;
  exitCode: number | null;
  durationMs: number;
  /** Counts (and test names) read from the output, when a known runner printed them. */
  tests: TestCounts | null;
  /** The end of the check's output (stdout, then stderr), bounded and redacted. */
  output: string;
  /**
   * What of the check's command the result changed against the base (`package.json scripts.test`,
   * `vitest.config.ts`, `hydra.toml`): the check then no longer runs what the baseline ran.
   */
  configChanged?: string[];
  /** Tracked files of the check's clean checkout that changed while it ran (nothing should write them). */
  checkoutChanged?: string[];
  /** Where it ran (runner.ts sets it). */
  where?: CheckWhere['where'];
  engine?: string;
  /**
   * The contract (checks/contract): present when the result changed the base's tests or their
   * configuration. This run is then the contract's (the base's tests and configuration put back),
   * `own` the same check on the result as committed, and `contract` what the result changed.
   */
  own?: Omit<CheckRun, 'own' | 'contract'>;
  contract?: string[];
}

/** A check's result as the summary and `hydra show` give it, compared with the baseline. */
export interface CheckSummary {
  name: string;
  gate: boolean;
  status: CheckStatus;
  exitCode: number | null;
  durationMs: number;
  tests: { passed: number; failed: number; skipped: number } | null;
  /** Against the baseline, by test name; null when either side names no tests. */
  newlyFailing: string[] | null;
  newlyPassing: string[] | null;
  output: string;
  /**
   * Why this check's result is not evidence about the task (absent when nothing is wrong): tests the
   * baseline ran that it no longer runs, or a changed command or config (see checks/tampering.ts).
   */
  tampered?: string[];
  /** Tracked files of the check's clean checkout that changed while it ran. */
  checkoutChanged?: string[];
  /** Where it ran; absent in records written before it was kept. */
  where?: CheckWhere['where'];
  engine?: string;
  /**
   * The contract (CheckRun's): this summary is then of the run with the base's tests, `own` of the
   * run with the result's own versions, and `contract` lists what the result changed of them.
   */
  own?: OwnCheckSummary;
  contract?: string[];
}

/** A check's run with the result's own versions of the base's tests (the contract's other run). */
export type OwnCheckSummary = Pick<
  CheckSummary,
  'status' | 'exitCode' | 'durationMs' | 'tests' | 'output'
> & {
  tampered?: string[];
  checkoutChanged?: string[];
};

/**
 * An agent's contract (checks/contract): what its result changed of the base's tests and their
 * configuration, and whether every check passes with its own versions and with the base's.
 */
export interface ContractSummary {
  changed: string[];
  passesOwn: boolean;
  passesBase: boolean;
}

/**
 * What the relative parts of the score compare with: the smallest diff, the fastest time and the
 * cheapest known cost among the race's eligible results, taken once when the race's agents end and
 * kept for its later rounds (checks/score.ts), so one agent's round never moves another's score.
 */
export interface ScoreReference {
  lines: number | null;
  durationMs: number | null;
  costUsd: number | null;
}

/** The score as recorded: the total, the gates and the parts (see checks/score.ts). */
export type ScoreSummary = Pick<Score, 'total' | 'gates' | 'parts' | 'disqualified' | 'verified'> & {
  /** Why its checks are not evidence (tests removed or skipped, a check's command changed); absent when none. */
  flags?: string[];
};

/** How one new test file fared on one tree (checks/cross-test): a time-out fails; `error`: it could not run there. */
export type NewTestStatus = 'passed' | 'failed' | 'error';

/** One test file an agent added or changed, run on the base, on its own result and on every other agent's. */
export interface NewTestRun {
  file: string;
  /** The runner whose naming rules found it (`node`, `vitest`, `pytest`, `go`, ...). */
  runner: string;
  onBase: NewTestStatus;
  onSelf: NewTestStatus;
  /** By the other agent's name: its result with this file copied onto it. */
  onOthers: Record<string, NewTestStatus>;
  /**
   * The tracked files it changed in the tree it ran in (edited, deleted; a moved HEAD), on the
   * base, its own result, others' results: such a test proves nothing (evidence.ts). Absent: none.
   */
  changesTree?: { base?: string[]; self?: string[]; others?: Record<string, string[]> };
}

/**
 * The tests (files) an agent added or changed, cross-tested (checks/cross-test): a file that fails
 * on the base and passes on its own result is a reproduction, the evidence the score weighs.
 */
export interface NewTestsSummary {
  count: number;
  failOnBase: number;
  passOnSelf: number;
  /** Files that fail on the base and pass on its own result. */
  reproductions: number;
  /** Its files on each other agent's result. */
  onOthers: Record<string, { passed: number; failed: number }>;
  tests: NewTestRun[];
  /** Test files found beyond the budget, not run. */
  notRun?: number;
  /** Where its files ran: on the base's tree, its own result's, each other agent's (absent in older records). */
  where?: { base: CheckWhere; self: CheckWhere; others: Record<string, CheckWhere> };
}

/** Test counts read from a check's output (checks/test-counts.ts). */
export type TestRunner = 'node' | 'vitest' | 'jest' | 'mocha' | 'pytest' | 'go' | 'cargo';

export interface TestCounts {
  runner: TestRunner;
  passed: number;
  failed: number;
  skipped: number;
  /** Names of failing tests, when the output names them (sorted, unique). */
  failedNames: string[];
  /** Names of passing tests, when the output names them (sorted, unique). */
  passedNames: string[];
}

/** The score's weights (hydra.toml `[score]`; checks/score.ts). */
export interface ScoreWeights {
  checks: number;
  tests: number;
  diff: number;
  scope: number;
  duration: number;
  cost: number;
  /** Cross-testing's part (absent in records and configs from before it: the default applies). */
  evidence?: number;
}

export type ScorePart = keyof ScoreWeights;

/** The parts every score has; `evidence` is there only in a race whose tests reproduce the bug. */
type BasePart = Exclude<ScorePart, 'evidence'>;
export type ScoreParts = Record<BasePart, number | null> & { evidence?: number | null };

/** One agent's score (checks/score.ts, scoreAgents). */
export interface Score {
  agent: string;
  /** 0–100, one decimal; 0 when disqualified. */
  total: number;
  gates: { passed: boolean; failed: string[] };
  /** Each part in 0–1, null where it does not apply (or the agent is disqualified). */
  parts: ScoreParts;
  /** Why the agent cannot win, or null. */
  disqualified: string | null;
  /** Why its checks are not evidence, `<check>: <reason>` (empty when none). */
  flags: string[];
  /** At least one check ran to a verdict for it (verifiedBy); false: the total is diff, time and cost alone. */
  verified: boolean;
}
