/**
 * Endpoints a CLI's own configuration names (issue 35, honest set-ups): a Codex provider's
 * `base_url` in `$CODEX_HOME/config.toml` or in `-c model_providers.<id>.base_url=…` among the
 * agent's extra arguments, the `env` block of Claude Code's settings, Gemini CLI's and Qwen Code's
 * `.env` and settings, opencode's providers. They join the sandbox's allowlist, as the base URLs
 * of the environment do. Read from the user's configuration (the state the agent's copy was made
 * from), never from the agent's copy: what an agent writes there opens nothing in a later round.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AgentAdapter } from '../../adapters/types.js';
import { stateDirPath } from './cli-state.js';

/** A key that names an endpoint (base_url, baseURL, ANTHROPIC_BASE_URL), then its URL. */
const ASSIGNED_URL = /base_?url["']?\s*[=:]\s*["']?(https?:\/\/[^\s"',}]+)/gi;

/** Larger files are not configuration. */
const MAX_BYTES = 1_000_000;

/** The URLs assigned to endpoint keys in `text`: JSON, TOML (inline tables too), `.env`, a `-c` value. */
export const assignedUrls = (text: string): string[] =>
  [...text.matchAll(ASSIGNED_URL)].map((match) => match[1] ?? '').filter((url) => url !== '');

const readSmall = (file: string): string => {
  try {
    const stat = statSync(file);
    return stat.isFile() && stat.size <= MAX_BYTES ? readFileSync(file, 'utf8') : '';
  } catch {
    return '';
  }
};

/**
 * What `found` reads in the agent's configuration: its extra arguments, and its CLI's files in the
 * state directories of `env` and `home` (the user's, or the `[agents.X] env` HOME's), once each.
 */
function fromConfiguration(
  adapter: AgentAdapter,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  extraArgs: readonly string[],
  found: (text: string) => string[],
): string[] {
  const fromFiles = (adapter.endpointFiles ?? []).flatMap((entry) => {
    const dir = (adapter.stateDirs ?? []).find((state) => state.path === entry.state);
    if (dir === undefined) return [];
    return found(readSmall(path.join(stateDirPath(dir, env, home), entry.file)));
  });
  return [...new Set([...extraArgs.flatMap((arg) => found(arg)), ...fromFiles])];
}

/** The URLs the agent's configuration names (its extra arguments, its CLI's endpoint files). */
export const configuredEndpoints = (
  adapter: AgentAdapter,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  extraArgs: readonly string[],
): string[] => fromConfiguration(adapter, env, home, extraArgs, assignedUrls);

/** `env_key = "NAME"` (a Codex provider's key variable, TOML or a `-c` value), `{env:NAME}` (opencode). */
const NAMED_VARIABLE =
  /env_key["']?\s*[=:]\s*["']?([A-Za-z_][A-Za-z0-9_]*)|\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The names of the variables `text` says a provider's key is read from. */
export const namedVariables = (text: string): string[] =>
  [...text.matchAll(NAMED_VARIABLE)].map((match) => match[1] ?? match[2] ?? '').filter((name) => name !== '');

/**
 * The variables the agent's configuration reads a key from (its extra arguments and its CLI's
 * endpoint files, as configuredEndpoints reads them): a provider configured to take its key from
 * `MY_KEY` gets `MY_KEY` from hydra's environment, which the allowlist would otherwise keep out.
 */
export const configuredVariables = (
  adapter: AgentAdapter,
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  extraArgs: readonly string[],
): string[] => fromConfiguration(adapter, env, home, extraArgs, namedVariables);
