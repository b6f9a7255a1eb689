/**
 * A score's merit: its weighted mean over the parts that speak to the change itself (checks, tests,
 * cross-test evidence, scope, diff size), without duration and cost: what `--auto-merge best` goes
 * by (engine/checks/separation.ts) and what the why line says (ui/text/verdict.ts). Here, below
 * both, so that the CLI's formatters reach it without loading the engine.
 */

/** The parts of a score the merit weighs. */
export const MERIT_PARTS = ['checks', 'tests', 'evidence', 'scope', 'diff'] as const;
type MeritPart = (typeof MERIT_PARTS)[number];

/** A score's parts, as engine/check-types.ts's ScoreParts holds them (0–1, null where none applies). */
export type MeritParts = { readonly [Part in MeritPart]?: number | null };

/** The score's weights by part (engine/check-types.ts's ScoreWeights). */
export type MeritWeights = { readonly [Part in MeritPart]?: number };

/** `[score]`'s default weights (engine/checks/score.ts re-exports them as DEFAULT_SCORE_WEIGHTS). */
export const DEFAULT_WEIGHTS = {
  checks: 40,
  tests: 30,
  diff: 10,
  scope: 10,
  duration: 5,
  cost: 5,
  evidence: 50,
} as const;

/** The score without duration and cost: what the change is, not what the race cost. */
export const meritOf = (parts: MeritParts, weights: MeritWeights): number => {
  let weighted = 0;
  let sum = 0;
  for (const part of MERIT_PARTS) {
    const value = parts[part];
    const weight = weights[part] ?? 0;
    if (value === null || value === undefined || weight <= 0) continue;
    weighted += weight * value;
    sum += weight;
  }
  return sum === 0 ? 0 : weighted / sum;
};
