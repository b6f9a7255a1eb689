/**
 * How the user can run this hydra again, from wherever they are: `hydra` when that name on PATH is
 * this installation, else `node <its entry>`; and what to tell someone who has not installed it.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../demo/fake-scenario.js';
import { shellQuote } from './shell-quote.js';

export interface HydraCommand {
  /** A command that runs this hydra from any directory. */
  command: string;
  /** Whether `hydra` on PATH is this installation. */
  onPath: boolean;
  /** The package's directory (a checkout, or where npm installed it). */
  root: string;
}

const realOrNull = (file: string): string | null => {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
};

/** The `hydra` that PATH finds first, if any. */
const hydraOnPath = (env: NodeJS.ProcessEnv): string | null => {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'hydra');
    try {
      accessSync(candidate, constants.F_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return null;
};

export function hydraCommand(env: NodeJS.ProcessEnv): HydraCommand {
  const root = packageRoot();
  const entry = path.join(root, 'dist', 'cli', 'main.js');
  const found = hydraOnPath(env);
  const onPath = found !== null && realOrNull(found) === realOrNull(entry);
  return { command: onPath ? 'hydra' : `node ${shellQuote(entry)}`, onPath, root };
}

/** The demo's last line: what to run next, as a command that works from where the user is. */
export function nextStepLine(env: NodeJS.ProcessEnv, cwd: string): string {
  const { onPath, root } = hydraCommand(env);
  if (onPath)
    return 'hydra demo: next, in a repository of your own: hydra doctor, then hydra race "<prompt>"';
  const relative = path.relative(root, cwd);
  if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative)))
    return 'hydra demo: hydra is not on your PATH; from this checkout run npx hydra doctor, or install it with: npm install -g .';
  return `hydra demo: hydra is not on your PATH; install it with: npm install -g ${shellQuote(root)} (then hydra doctor)`;
}
