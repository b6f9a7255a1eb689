/** Checks: test counts read from runner output, and the score that ranks a race's results. */
export { compareTests, readTestCounts } from './test-counts.js';
export type { TestChanges, TestCounts } from './test-counts.js';
export { DEFAULT_SCORE_WEIGHTS, pickBest, scoreAgents } from './score.js';
export type { BestPick, Score, ScoreInput, ScoreWeights } from './score.js';
