/** The judge of ties (`--judge`): screening, the prompt, the validated answer, running it read-only. */
export { runJudge, JUDGE_TIMEOUT_MS } from './run-judge.js';
export type { JudgeInput } from './run-judge.js';
export { addressesJudge } from './screen.js';
export { judgePrompt } from './prompt.js';
export { JUDGE_ANSWER, readRanking } from './verdict.js';
