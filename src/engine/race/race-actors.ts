/**
 * The race machine's smaller named actors: the repository check, the probes, cross-testing, the
 * merge, the baseline's checks and the judge. The workspace (`createWorkspace`) is workspace.ts, the
 * race's end (`cleanUp`) clean-up.ts, more rounds race-rounds.ts and race-reopen.ts. Each takes plain
 * data as input; tests replace them with `raceMachine.provide({ actors })`.
 */
import path from 'node:path';
import { fromCallback, fromPromise } from 'xstate';
import { runBaseline, runCrossTests } from '../checks/index.js';
import type { BaselineInput, BaselineOutput, CrossTestInput, CrossTestOutput } from '../checks/index.js';
import { mergeAgentBranch } from '../results/index.js';
import { defaultCacheDir } from '../records/index.js';
import { probeAgents } from '../probe/index.js';
import type { MergeInput, ProbeInput } from './race-types.js';
import type { AgentName } from '../agent-name.js';
import {
  HYDRA_EXCLUDES,
  checkRepoForRace,
  ensureExcluded,
  removeRunDirIfEmpty,
  restoreAfterRace,
} from '../git/index.js';
import type { RepoCheck } from '../git/index.js';
import type { AgentProbeReport } from '../probe-types.js';
import type { MergeResult } from '../records/index.js';
import { trackWork } from './work-tracker.js';
import { runJudge } from '../judge/index.js';
import type { JudgeInput } from '../judge/index.js';
import type { JudgeSummary } from '../records/index.js';
import { trace } from '../../trace.js';
import { usable } from './prepared.js';
import type { Prepared } from './prepared.js';

export const checkRepoLogic = fromPromise<RepoCheck, { repoPath: string }>(async ({ input }) => {
  trace('race: checking the repository');
  const check = await checkRepoForRace(input.repoPath);
  trace('race: repository checked');
  return check;
});

export const probeAgentsLogic = fromPromise<AgentProbeReport[], ProbeInput>(async ({ input }) => {
  const cacheDir = input.cacheDir ?? defaultCacheDir(input.repoRoot);
  // The default cache lives in the repository: keep it out of `git status`.
  if (input.cacheDir === null) await ensureExcluded(input.repoRoot, HYDRA_EXCLUDES);
  const reports = await probeAgents(input.plans, {
    cacheDir,
    allowExperimental: input.allowExperimental,
    unsafe: input.unsafe,
    processes: input.processes,
  });
  trace('race: agents probed');
  // A CLI missing because the repository's `binary` for it was ignored: the fix is `hydra trust`.
  return reports.map((report) => {
    const hint = input.missingHints[report.agent];
    return report.status === 'missing' && report.error !== null && hint !== undefined
      ? { ...report, error: { ...report.error, hint } }
      : report;
  });
});

/** Cross-testing (checks/cross-test): every agent's new tests on the base and on every result. */
export const crossTestLogic = fromPromise<CrossTestOutput, Prepared<CrossTestInput>>(async (args) => {
  const input = usable(args.input);
  return trackWork(input.runId, runCrossTests(input, args.signal));
});

export const mergeAgentLogic = fromPromise<MergeResult, MergeInput>(async (args) => {
  const input = usable(args.input);
  // What the agents' checks changed in the user's git settings and refs goes before the merge.
  const warnings = await restoreAfterRace(input.root, input.runId);
  const result = { ...(await mergeAgentBranch(input)), ...(warnings.length > 0 ? { warnings } : {}) };
  if (input.options.keepWorktrees !== true) {
    for (const dir of new Set(input.worktrees.map((worktree) => path.dirname(worktree))))
      await removeRunDirIfEmpty(dir);
  }
  return result;
});

/**
 * The baseline's checks (none: nothing to do). Stopping the actor (a cancel) stops the checks and
 * removes the worktree; the race's cancel waits for that (trackWork).
 */
export const baselineLogic = fromCallback<
  { type: 'NONE' },
  Prepared<BaselineInput>,
  { type: 'BASELINE.DONE' } & BaselineOutput
>(({ input: prepared, sendBack }) => {
  // Its input could not be built: the baseline reports that as its error, as it does every failure.
  if ('problem' in prepared) {
    sendBack({ type: 'BASELINE.DONE', checks: [], error: prepared.problem.message });
    return () => undefined;
  }
  const input = prepared;
  if (input.checks.length === 0) return () => undefined;
  const controller = new AbortController();
  void trackWork(
    input.runId,
    runBaseline(input, controller.signal).then((output) => {
      if (!controller.signal.aborted) sendBack({ type: 'BASELINE.DONE', ...output });
    }),
  );
  return () => controller.abort();
});

/**
 * `--stop first-verified` with cross-testing: the settled rivals' tests run on the candidate's
 * result (race-inputs.ts verifyInput). Stopping it (the race ended or was cancelled first) stops
 * the tests and removes their checkout; the race's cancel waits for that (trackWork).
 */
export const verifyLogic = fromCallback<
  { type: 'NONE' },
  { candidate: AgentName; cross: Prepared<CrossTestInput> },
  { type: 'VERIFY.DONE'; agent: AgentName; output: CrossTestOutput }
>(({ input: { candidate, cross }, sendBack }) => {
  if ('problem' in cross) {
    sendBack({
      type: 'VERIFY.DONE',
      agent: candidate,
      output: { results: {}, error: cross.problem.message },
    });
    return () => undefined;
  }
  const controller = new AbortController();
  void trackWork(
    cross.runId,
    runCrossTests(cross, controller.signal).then((output) => {
      if (!controller.signal.aborted) sendBack({ type: 'VERIFY.DONE', agent: candidate, output });
    }),
  );
  return () => controller.abort();
});

/** The judge of a tie (`--judge`): never fails; what went wrong is its summary's warning. */
export const judgeLogic = fromPromise<JudgeSummary | null, JudgeInput | null>(({ input, signal }) =>
  input === null ? Promise.resolve(null) : runJudge({ ...input, signal }),
);
