/** Finding the repository a command works in (runs are named through the engine's resolveRunName). */
import { findRepoRoot } from '../engine/index.js';
import { CommandError } from './errors.js';

export function requireRepo(cwd: string): string {
  const root = findRepoRoot(cwd);
  if (root === null) {
    throw new CommandError({
      message: `not a git repository: ${cwd}`,
      hint: 'run hydra inside the repository you raced in',
    });
  }
  return root;
}
