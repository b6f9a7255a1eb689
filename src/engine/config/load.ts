/**
 * Reading the config that applies: `--config` alone; else the repository's hydra.toml (or the one a
 * run record names) layered over the user's own (layer.ts), the repository's without the keys that
 * widen what runs until the user trusts it (trust-filter.ts); else the user's own. A relative
 * `binary` resolves from its file's directory.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isPathLike } from '../probe/index.js';
import { ConfigError } from './config-error.js';
import { layerConfigs } from './layer.js';
import { displayPath, isFile, repositoryConfigPath, userConfigPath } from './locate.js';
import { parseConfigText } from './parse.js';
import type { AgentConfig, HydraConfig } from './schema.js';
import { inRepositoryOf, linkedOutside, trustState, userConfigDirOf } from './trust.js';
import { containerRunnerKeys, untrustedConfigWarning, withoutExecutingKeys } from './trust-filter.js';
import type { TrustProblem } from './trust-filter.js';

export interface LoadedConfig {
  /** Absolute path of the most specific file read (the repository's over the user's), or null. */
  path: string | null;
  /** Where it came from: `--config`, the repository, or the user's config dir. */
  source: 'flag' | 'repository' | 'user' | null;
  /** The user's own file under a repository's, when both were read. */
  userPath: string | null;
  /**
   * False for a repository's hydra.toml the user has not trusted (`hydra trust`): its keys that
   * widen what runs (TRUSTED_ONLY_KEYS) were left out of `config` and are named in `ignored`.
   */
  trusted: boolean;
  /** Why it is not trusted (absent when it is). */
  why?: TrustProblem;
  /** Key paths left out until the file is trusted, e.g. `agents.claude.binary`. */
  ignored: string[];
  /** Of those, the ones that asked for agents in containers (`race.runner = "container"`); absent: none. */
  containerIgnored?: string[];
  /** What layering refused (a change to one of the user's checks, a higher budget), for the user. */
  notes: string[];
  config: HydraConfig;
}

export interface LoadConfigOptions {
  /** The directory hydra runs in (any directory inside the repository). */
  cwd: string;
  /** `--config <file>`: must exist; it is the whole config. */
  explicitPath?: string;
  /**
   * The file a run record says its race used (`hydra continue` without --config). A record is
   * data: this file is trusted as a repository's is (`hydra trust`), only inside the repository,
   * unless it is the user's own.
   */
  recordedPath?: string;
  env?: NodeJS.ProcessEnv;
}

interface ReadFile {
  path: string;
  bytes: Buffer;
  config: HydraConfig;
}

/** One file, parsed, with its relative binaries resolved from its directory. */
function readConfigFile(path: string, cwd: string): ReadFile {
  const display = displayPath(path, cwd);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const reason = readFailure(error as NodeJS.ErrnoException);
    throw new ConfigError({
      problems: [`${display}: cannot read the config file (${reason}); check the --config path`],
    });
  }
  const config = resolveBinaryPaths(parseConfigText(bytes.toString('utf8'), display), dirname(path));
  return { path, bytes, config };
}

const NOTHING = { userPath: null, trusted: true, ignored: [], notes: [] } as const;

/** Reads the config that applies (see the top of this file). */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const { cwd } = options;
  if (options.explicitPath !== undefined) {
    const file = readConfigFile(resolve(cwd, options.explicitPath), cwd);
    return { ...NOTHING, ignored: [], notes: [], path: file.path, source: 'flag', config: file.config };
  }
  const userFile = userConfigPath(options.env);
  const user = isFile(userFile) ? readConfigFile(userFile, cwd) : null;
  const repoPath =
    options.recordedPath !== undefined ? resolve(cwd, options.recordedPath) : repositoryConfigPath(cwd);
  if (repoPath === null || repoPath === userFile) {
    if (user === null) return { ...NOTHING, ignored: [], notes: [], path: null, source: null, config: {} };
    return { ...NOTHING, ignored: [], notes: [], path: user.path, source: 'user', config: user.config };
  }
  const repo = readConfigFile(repoPath, cwd);
  const why = repositoryTrust(repo, cwd, userConfigDirOf(userFile));
  const base = user?.config ?? {};
  const filtered =
    why === null ? { config: repo.config, ignored: [] } : withoutExecutingKeys(repo.config, base);
  const layered =
    user === null
      ? { config: filtered.config, notes: [] }
      : layerConfigs(base, filtered.config, {
          user: displayPath(user.path, cwd),
          repo: displayPath(repo.path, cwd),
        });
  return {
    path: repo.path,
    source: 'repository',
    userPath: user?.path ?? null,
    trusted: why === null,
    ...(why === null ? {} : { why }),
    ignored: filtered.ignored,
    ...(why === null || containerRunnerKeys(repo.config).length === 0
      ? {}
      : { containerIgnored: containerRunnerKeys(repo.config) }),
    notes: layered.notes,
    config: layered.config,
  };
}

/** Null when the repository's file is trusted, else why not. */
function repositoryTrust(file: ReadFile, cwd: string, store: string): TrustProblem | null {
  const target = linkedOutside(file.path);
  if (target !== null) return { kind: 'outside', target };
  if (!inRepositoryOf(file.path, cwd)) return { kind: 'outside', target: null };
  const state = trustState(store, file.path, file.bytes);
  return state === 'trusted' ? null : { kind: state };
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

/** Everything the user should hear about the config read: the untrusted keys left out, then each note. */
export function configWarnings(loaded: LoadedConfig, cwd: string): string[] {
  const untrusted = untrustedConfigWarning(loaded, cwd);
  return [...(untrusted === null ? [] : [untrusted]), ...loaded.notes];
}
