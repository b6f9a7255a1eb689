/**
 * What a user may call a run on the command line: its id, a unique prefix of it, or `last` for the
 * newest run. Every command that takes a run (show, merge, clean, continue, open, rerun) resolves
 * it here, so the names and the errors are the same everywhere.
 */
import type { RunListEntry } from './record-types.js';
import { EngineError } from '../errors.js';
import { listRuns } from './runs.js';

/** The name of the newest run. */
export const LAST_RUN = 'last';

const LIST_HINT = 'Run `hydra runs` to list the recorded runs.';

/**
 * The run a name stands for. `last` is the newest run whose record is hydra's own (a record
 * committed to the repository is not); an exact id wins over a prefix; a prefix must match one
 * run only. Throws a Refused error naming the candidates or `hydra runs`.
 */
export async function resolveRunName(repoPath: string, given: string): Promise<RunListEntry> {
  const runs = await listRuns(repoPath);
  if (given === LAST_RUN) {
    // By start time: ids order runs by the second they started only (two in one second are
    // ordered by their random part).
    const newest = runs
      .filter((run) => run.state !== 'foreign')
      .reduce<RunListEntry | undefined>(
        (best, run) => (best === undefined || run.startedAt > best.startedAt ? run : best),
        undefined,
      );
    if (newest !== undefined) return newest;
    throw new EngineError({
      kind: 'Refused',
      message: 'There is no run yet in this repository, so `last` names none.',
      hint: LIST_HINT,
    });
  }
  const exact = runs.find((run) => run.runId === given);
  if (exact !== undefined) return exact;
  const matches = given === '' ? [] : runs.filter((run) => run.runId.startsWith(given));
  const [only] = matches;
  if (only !== undefined && matches.length === 1) return only;
  if (matches.length > 1) {
    throw new EngineError({
      kind: 'Refused',
      message: `Run "${given}" is ambiguous: it starts ${matches.length} run ids (${matches.map((run) => run.runId).join(', ')}).`,
      hint: 'Give more of the id (or `last` for the newest run).',
    });
  }
  throw new EngineError({
    kind: 'Refused',
    message:
      runs.length === 0
        ? `No run "${given}": this repository has no hydra runs.`
        : `No run "${given}" in this repository.`,
    hint: `${LIST_HINT} A unique prefix of an id, or \`last\`, is enough.`,
  });
}
