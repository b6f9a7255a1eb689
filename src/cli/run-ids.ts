/** Finding the repository and a run by id (or a unique prefix of one). */
import { findRepoRoot } from '../engine/index.js';
import { listRuns } from '../engine/index.js';
import type { RunListEntry } from '../engine/index.js';
import { CommandError } from './errors.js';

export function requireRepo(cwd: string): string {
  const root = findRepoRoot(cwd);
  if (root === null) {
    throw new CommandError(`not a git repository: ${cwd}`, 'run hydra inside the repository you raced in');
  }
  return root;
}

export async function resolveRun(repoRoot: string, given: string): Promise<RunListEntry> {
  const runs = await listRuns(repoRoot);
  const exact = runs.find((run) => run.runId === given);
  if (exact) return exact;
  const matches = runs.filter((run) => run.runId.startsWith(given));
  const [only] = matches;
  if (matches.length === 1 && only) return only;
  if (matches.length > 1) {
    throw new CommandError(
      `run id "${given}" is ambiguous: ${matches.map((run) => run.runId).join(', ')}`,
      'give more of the id; list run ids with: hydra runs',
    );
  }
  const none = runs.length === 0 ? 'this repository has no hydra runs' : 'list run ids with: hydra runs';
  throw new CommandError(`no run "${given}" in ${repoRoot}`, none);
}
