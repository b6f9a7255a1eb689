/**
 * What adapters declare about the user's environment, read one way for every consumer: which
 * variables a CLI reads (its keys, base URLs and families of settings) and which ones move its
 * state directory. Pure: names in, answers out; nothing here reads the environment.
 */
import type { AgentAdapter } from './types.js';

/** What follows a family's prefix in a variable's name (`CLAUDE_` + `CODE_MAX_RETRIES`). */
const NAME_TAIL = /^[A-Z0-9_]+$/;

/** Whether the CLI reads `name` from the user's environment: a key or base URL it names, or one of its families. */
export const readsEnv = (adapter: AgentAdapter, name: string): boolean =>
  (adapter.environment?.keys ?? []).includes(name) ||
  (adapter.api?.baseUrlEnv ?? []).includes(name) ||
  (adapter.environment?.prefixes ?? []).some(
    (prefix) => name.startsWith(prefix) && NAME_TAIL.test(name.slice(prefix.length)),
  );

/** The variables that move the CLI's state directories (CODEX_HOME, CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME). */
export const stateDirVariables = (adapter: AgentAdapter): string[] => [
  ...new Set((adapter.stateDirs ?? []).flatMap((dir) => (dir.env === undefined ? [] : [dir.env]))),
];
