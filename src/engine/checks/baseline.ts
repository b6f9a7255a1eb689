/**
 * The baseline: the race's checks run once on the base commit, in a worktree of its own
 * (`<run dir>/.baseline`, detached, no branch), started with the agents so it is ready when they
 * are. The worktree is removed as soon as the checks are done (or stopped); it lies in the run's
 * directory, so `hydra clean` finds it should hydra die meanwhile.
 */
import { rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { CheckRun, CheckSpec } from '../check-types.js';
import type { ProcessRegistry } from '../process/index.js';
import type { KnownSecret } from '../records/index.js';
import type { Limiter } from './limiter.js';
import type { SharedDir } from '../setup/index.js';
import { runChecksOnCommit } from './checkout.js';
import { BASELINE_AGENT, BASELINE_LEASE } from '../setup/index.js';
import type { PortLeases } from '../setup/index.js';
import { HydraError } from '../../core/hydra-error.js';
import type { SetupPlan } from '../setup/index.js';
import type { CommandContainer } from '../container/index.js';

/** The process marker of the baseline's checks. */
const BASELINE_OWNER = 'check:baseline';

export interface BaselineInput {
  repoRoot: string;
  baseRef: string;
  /** The run's worktree directory (`<worktree root>/<repo key>/<run id>`). */
  runDir: string;
  runId: string;
  checks: CheckSpec[];
  processes: ProcessRegistry;
  slots: Limiter;
  graceMs: number;
  /** Configured values to redact from the checks' output (the agents' `env`). */
  secrets?: readonly KnownSecret[];
  /** `[setup] copy` (setup/copy.ts): the checkout gets these ignored files of the user's too. */
  copy?: readonly string[];
  /** The checkout's directories shared into the baseline's worktree (`[setup] share`). */
  shared?: readonly SharedDir[];
  /** The race's port blocks: the baseline's checks get a block of their own (HYDRA_PORT); absent: none. */
  ports?: PortLeases;
  /** The race's setup commands, run in the baseline's checkout first (src/engine/setup). */
  setup?: SetupPlan | null;
  /** Where its setup and checks run when the agents' run in their image (container/exec.ts); null or absent: here. */
  container?: CommandContainer | null;
}

export interface BaselineOutput {
  checks: CheckRun[];
  /** Why the baseline could not run, or null. */
  error: string | null;
}

const baselineWorktreeDir = (runDir: string): string => path.join(runDir, '.baseline');

/**
 * Creates the baseline worktree (a clean checkout of the base: runChecksOnCommit), runs the checks
 * there, removes it. Never throws.
 */
export async function runBaseline(input: BaselineInput, signal: AbortSignal): Promise<BaselineOutput> {
  try {
    const port = input.ports === undefined ? null : await input.ports.lease(BASELINE_LEASE);
    const checks = await runChecksOnCommit(input.checks, {
      repoRoot: input.repoRoot,
      commit: input.baseRef,
      dir: baselineWorktreeDir(input.runDir),
      area: input.runDir,
      runId: input.runId,
      owner: BASELINE_OWNER,
      identity: { agent: BASELINE_AGENT, port },
      processes: input.processes,
      slots: input.slots,
      graceMs: input.graceMs,
      signal,
      ...(input.secrets === undefined ? {} : { secrets: input.secrets }),
      ...(input.copy === undefined ? {} : { copy: input.copy }),
      ...(input.shared === undefined ? {} : { shared: input.shared }),
      ...(input.setup === undefined ? {} : { setup: input.setup }),
      container: input.container ?? null,
    });
    return { checks, error: null };
  } catch (error) {
    // A failed setup says so (its kind, its hint): the checks are then compared with no baseline.
    if (error instanceof HydraError && error.kind === 'SetupFailed')
      return { checks: [], error: `SetupFailed: ${error.message}\n${error.hint}` };
    return { checks: [], error: error instanceof Error ? error.message : String(error) };
  } finally {
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
