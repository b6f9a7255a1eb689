/** The judge of ties (`--judge`): screening, the prompt, the validated answer, running it read-only. */
export { runJudge, JUDGE_TIMEOUT_MS } from './run-judge.js';
export type { JudgeInput } from './run-judge.js';
