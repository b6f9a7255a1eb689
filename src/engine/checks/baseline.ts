/**
 * The baseline: the race's checks run once on the base commit, in a worktree of its own
 * (`<run dir>/.baseline`, detached, no branch), started with the agents so it is ready when they
 * are. The worktree is removed as soon as the checks are done (or stopped); it lies in the run's
 * directory, so `hydra clean` finds it should hydra die meanwhile.
 */
import { mkdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { CheckRun, CheckSpec } from '../check-types.js';
import type { RacePlace } from '../setup/index.js';
import { runChecksOnCommit } from './checkout.js';
import { BASELINE_AGENT, BASELINE_LEASE } from '../setup/index.js';
import { HydraError } from '../../core/hydra-error.js';
import { treePolicy } from '../sandbox/index.js';

/** The process marker of the baseline's checks. */
const BASELINE_OWNER = 'check:baseline';

/** What the baseline needs: the race's place (setup/run-place.ts), the base commit and the checks. */
export type BaselineInput = RacePlace & {
  baseRef: string;
  /** The run's worktree directory (`<worktree root>/<repo key>/<run id>`). */
  runDir: string;
  checks: CheckSpec[];
};

export interface BaselineOutput {
  checks: CheckRun[];
  /** Why the baseline could not run, or null. */
  error: string | null;
}

const baselineWorktreeDir = (runDir: string): string => path.join(runDir, '.baseline');

/** Its checks' temp directory (TMPDIR in the sandbox). */
const baselineTmpDir = (runDir: string): string => path.join(runDir, '.baseline-tmp');

/**
 * Creates the baseline worktree (a clean checkout of the base: runChecksOnCommit), runs the checks
 * there (in the sandbox when the race's agents are: the checkout and its temp directory writable),
 * removes it. Never throws.
 */
export async function runBaseline(input: BaselineInput, signal: AbortSignal): Promise<BaselineOutput> {
  const dir = baselineWorktreeDir(input.runDir);
  const tmpDir = baselineTmpDir(input.runDir);
  try {
    const port = input.ports === undefined ? null : await input.ports.lease(BASELINE_LEASE);
    const sandboxed =
      input.checks.length > 0 && (input.container ?? null) === null && (input.sandbox ?? null) !== null;
    if (sandboxed) await mkdir(tmpDir, { recursive: true, mode: 0o700 });
    const checks = await runChecksOnCommit(input.checks, {
      repoRoot: input.repoRoot,
      commit: input.baseRef,
      dir,
      area: input.runDir,
      runId: input.runId,
      owner: BASELINE_OWNER,
      identity: { agent: BASELINE_AGENT, port },
      processes: input.processes,
      slots: input.slots,
      graceMs: input.graceMs,
      signal,
      ...(input.secrets === undefined ? {} : { secrets: input.secrets }),
      // The base's own checks and setup run nothing an agent wrote: the whole environment.
      environment: { pass: input.environment?.pass ?? [], whole: true },
      ...(input.copy === undefined ? {} : { copy: input.copy }),
      ...(input.shared === undefined ? {} : { shared: input.shared }),
      ...(input.setup === undefined ? {} : { setup: input.setup }),
      container: input.container ?? null,
      sandbox: sandboxed && input.sandbox ? treePolicy(input.sandbox, dir, tmpDir) : null,
    });
    return { checks, error: null };
  } catch (error) {
    // A failed setup says so (its kind, its hint): the checks are then compared with no baseline.
    if (error instanceof HydraError && error.kind === 'SetupFailed')
      return { checks: [], error: `SetupFailed: ${error.message}\n${error.hint}` };
    return { checks: [], error: error instanceof Error ? error.message : String(error) };
  } finally {
    await rm(tmpDir, { recursive: true, force: true }).catch(() => undefined);
    // The run's directory, if nothing else is left in it (a cancelled race's clean-up may be done).
    for (const empty of [input.runDir, path.dirname(input.runDir)])
      if (
        !(await rmdir(empty).then(
          () => true,
          () => false,
        ))
      )
        break;
  }
}
