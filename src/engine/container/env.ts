/**
 * The environment of an agent's container: its plan's and command's variables, and the user's
 * variables its CLI reads for credentials and endpoints, each passed as `-e NAME` with the value in
 * the docker CLI's own environment (never on a command line, never in an image). PATH and HOME are
 * the image's and the home volume's, not this machine's.
 */
import { listAdapters } from '../../adapters/registry.js';
import { CONTAINER_HOME } from './types.js';

/** The user's variables a CLI reads for its credentials and endpoints (ANTHROPIC_API_KEY, OPENAI_BASE_URL...). */
const PASSED =
  /^(ANTHROPIC|OPENAI|CODEX|CLAUDE|CLAUDE_CODE|GEMINI|GOOGLE|CURSOR|QWEN|DASHSCOPE|OPENROUTER|AZURE_OPENAI|MISTRAL|DEEPSEEK|XAI|GROQ|OPENCODE)_[A-Z0-9_]+$/;

/** Never passed: they name this machine's paths. */
const HOST_ONLY = new Set(['PATH', 'HOME', 'PWD', 'TMPDIR', 'SHELL', 'USER', 'LOGNAME']);

/**
 * Never passed from the user's environment: the variables that move a CLI's state directory
 * (CODEX_HOME, CLAUDE_CONFIG_DIR), which name a directory of this machine. In a container the
 * state is on the agent's home volume (Codex refuses to start when CODEX_HOME does not exist).
 */
const STATE_DIR_VARIABLES = new Set(
  listAdapters().flatMap((adapter) => (adapter.stateDirs ?? []).flatMap((dir) => dir.env ?? [])),
);

/** The names of the user's variables a container agent gets. */
export const passedEnvNames = (env: NodeJS.ProcessEnv = process.env): string[] =>
  Object.keys(env)
    .filter((name) => PASSED.test(name) && !STATE_DIR_VARIABLES.has(name) && env[name] !== undefined)
    .sort();

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
