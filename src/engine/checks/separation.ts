/**
 * What `--auto-merge best` merges once time and cost are left out (docs/verdict.md, "Time and cost
 * never decide a merge"). The total orders the table and includes what the race cost (duration,
 * cost); the merge goes to the result ahead on what speaks to the change itself:
 *
 *   merit = the score's weighted mean over the parts that apply of
 *     checks, tests, evidence  what the checks and cross-tests found;
 *     scope                    files outside the user's allowed_paths;
 *     diff                     its size: the smaller change that passes the same tests.
 *
 * Two different results of the same merit, told apart only by time and cost, are a coin flip on the
 * user's branch: nothing is merged, and the user is told why and what to do (review and merge by
 * hand, or a judge). A partial fix (one that special-cases the visible test's input) passes the
 * base's tests as a fix does and is often as small; a test written with another input (a
 * reproduction, cross-tested) or a judge tells them apart.
 */
import type { Score, ScoreWeights } from '../check-types.js';
import { meritOf as meritOfParts } from '../../core/merit.js';

export type Separable = Pick<Score, 'agent' | 'total' | 'parts' | 'disqualified'> & {
  flags?: readonly string[];
  verified?: boolean;
};

/** The user's allowances: a flagged or unverified result is a candidate only where it could be merged. */
export interface Allowances {
  allowTestChanges?: boolean;
  allowUnverified?: boolean;
}

/** The score without duration and cost: what the change is, not what the race cost (core/merit.ts). */
export const meritOf = (score: Separable, weights: Readonly<ScoreWeights>): number =>
  meritOfParts(score.parts, weights);

/** A result `--auto-merge best` could merge, given the user's allowances. */
const candidate = (score: Separable, allow: Allowances): boolean =>
  score.disqualified === null &&
  score.total > 0 &&
  (allow.allowTestChanges === true || (score.flags ?? []).length === 0) &&
  (allow.allowUnverified === true || score.verified !== false);

/**
 * The candidates of the best merit, best total first: one when a result is ahead on what speaks to
 * the change, several when only time and cost tell them apart, none when nothing can be merged.
 */
export const bestByMerit = (
  scores: readonly Separable[],
  weights: Readonly<ScoreWeights>,
  allow: Allowances = {},
): Separable[] => {
  const candidates = scores
    .filter((score) => candidate(score, allow))
    .map((score) => ({ score, merit: meritOf(score, weights) }));
  const best = Math.max(...candidates.map((item) => item.merit));
  return candidates
    .filter((item) => best - item.merit < 1e-9)
    .map((item) => item.score)
    .sort((a, b) => b.total - a.total);
};

const names = (agents: readonly string[]): string =>
  agents.length <= 2
    ? agents.join(' and ')
    : `${agents.slice(0, -1).join(', ')} and ${agents[agents.length - 1] ?? ''}`;

/** Why `--auto-merge best` merges none of `tied`, and what the user can do. */
export const unseparatedReason = (tied: readonly string[], reproduced: boolean): string => {
  const checks = reproduced ? 'the same checks and cross-tests' : 'the same checks';
  const unreproduced = reproduced
    ? ''
    : " (no reproduction of the race tested them beyond the base's tests: a fix of the tested input alone passes them as a fix does)";
  return `${names(tied)} pass ${checks} with diffs of the same size: only time and cost tell them apart, which say nothing about which change is right${unreproduced}; review them (\`hydra show --tui\`) and merge one with \`hydra merge <run> <agent>\`, or race with --judge <agent> to have a model break the tie`;
};
