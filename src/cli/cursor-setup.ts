/** The race's setup commands from `.cursor/worktrees.json` (src/engine/setup/cursor.ts), for `race` and later rounds. */
import { findRepoRoot, raceSetup } from '../engine/index.js';
import type { RaceOptions } from '../engine/index.js';

/**
 * The race's setup with the repository's `.cursor/worktrees.json` considered (raceSetup): its
 * commands when hydra.toml has no `[setup] run` and the file is trusted. Returns the warning to give.
 */
export function withCursorSetup(options: RaceOptions, env: NodeJS.ProcessEnv): string | null {
  const root = findRepoRoot(options.repoPath);
  if (root === null || options.setup === undefined) return null;
  const resolved = raceSetup(options.setup, root, env);
  options.setup = resolved.setup;
  return resolved.warning;
}
