/** Cross-testing: each agent's new tests, found by the runners' naming rules and run on every result and the base. */
export { runCrossTests } from './run.js';
export type { CrossTestInput, CrossTestOutput } from './run.js';
export { crossTestWarnings, evidenceParts, isReproduction } from './evidence.js';
export { RUNNER_RULES } from './rules.js';
export type { RunnerId, RunnerRule } from './rules.js';
export { projectRunners, planTests } from './plan.js';
