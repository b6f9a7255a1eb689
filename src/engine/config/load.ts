/**
 * Reading the config that applies: the file located (locate.ts), parsed (parse.ts), a relative
 * `binary` resolved from the file's directory, and a repository's file the user has not trusted
 * loaded without its executing keys (trust-filter.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { displayPath, locateConfig, userConfigPath } from './locate.js';
import { parseConfigText } from './parse.js';
import type { AgentConfig, HydraConfig } from './schema.js';
import { isTrusted, userConfigDirOf } from './trust.js';
import { withoutExecutingKeys } from './trust-filter.js';
import { isPathLike } from '../probe/index.js';

export interface LoadedConfig {
  /** Absolute path of the file read, or null when none exists (defaults apply). */
  path: string | null;
  /** Where it came from: `--config`, the repository, or the user's config dir. */
  source: 'flag' | 'repository' | 'user' | null;
  /**
   * False for a repository's hydra.toml the user has not trusted (`hydra trust`): its executing
   * keys (EXECUTING_KEYS) were left out of `config` and are named in `ignored`.
   */
  trusted: boolean;
  /** Key paths left out until the file is trusted, e.g. `agents.claude.binary`. */
  ignored: string[];
  config: HydraConfig;
}

export interface LoadConfigOptions {
  /** The directory hydra runs in (any directory inside the repository). */
  cwd: string;
  /** `--config <file>`: must exist. */
  explicitPath?: string;
  /**
   * The file a run record says its race used (`hydra continue` without --config). A record is
   * data: this file is trusted as a repository's is (`hydra trust`), unless it is the user's own.
   */
  recordedPath?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Reads the config that applies. A repository's hydra.toml the user has not trusted loads without
 * its executing keys (see trust.ts); a relative `binary` resolves from the file's directory.
 */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const path = locateConfig(options);
  if (path === null) return { path: null, source: null, trusted: true, ignored: [], config: {} };
  const display = displayPath(path, options.cwd);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const reason = readFailure(error as NodeJS.ErrnoException);
    throw new ConfigError([`${display}: cannot read the config file (${reason}); check the --config path`]);
  }
  const parsed = resolveBinaryPaths(parseConfigText(bytes.toString('utf8'), display), dirname(path));
  const userConfig = userConfigPath(options.env);
  const source = options.explicitPath !== undefined ? 'flag' : path === userConfig ? 'user' : 'repository';
  const trusted = source !== 'repository' || isTrusted(userConfigDirOf(userConfig), path, bytes);
  if (trusted) return { path, source, trusted, ignored: [], config: parsed };
  const { config, ignored } = withoutExecutingKeys(parsed);
  return { path, source, trusted, ignored, config };
}

/** A `binary` that is a path (it has a separator) and relative resolves from the config file's directory. */
function resolveBinaryPaths(config: HydraConfig, configDir: string): HydraConfig {
  if (config.agents === undefined) return config;
  const agents: Record<string, AgentConfig | undefined> = {};
  for (const [id, agent] of Object.entries(config.agents as Record<string, AgentConfig | undefined>)) {
    if (agent === undefined) continue;
    const binary = agent.binary;
    agents[id] =
      binary !== undefined && isPathLike(binary) && !isAbsolute(binary)
        ? { ...agent, binary: resolve(configDir, binary) }
        : agent;
  }
  return { ...config, agents: agents as HydraConfig['agents'] };
}

function readFailure(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'no such file';
  if (error.code === 'EISDIR') return 'it is a directory, not a file';
  if (error.code === 'EACCES') return 'permission denied';
  return error.message;
}
