/**
 * The index of the repositories hydra raced in, for `hydra stats --all`: one absolute path a line
 * in `$XDG_DATA_HOME/hydra/repositories` (else `~/.local/share/hydra/repositories`), appended as a
 * race writes its record (one `O_APPEND` write, so two races at once cannot tear a line) and read
 * back without duplicates. A repository that is gone is skipped where it is read.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** hydra's data directory: `$XDG_DATA_HOME/hydra`, else `~/.local/share/hydra`. */
export const dataDir = (env: NodeJS.ProcessEnv = process.env): string => {
  const xdg = env['XDG_DATA_HOME'];
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'hydra');
  return path.join(env['HOME'] ?? os.homedir(), '.local', 'share', 'hydra');
};

export const repositoryIndexPath = (env: NodeJS.ProcessEnv = process.env): string =>
  path.join(dataDir(env), 'repositories');

/** The repositories in the index, each once, in the order first raced in. */
export const indexedRepositories = (env: NodeJS.ProcessEnv = process.env): string[] => {
  let text: string;
  try {
    text = readFileSync(repositoryIndexPath(env), 'utf8');
  } catch {
    return [];
  }
  const seen = new Set<string>();
  for (const line of text.split('\n')) if (path.isAbsolute(line)) seen.add(line);
  return [...seen];
};

/**
 * Adds a repository to the index unless it is there already. Never fails a race: an index that
 * cannot be written (a read-only home) only leaves `hydra stats --all` without this repository.
 */
export const rememberRepository = (repoRoot: string, env: NodeJS.ProcessEnv = process.env): void => {
  if (repoRoot.includes('\n') || indexedRepositories(env).includes(repoRoot)) return;
  try {
    mkdirSync(dataDir(env), { recursive: true, mode: 0o700 });
    appendFileSync(repositoryIndexPath(env), `${repoRoot}\n`, { mode: 0o600 });
  } catch {
    // The ledger of this repository is still in its own records.
  }
};
