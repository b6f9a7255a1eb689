/** Where hydra.toml files are: the repository's root, the user's config dir; paths as the user reads them. */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { CONFIG_FILE_NAME } from './schema.js';

/** The repository root above `start` (a directory holding `.git`), or null outside a repository. */
export function findRepoRoot(start: string): string | null {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The user-level config file: `$XDG_CONFIG_HOME/hydra/hydra.toml`, else `~/.config/hydra/hydra.toml`. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
  return join(base, 'hydra', CONFIG_FILE_NAME);
}

/** The config file that applies most: `--config`, else `<repo root>/hydra.toml`, else the user-level one. */
export function locateConfig(options: {
  cwd: string;
  explicitPath?: string | undefined;
  recordedPath?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}): string | null {
  if (options.explicitPath !== undefined) return resolve(options.cwd, options.explicitPath);
  if (options.recordedPath !== undefined) return resolve(options.cwd, options.recordedPath);
  const inRepo = repositoryConfigPath(options.cwd);
  if (inRepo !== null) return inRepo;
  const user = userConfigPath(options.env);
  return isFile(user) ? user : null;
}

/** `<repo root>/hydra.toml` when the repository has one. */
export function repositoryConfigPath(cwd: string): string | null {
  const root = findRepoRoot(cwd);
  if (root === null) return null;
  const inRepo = join(root, CONFIG_FILE_NAME);
  return isFile(inRepo) ? inRepo : null;
}

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A path as the user would recognise it: relative to cwd when inside it, absolute otherwise. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
