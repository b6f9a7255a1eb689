/**
 * The score: one deterministic number per agent, from figures the run record keeps, so the same
 * record always gives the same ranking (docs/checks.md, "The score").
 *
 *   disqualified (score 0): the agent did not complete, changed nothing, or failed a gate check;
 *   otherwise   total = 100 × Σ weight·part / Σ weight, over the parts that apply, where
 *     checks   = checks passed / checks run
 *     tests    = tests passed / (passed + failed), over every check whose output gave counts
 *     diff     = smallest changed-line count among the eligible agents / this agent's
 *     scope    = 1 − files outside allowed_paths / files changed (only when allowed_paths is set)
 *     duration = fastest eligible agent's time / this agent's
 *     cost     = cheapest known eligible cost / this agent's (not applied when a cost is unknown)
 *     evidence = what cross-testing proved (checks/cross-test/evidence.ts; only when a new test of
 *                the race reproduces the bug: fails on the base, passes on its author's result)
 *
 * A part that does not apply (no checks, no counts, unknown cost) is left out and the others are
 * weighed among themselves, so an agent is never marked down for a figure nobody has.
 *
 * The smallest, fastest and cheapest figures (a ScoreReference) are the race's as its agents ended:
 * a later round (a follow-up, a rerun) is compared with them, and its agent's new figures never
 * become another agent's yardstick, so one agent's round never moves the others' scores.
 *
 * A flagged result (a check that no longer runs the baseline's tests, or whose command the result
 * changed: checks/tampering.ts) has checks and tests of 0: what its checks say is not evidence, so
 * it never beats a result that passes its checks honestly, and pickBest does not merge it unless
 * the user allows test changes (then it is scored like any other).
 */
import type { Score, ScorePart, ScoreParts, ScoreReference, ScoreWeights } from '../check-types.js';
import { bestByMerit, unseparatedReason } from './separation.js';
import { DEFAULT_WEIGHTS } from '../../core/merit.js';

export const DEFAULT_SCORE_WEIGHTS: Readonly<ScoreWeights> = DEFAULT_WEIGHTS;

export interface ScoredCheck {
  name: string;
  gate: boolean;
  passed: boolean;
  tests: { passed: number; failed: number } | null;
  /** Why this check is not evidence (tests removed or skipped, its command changed); empty when none. */
  flags?: readonly string[];
  /** It ran to a verdict (passed or failed), not timed out or unable to start; absent: it did. */
  ran?: boolean;
}

export interface ScoreInput {
  agent: string;
  completed: boolean;
  checks: ScoredCheck[];
  /** Lines added plus removed, and files, in the agent's committed result (null: no result). */
  diff: { files: number; lines: number } | null;
  /** Changed files outside allowed_paths; null when allowed_paths is not configured. */
  outsideAllowed: number | null;
  durationMs: number | null;
  costUsd: number | null;
  /** Cross-testing's evidence (0–1); absent when the race has no reproduction. */
  evidence?: number;
}

const EMPTY_PARTS: ScoreParts = {
  checks: null,
  tests: null,
  diff: null,
  scope: null,
  duration: null,
  cost: null,
};

const round1 = (value: number): number => Math.round(value * 10) / 10;

/** best / value for "smaller is better" figures, 1 for the best; null when unknown. */
const relative = (value: number | null, best: number | null): number | null =>
  value === null || best === null ? null : value <= 0 ? 1 : Math.min(1, Math.max(best, 0) / value);

const minOf = (values: ReadonlyArray<number | null>): number | null => {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : Math.min(...known);
};

const whyDisqualified = (input: ScoreInput, failedGates: string[]): string | null => {
  if (!input.completed) return 'did not complete';
  if (input.diff === null || input.diff.files === 0) return 'changed nothing';
  if (failedGates.length > 0) return `failed gate ${failedGates.join(', ')}`;
  return null;
};

/**
 * Whether anything looked at the result: at least one of its checks ran to a verdict (passed or
 * failed). Without one, its total comes from diff size, time and cost alone, which say nothing about
 * whether the change is right, so `--auto-merge best` does not merge it (pickBest).
 */
const verifiedBy = (checks: readonly ScoredCheck[]): boolean => checks.some((check) => check.ran !== false);

const judge = (inputs: readonly ScoreInput[]) =>
  inputs.map((input) => {
    const failed = input.checks.filter((check) => check.gate && !check.passed).map((check) => check.name);
    return { input, failed, disqualified: whyDisqualified(input, failed) };
  });

/** The smallest diff, fastest time and cheapest known cost among the results that can win. */
export const scoreReference = (inputs: readonly ScoreInput[]): ScoreReference => {
  const eligible = judge(inputs)
    .filter((item) => item.disqualified === null)
    .map((item) => item.input);
  const costs = eligible.map((input) => input.costUsd);
  return {
    lines: minOf(eligible.map((input) => Math.max(1, input.diff?.lines ?? 1))),
    durationMs: minOf(eligible.map((input) => input.durationMs)),
    // A cheapest cost means something only when every eligible cost is known.
    costUsd: costs.includes(null) ? null : minOf(costs),
  };
};

/**
 * Scores every agent of a race against the others: against `reference` when the race has one (its
 * figures as its agents ended), else against the results as they are now.
 */
export const scoreAgents = (
  inputs: readonly ScoreInput[],
  weights: Readonly<ScoreWeights> = DEFAULT_SCORE_WEIGHTS,
  options: { allowTestChanges?: boolean; reference?: ScoreReference | null } = {},
): Score[] => {
  const judged = judge(inputs);
  const now = scoreReference(inputs);
  const kept = options.reference ?? null;
  const best = {
    lines: kept?.lines ?? now.lines,
    duration: kept?.durationMs ?? now.durationMs,
    cost: kept === null ? now.costUsd : kept.costUsd,
  };
  return judged.map(({ input, failed, disqualified }) => {
    const gates = { passed: failed.length === 0, failed };
    const flags = input.checks.flatMap((check) =>
      (check.flags ?? []).map((flag) => `${check.name}: ${flag}`),
    );
    const verified = verifiedBy(input.checks);
    if (disqualified !== null)
      return { agent: input.agent, total: 0, gates, parts: EMPTY_PARTS, disqualified, flags, verified };
    const untrusted = flags.length > 0 && options.allowTestChanges !== true;
    const counted = input.checks.flatMap((check) => (check.tests === null ? [] : [check.tests]));
    const passedTests = counted.reduce((sum, tests) => sum + tests.passed, 0);
    const ranTests = counted.reduce((sum, tests) => sum + tests.passed + tests.failed, 0);
    const files = input.diff?.files ?? 0;
    const parts: ScoreParts = {
      checks: untrusted
        ? 0
        : input.checks.length === 0
          ? null
          : input.checks.filter((check) => check.passed).length / input.checks.length,
      tests: untrusted ? 0 : ranTests === 0 ? null : passedTests / ranTests,
      diff: relative(Math.max(1, input.diff?.lines ?? 1), best.lines),
      scope: input.outsideAllowed === null || files === 0 ? null : 1 - input.outsideAllowed / files,
      duration: relative(input.durationMs, best.duration),
      cost: best.cost === null ? null : relative(input.costUsd, best.cost),
      ...(input.evidence === undefined ? {} : { evidence: input.evidence }),
    };
    let weighted = 0;
    let weightSum = 0;
    for (const part of Object.keys(parts) as ScorePart[]) {
      const value = parts[part];
      const weight = weights[part] ?? DEFAULT_SCORE_WEIGHTS[part] ?? 0;
      if (value === null || value === undefined || weight <= 0) continue;
      weighted += weight * value;
      weightSum += weight;
    }
    const total = weightSum === 0 ? 0 : round1((100 * weighted) / weightSum);
    return { agent: input.agent, total, gates, parts, disqualified: null, flags, verified };
  });
};

export type BestPick = { agent: string; score: number } | { agent: null; reason: string };

/** What pickBest may be told: the user's allowances, and a judge's ranking of the contenders. */
export interface PickOptions {
  /** `--allow-test-changes`: a flagged result may win. */
  allowTestChanges?: boolean;
  /** `--unverified`: a result no check ran for may win on diff, time and cost alone. */
  allowUnverified?: boolean;
  /** `[score] judge_margin` when a judge is configured: results this close to the top are contenders. */
  judgeMargin?: number;
  /** A judge's ranking of exactly the contenders (judge/verdict.ts validated it), best first. */
  ranking?: readonly string[];
  /**
   * `--auto-merge best`: time and cost never decide the merge. It goes to the result ahead on what
   * speaks to the change (its merit: the score without duration and cost, separation.ts), and to
   * none when two results share the best merit; those are contenders for the judge too.
   */
  requireSeparation?: boolean;
  /** The race's weights, for the merit (default DEFAULT_SCORE_WEIGHTS). */
  weights?: Readonly<ScoreWeights>;
  /** Whether two agents' results are the same change (the same tree): choosing between them is no coin flip. */
  sameChange?: (a: string, b: string) => boolean;
}

type Pickable = Omit<Score, 'flags' | 'verified'> & { flags?: readonly string[]; verified?: boolean };

const canWin = (score: Pickable): boolean => score.disqualified === null && score.total > 0;

/**
 * The results close enough to the top for a judge to order (total within `margin` of the top's,
 * best first); one or none when there is nothing to break. A margin of 0 means an exact tie.
 */
export const contendersOf = (scores: readonly Pickable[], margin = 0): string[] => {
  const ranked = [...scores].filter(canWin).sort((a, b) => b.total - a.total);
  const top = ranked[0];
  if (top === undefined) return [];
  return ranked.filter((score) => top.total - score.total <= margin).map((score) => score.agent);
};

/** With `requireSeparation`, the candidates of the best merit (separation.ts); else none. */
const byMerit = (scores: readonly Pickable[], options: PickOptions): Pickable[] => {
  const top = [...scores].filter(canWin).sort((a, b) => b.total - a.total)[0];
  // An unverified top merged with --unverified is the user's choice of diff, time and cost alone.
  if (options.requireSeparation !== true || top === undefined) return [];
  if (top.verified === false && options.allowUnverified === true) return [];
  const best = bestByMerit(scores, options.weights ?? DEFAULT_SCORE_WEIGHTS, options).flatMap(
    (score) => scores.find((item) => item.agent === score.agent) ?? [],
  );
  // Results that made the same change are one choice: its top total stands for them.
  const [lead] = best;
  const same = options.sameChange;
  return lead !== undefined && same !== undefined && best.every((score) => same(lead.agent, score.agent))
    ? [lead]
    : best;
};

/**
 * The results a judge's ranking may choose among: those within `judgeMargin` of the top, and with
 * `requireSeparation`, the results of the best merit when several share it (separation.ts).
 */
export const mergeContenders = (scores: readonly Pickable[], options: PickOptions = {}): string[] => {
  const contenders = contendersOf(scores, options.judgeMargin ?? 0);
  const tied = byMerit(scores, options);
  return tied.length < 2 ? contenders : [...new Set([...contenders, ...tied.map((score) => score.agent)])];
};

/**
 * `[score] judge_margin`'s default: results within 5 points of the top are contenders for the
 * judge. Duration and cost weigh 5 each, so 5 points is about what time and cost alone can make
 * between two results that pass the same checks with the same diff size.
 */
export const DEFAULT_JUDGE_MARGIN = 5;

const NO_CHECK_HINT =
  'add one: --check "npm test" (any command that exits 0 when the result is right), --check auto (the project\'s own test command), or checks in hydra.toml ([[checks]] or [race] checks = "auto"); or race with --unverified to merge on diff, time and cost alone';

/**
 * The agent `--auto-merge best` merges: the top score, if it can win and nobody ties it. A flagged
 * top (its checks changed what they run) is merged only when the user allows test changes; an
 * unverified one (no check ran for it) only with `--unverified`. A judge's ranking orders the
 * contenders (a tie, or totals within the judge's margin, or results of the same merit) and
 * nothing else. With `requireSeparation` (`--auto-merge best`), the result of the best merit (the
 * score without duration and cost) instead of the top total, and none when several share it
 * (separation.ts).
 */
export const pickBest = (scores: readonly Pickable[], options: PickOptions = {}): BestPick => {
  const ranked = [...scores].sort((a, b) => b.total - a.total);
  const [top, second] = ranked;
  if (top === undefined || !canWin(top)) {
    const reasons = scores.map((score) => `${score.agent}: ${score.disqualified ?? 'score 0'}`);
    return { agent: null, reason: `no result can win (${reasons.join('; ') || 'no agents'})` };
  }
  const merit = byMerit(scores, options);
  const lead = merit[0] ?? top;
  const contenders = mergeContenders(scores, options);
  const judged = options.ranking?.find((agent) => contenders.includes(agent));
  const chosen =
    contenders.length > 1 && judged !== undefined
      ? (ranked.find((score) => score.agent === judged) ?? lead)
      : lead;
  if (chosen.verified === false && options.allowUnverified !== true)
    return {
      agent: null,
      reason: `no check ran for ${chosen.agent}: its score (${chosen.total}) is from diff size, time and cost alone, which say nothing about whether the change is right; ${NO_CHECK_HINT}`,
    };
  if ((chosen.flags ?? []).length > 0 && options.allowTestChanges !== true)
    return {
      agent: null,
      reason: `the top result, ${chosen.agent} (${chosen.total}), changed the base's tests or what its checks run (${(chosen.flags ?? []).join('; ')}); changing the tests is your decision: review it and merge it with \`hydra merge\`, or race with --allow-test-changes to let such a result win`,
    };
  // An exact tie of the totals (merit too, unless one result is ahead on it).
  if (judged === undefined && merit.length !== 1 && second !== undefined && second.total === top.total) {
    const tied = ranked.filter((score) => score.total === top.total).map((score) => score.agent);
    return { agent: null, reason: `${tied.join(' and ')} tie at ${top.total}` };
  }
  if (judged === undefined && merit.length > 1)
    return {
      agent: null,
      reason: unseparatedReason(
        merit.map((score) => score.agent),
        (lead.parts.evidence ?? null) !== null,
      ),
    };
  return { agent: chosen.agent, score: chosen.total };
};
