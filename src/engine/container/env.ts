/**
 * The environment of an agent's container: its plan's and command's variables, and the user's
 * variables its CLI reads for credentials and endpoints, each passed as `-e NAME` with the value in
 * the docker CLI's own environment (never on a command line, never in an image). PATH and HOME are
 * the image's and the home volume's, not this machine's.
 */
import { readsEnv, stateDirVariables } from '../../adapters/environment.js';
import { listAdapters } from '../../adapters/registry.js';
import type { AgentAdapter } from '../../adapters/types.js';
import { CONTAINER_HOME } from './types.js';

/** Never passed: they name this machine's paths. */
const HOST_ONLY = new Set(['PATH', 'HOME', 'PWD', 'TMPDIR', 'SHELL', 'USER', 'LOGNAME']);

/**
 * The names of the user's variables a container agent gets: those its CLI reads for credentials,
 * endpoints and settings, as each adapter declares them (`environment`, `api.baseUrlEnv`), for
 * `adapters` (every registered one unless told). Never the variables that move any CLI's state
 * directory (CODEX_HOME, CLAUDE_CONFIG_DIR), which name a directory of this machine: in a container
 * the state is on the agent's home volume (Codex refuses to start when CODEX_HOME does not exist).
 */
export const passedEnvNames = (
  env: NodeJS.ProcessEnv = process.env,
  adapters: readonly AgentAdapter[] = listAdapters(),
): string[] => {
  const stateDirs = new Set(listAdapters().flatMap(stateDirVariables));
  return Object.keys(env)
    .filter(
      (name) =>
        env[name] !== undefined &&
        !stateDirs.has(name) &&
        adapters.some((adapter) => readsEnv(adapter, name)),
    )
    .sort();
};

/**
 * The variables the container gets: `values` for the docker CLI's environment and `args` (`-e NAME`
 * each). `own` (the command's and the plan's) win over the user's.
 */
export function containerEnv(
  own: Record<string, string>,
  passEnv: readonly string[],
  extra: Record<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): { values: Record<string, string>; args: string[] } {
  const values: Record<string, string> = {};
  for (const name of passEnv) {
    const value = env[name];
    if (value !== undefined) values[name] = value;
  }
  for (const [name, value] of Object.entries(own)) if (!HOST_ONLY.has(name)) values[name] = value;
  Object.assign(values, { HOME: CONTAINER_HOME }, extra);
  return { values, args: Object.keys(values).flatMap((name) => ['-e', name]) };
}
