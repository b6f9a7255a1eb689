/** Where the CLI keeps things outside the repository. */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { defaultCacheDir } from '../engine/index.js';

/** The probe cache: the engine's default inside a repository, else `$XDG_CACHE_HOME/hydra`. */
export function probeCacheDir(repoRoot: string | null, env: NodeJS.ProcessEnv): string {
  if (repoRoot !== null) return defaultCacheDir(repoRoot);
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.cache'), 'hydra');
}
