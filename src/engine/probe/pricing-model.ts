/**
 * The model a run is priced with when hydra.toml names none: the CLI's own config (an adapter's
 * `modelConfig`, e.g. Codex's `model` in `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`),
 * else the model the CLI runs by default (`defaultModel`). A config that cannot be read or parsed
 * counts as absent: the run is then priced with the default, never failed for it.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { AgentAdapter } from '../../adapters/types.js';

const configuredModel = (adapter: AgentAdapter, env: NodeJS.ProcessEnv): string | undefined => {
  const where = adapter.modelConfig;
  if (where === undefined) return undefined;
  const envHome = env[where.homeEnv];
  const home =
    envHome !== undefined && envHome !== '' ? envHome : path.join(env.HOME ?? homedir(), where.homeDir);
  try {
    const value = parseToml(readFileSync(path.join(home, where.file), 'utf8'))[where.key];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  } catch {
    return undefined;
  }
};

/** The model to price with: the configured one, else the CLI's own config, else its default. */
export const pricingModel = (
  adapter: AgentAdapter,
  configured: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined => configured ?? configuredModel(adapter, env) ?? adapter.defaultModel;
