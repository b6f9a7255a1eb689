/** Checks: running them in every result and on the baseline, test counts read from runner output, and the score that ranks a race's results. */
export type { TestChanges } from './test-counts.js';
export type { Score, ScoreWeights, TestCounts } from '../check-types.js';
export {
  contendersOf,
  DEFAULT_JUDGE_MARGIN,
  DEFAULT_SCORE_WEIGHTS,
  mergeContenders,
  pickBest,
  scoreAgents,
} from './score.js';
export type { BestPick, ScoreInput } from './score.js';
export { meritOf } from './separation.js';
export { checkCommand } from './command.js';
export { siblingPathsIn, siblingReachWarning } from './sibling-reach.js';
export { checkoutDirOf, contractDirOf, runChecksOnCommit } from './checkout.js';
export { breaksContract, contractOf } from './contract/index.js';
export type { ContractSummary } from './contract/index.js';
export type { CommitCheckPlace } from './checkout.js';
export type { CheckPlace } from './runner.js';
export { runBaseline } from './baseline.js';
export { DETECTION_SOURCES, detectTestCommand } from './detect.js';
export type { DetectedCheck } from './detect.js';
export type { BaselineInput, BaselineOutput } from './baseline.js';
export { raceScoreReference, scoreRace, summarizeChecks, outsideAllowedPaths } from './race-score.js';
export { crossTestWarnings, isReproduction, runCrossTests } from './cross-test/index.js';
export type { CrossTestInput, CrossTestOutput } from './cross-test/index.js';
