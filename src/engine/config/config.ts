/**
 * hydra.toml: finding it, parsing it (smol-toml), validating it (zod), and merging it with the
 * command-line flags into RaceOptions. It lives in the engine because it reads files.
 *
 * Errors are ConfigError: one line per problem, naming the file, the key path and what is allowed,
 * e.g. `hydra.toml: agents.codex.idle_timeout_s must be a positive number (got "soon")`.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { adapterIds, adapterOf, getAdapter } from '../../adapters/registry.js';
import { agentTableProblems, expandAgentList, tableAdapter } from './agents.js';
import { agentCheckProblems, checksOfAgent } from './agent-checks.js';
import type { ListedAgent } from './agents.js';
import type { AdapterId, ModelPrice, PriceTable } from '../../adapters/types.js';
import { ConfigError } from './config-error.js';
import { closest } from './did-you-mean.js';
import { EXECUTING_KEYS, TOP_LEVEL_EXECUTING_KEYS, isTrusted, userConfigDirOf } from './trust.js';
import { DEFAULT_SCORE_WEIGHTS } from '../checks/index.js';
import type { ScoreWeights } from '../checks/index.js';
import type { AgentPlan, CheckSpec, RaceOptions } from '../types.js';

const CONFIG_FILE_NAME = 'hydra.toml';

export const CONFIG_DEFAULTS = {
  timeoutS: 1800,
  idleTimeoutS: 300,
  keepWorktrees: false,
  allowExperimentalAdapters: false,
  /** A check's time limit when `timeout_s` is not given. */
  checkTimeoutS: 600,
} as const;

// ---------------------------------------------------------------------------------------------
// Schema

const POSITIVE = 'must be a positive number of seconds';
const NON_NEGATIVE = 'must be a number of seconds, 0 or more (0 = no limit)';
const BOOLEAN = 'must be true or false';
const NON_EMPTY = 'must be a non-empty string';
const PRICE = 'must be a number of USD per million tokens, 0 or more';

const positiveSeconds = z
  .number({ error: POSITIVE })
  .positive({ error: POSITIVE })
  .finite({ error: POSITIVE });
const nonNegativeSeconds = z
  .number({ error: NON_NEGATIVE })
  .min(0, { error: NON_NEGATIVE })
  .finite({ error: NON_NEGATIVE });
const bool = z.boolean({ error: BOOLEAN });
const nonEmpty = z.string({ error: NON_EMPTY }).trim().min(1, { error: NON_EMPTY });
const price = z.number({ error: PRICE }).min(0, { error: PRICE }).finite({ error: PRICE });
const USD = 'must be a number of USD, more than 0';
const usd = z.number({ error: USD }).positive({ error: USD }).finite({ error: USD });
const WEIGHT = 'must be a weight, 0 or more';
const weight = z.number({ error: WEIGHT }).min(0, { error: WEIGHT }).finite({ error: WEIGHT });
const COUNT = 'must be a whole number, 1 or more';
const count = z.number({ error: COUNT }).int({ error: COUNT }).min(1, { error: COUNT });
const POOL =
  'must be how many worktrees to keep between races: a whole number from 0 (no pool) to 64, e.g. worktree_pool = 4';
const poolSize = z
  .number({ error: POOL })
  .int({ error: POOL })
  .min(0, { error: POOL })
  .max(64, { error: POOL });

/** `[race]`: `agents` is checked against the adapters and the agent tables when a race is resolved. */
const raceSchema = () =>
  z.strictObject(
    {
      agents: z
        .array(nonEmpty, {
          error:
            'must be a list of agent names (an adapter, a [agents.<name>] table, <adapter>:<model>, <name>*<n>)',
        })
        .min(1, { error: 'must name at least one agent (or leave the key out for the default set)' })
        .optional(),
      timeout_s: nonNegativeSeconds.optional(),
      idle_timeout_s: positiveSeconds.optional(),
      keep_worktrees: bool.optional(),
      allow_experimental_adapters: bool.optional(),
      max_cost_usd: usd.optional(),
      check_concurrency: count.optional(),
      worktree_pool: poolSize.optional(),
    },
    { error: 'must be a table of settings: [race] followed by key = value lines' },
  );

/** `[[checks]]`: a command run in every completed result and on the base commit. */
const checkNameSchema = nonEmpty.regex(/^[A-Za-z0-9._-]+$/, {
  error: 'must be a short name: letters, digits, . _ -',
});

/**
 * `[[agents.<name>.checks]]`: the fields of `[[checks]]`; `run` may be left out when the name is a
 * race-wide check's (then only its timeout_s or gate changes). See agent-checks.ts.
 */
const agentCheckSchema = z.strictObject(
  {
    name: checkNameSchema,
    run: nonEmpty.optional(),
    timeout_s: nonNegativeSeconds.optional(),
    gate: bool.optional(),
  },
  {
    error:
      "must be a table: [[agents.<name>.checks]] with name, and run (optional for a race-wide check's name), timeout_s, gate",
  },
);

const agentSchema = z.strictObject(
  {
    /** The CLI a named agent runs; without it the table's name is the adapter's id (or alias). */
    adapter: nonEmpty.optional(),
    enabled: bool.optional(),
    binary: nonEmpty.optional(),
    model: nonEmpty.optional(),
    extra_args: z
      .array(z.string({ error: 'must be a string' }), { error: 'must be a list of strings' })
      .optional(),
    env: z
      .record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be a table of strings' })
      .optional(),
    idle_timeout_s: positiveSeconds.optional(),
    max_cost_usd: usd.optional(),
    /** This agent's checks: overrides of race-wide ones (by name) and its own. */
    checks: z
      .array(agentCheckSchema, { error: 'must be a list of [[agents.<name>.checks]] tables' })
      .optional(),
  },
  { error: 'must be a table of settings: [agents.<name>] followed by key = value lines' },
);

const checkSchema = z.strictObject(
  {
    name: checkNameSchema,
    run: nonEmpty,
    timeout_s: nonNegativeSeconds.optional(),
    gate: bool.optional(),
  },
  { error: 'must be a table: [[checks]] with name and run (and optional timeout_s, gate)' },
);

/** `[score]`: the weights of the score's parts, and the paths agents may change. */
const scoreSchema = z.strictObject(
  {
    checks: weight.optional(),
    tests: weight.optional(),
    diff: weight.optional(),
    scope: weight.optional(),
    duration: weight.optional(),
    cost: weight.optional(),
    allowed_paths: z
      .array(nonEmpty, { error: 'must be a list of path patterns, e.g. ["src/**", "test/**"]' })
      .optional(),
  },
  {
    error:
      'must be a table: [score] with weights (checks, tests, diff, scope, duration, cost) and allowed_paths',
  },
);

const priceSchema = z.strictObject(
  {
    input_per_mtok: price,
    output_per_mtok: price,
    cache_read_per_mtok: price.optional(),
    cache_write_per_mtok: price.optional(),
  },
  { error: 'must be a table: [prices."<model>"] with input_per_mtok and output_per_mtok' },
);

/** `[agents.<name>]`: one table per agent; names and adapters are checked by agentTableProblems. */
const agentsSchema = () =>
  z.record(z.string(), agentSchema, {
    error: 'must hold one table per agent: [agents.<name>] followed by key = value lines',
  });

/** The schema of a hydra.toml. */
const configSchema = () =>
  z.strictObject({
    race: raceSchema().optional(),
    agents: agentsSchema().optional(),
    prices: z
      .record(z.string(), priceSchema, { error: 'must be a table of [prices."<model>"] tables' })
      .optional(),
    checks: z
      .array(checkSchema, { error: 'must be a list of [[checks]] tables' })
      .superRefine((checks, ctx) => {
        const seen = new Set<string>();
        for (const [index, check] of checks.entries()) {
          if (seen.has(check.name))
            ctx.addIssue({
              code: 'custom',
              path: [index, 'name'],
              message: `names ${check.name} twice; each check needs its own name`,
            });
          seen.add(check.name);
        }
      })
      .optional(),
    score: scoreSchema.optional(),
  });

export type HydraConfig = z.infer<ReturnType<typeof configSchema>>;
type AgentConfig = z.infer<typeof agentSchema>;

type KeyTable = 'root' | 'race' | 'agent' | 'agentCheck' | 'price' | 'check' | 'score';

/** Known keys per table, for unknown-key messages with a did-you-mean. */
const knownKeys = (schema: ReturnType<typeof configSchema>): Record<KeyTable, readonly string[]> => ({
  root: Object.keys(schema.shape),
  race: Object.keys(schema.shape.race.unwrap().shape),
  agent: Object.keys(agentSchema.shape),
  agentCheck: Object.keys(agentCheckSchema.shape),
  price: Object.keys(priceSchema.shape),
  check: Object.keys(checkSchema.shape),
  score: Object.keys(scoreSchema.shape),
});

// ---------------------------------------------------------------------------------------------
// Parsing and messages

/** Parses and validates the text of a hydra.toml. `displayName` prefixes every message. */
export function parseConfigText(text: string, displayName: string): HydraConfig {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const firstLine = error.message.split('\n')[0] ?? error.message;
      throw new ConfigError([`${displayName}:${error.line}:${error.column}: invalid TOML: ${firstLine}`]);
    }
    throw error;
  }
  const schema = configSchema();
  const result = schema.safeParse(raw, { reportInput: true });
  if (result.success) {
    const tables = result.data.agents ?? {};
    const problems = [
      ...agentTableProblems(tables, displayName),
      ...agentChecksProblems(tables, checkSpecsOf(result.data), {
        file: displayName,
        raceChecks: '[[checks]]',
      }),
    ];
    // race.agents is checked now too, so a bad entry is found by `hydra doctor`, not only by a race.
    if (problems.length === 0 && result.data.race?.agents !== undefined)
      problems.push(
        ...expandAgentList(result.data.race.agents, tables, { source: `${displayName}: race.agents` })
          .problems,
      );
    if (problems.length > 0) throw new ConfigError(problems);
    return result.data;
  }
  const keys = knownKeys(schema);
  throw new ConfigError(result.error.issues.flatMap((issue) => describeIssue(issue, displayName, keys)));
}

/** The problems of every agent's `[[agents.<name>.checks]]` against the race-wide checks. */
const agentChecksProblems = (
  tables: NonNullable<HydraConfig['agents']>,
  raceChecks: readonly CheckSpec[],
  where: { file: string; raceChecks: string },
): string[] =>
  Object.entries(tables).flatMap(([name, table]) =>
    agentCheckProblems(name, table.checks ?? [], raceChecks, where),
  );

function describeIssue(
  issue: z.core.$ZodIssue,
  displayName: string,
  keys: Record<KeyTable, readonly string[]>,
): string[] {
  const path = formatKeyPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(issue.path, keys);
    return issue.keys.map((key) => {
      const full = formatKeyPath([...issue.path, key]);
      const suggestion = closest(key, known);
      const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
      return `${displayName}: unknown key ${full}${hint}; allowed here: ${known.join(', ')}`;
    });
  }
  const got = 'input' in issue && issue.input !== undefined ? ` (got ${describeValue(issue.input)})` : '';
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return [`${displayName}: ${path} is required: it ${issue.message}`];
  }
  return [`${displayName}: ${path || 'the file'} ${issue.message}${got}`];
}

function knownKeysAt(
  path: readonly PropertyKey[],
  keys: Record<KeyTable, readonly string[]>,
): readonly string[] {
  const [first] = path;
  if (path.length === 0) return keys.root;
  if (first === 'race') return keys.race;
  if (first === 'agents') return path[2] === 'checks' ? keys.agentCheck : keys.agent;
  if (first === 'prices') return keys.price;
  if (first === 'checks') return keys.check;
  if (first === 'score') return keys.score;
  return [];
}

/** `agents.codex.idle_timeout_s`, `prices."gpt-5.5".input_per_mtok`, `race.agents[1]`. */
function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else {
      const key = String(part);
      const bare = /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
      out += out === '' ? bare : `.${bare}`;
    }
  }
  return out;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  if (value !== null && typeof value === 'object') return 'a table';
  return String(value);
}

// ---------------------------------------------------------------------------------------------
// Finding and loading

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

/** The config file that applies: `--config`, else `<repo root>/hydra.toml`, else the user-level one. */
export function locateConfig(options: LoadConfigOptions): string | null {
  if (options.explicitPath !== undefined) return resolve(options.cwd, options.explicitPath);
  if (options.recordedPath !== undefined) return resolve(options.cwd, options.recordedPath);
  const root = findRepoRoot(options.cwd);
  if (root !== null) {
    const inRepo = join(root, CONFIG_FILE_NAME);
    if (isFile(inRepo)) return inRepo;
  }
  const user = userConfigPath(options.env);
  return isFile(user) ? user : null;
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

/** The config without the keys that execute something, and the key paths that were removed. */
function withoutExecutingKeys(full: HydraConfig): { config: HydraConfig; ignored: string[] } {
  const ignored: string[] = [];
  const config: HydraConfig = { ...full };
  for (const key of TOP_LEVEL_EXECUTING_KEYS) {
    if (config[key] === undefined) continue;
    delete config[key];
    ignored.push(key);
  }
  if (config.agents === undefined) return { config, ignored };
  const agents: Record<string, AgentConfig | undefined> = {};
  for (const [id, agent] of Object.entries(config.agents as Record<string, AgentConfig | undefined>)) {
    if (agent === undefined) continue;
    const kept: Record<string, unknown> = { ...agent };
    for (const key of EXECUTING_KEYS) {
      if (kept[key] === undefined) continue;
      delete kept[key];
      ignored.push(`agents.${id}.${key}`);
    }
    agents[id] = kept as AgentConfig;
  }
  return { config: { ...config, agents: agents as HydraConfig['agents'] }, ignored };
}

/** What to tell the user about an untrusted repository config, or null when nothing was ignored. */
export function untrustedConfigWarning(loaded: LoadedConfig, cwd: string): string | null {
  if (loaded.trusted || loaded.path === null || loaded.ignored.length === 0) return null;
  const file = displayPath(loaded.path, cwd);
  return (
    `${file} is not trusted, so its ${loaded.ignored.join(', ')} ${loaded.ignored.length === 1 ? 'is' : 'are'} ignored ` +
    `(they run programs); review the file, then run \`hydra trust\` to use ${loaded.ignored.length === 1 ? 'it' : 'them'}`
  );
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

const isPathLike = (command: string): boolean => command.includes('/') || command.includes('\\');

const isExecutable = (file: string): boolean => {
  try {
    if (!statSync(file).isFile()) return false;
    if (process.platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Where a configured binary is: a path as given (already absolute), a name on the env's PATH. */
function findConfiguredBinary(binary: string, env: NodeJS.ProcessEnv): string | null {
  if (isPathLike(binary)) return isExecutable(binary) ? binary : null;
  const pathVariable = env['PATH'] ?? env['Path'] ?? '';
  for (const directory of pathVariable.split(delimiter)) {
    if (directory !== '' && isExecutable(join(directory, binary))) return join(directory, binary);
  }
  return null;
}

/**
 * A configured binary that does not exist is a configuration error naming the key and the path,
 * not a silent fallback to whatever is on PATH (which would race a different CLI).
 */
export function checkConfiguredBinaries(
  agents: readonly AgentPlan[],
  env: NodeJS.ProcessEnv,
  configName = CONFIG_FILE_NAME,
): void {
  const problems: string[] = [];
  for (const plan of agents) {
    if (plan.binary === undefined || findConfiguredBinary(plan.binary, env) !== null) continue;
    const where = isPathLike(plan.binary)
      ? `${plan.binary} does not exist or is not executable`
      : `"${plan.binary}" is not on PATH`;
    problems.push(
      `${configName}: agents.${plan.table ?? plan.name}.binary: ${where}; fix the path (relative paths start from the config file's directory), or remove the key to use ${plan.adapterId} from PATH`,
    );
  }
  // Copies of one agent share its table: one line for them all.
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
}

function readFailure(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'no such file';
  if (error.code === 'EISDIR') return 'it is a directory, not a file';
  if (error.code === 'EACCES') return 'permission denied';
  return error.message;
}

function isFile(path: string): boolean {
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

// ---------------------------------------------------------------------------------------------
// Merging with the flags

/** The race-related command-line flags, already parsed; absent means "not given". */
export interface RaceFlags {
  /** `--agents` entries as typed: `claude`, `opus` (a `[agents.opus]` table), `claude:opus`, `claude*3`. */
  agents?: string[];
  /** `--repeat N`: every listed agent without its own `*N` runs N times (`<name>-1` … `<name>-N`). */
  repeat?: number;
  allowExperimental?: boolean;
  /** `--model <agent>=<model>`: by agent name, or by adapter for the agents named after it. */
  models?: Partial<Record<string, string>>;
  idleTimeoutS?: number;
  timeoutS?: number;
  unsafe?: boolean;
  keepWorktrees?: boolean;
  /** `--check "<command>"`, repeatable: checks besides hydra.toml's `[[checks]]`. */
  checks?: string[];
  /** `--max-cost-usd <n>`: the race's budget. */
  maxCostUsd?: number;
  /** `--auto-merge best`. */
  autoMerge?: 'best';
  /** `--allow-test-changes`: a result that changes what a check runs may still win. */
  allowTestChanges?: boolean;
}

export interface ResolvedRace {
  agents: AgentPlan[];
  allowExperimental: boolean;
  timeoutMs: number;
  unsafe: boolean;
  keepWorktrees: boolean;
  prices: PriceTable;
  checks?: CheckSpec[];
  checkConcurrency?: number;
  /** `worktree_pool`: worktrees kept between races (0 or absent: none). */
  worktreePool?: number;
  scoreWeights?: ScoreWeights;
  allowedPaths?: string[];
  maxCostUsd?: number;
  autoMerge?: 'best';
  allowTestChanges?: boolean;
}

/** Experimental adapters need allow_experimental_adapters or the flag. */
const isExperimental = (id: AdapterId): boolean => adapterOf(id).tier === 'experimental';

/**
 * Merges config and flags (flags win). The agent list is `--agents`, else `race.agents`, else every
 * adapter not disabled in the config (experimental ones only when allowed) and every named agent
 * with `enabled = true`; `--repeat` multiplies it. An experimental agent named explicitly without
 * the opt-in is a ConfigError that says how to opt in.
 */
export function resolveRace(
  config: HydraConfig,
  flags: RaceFlags,
  configName = CONFIG_FILE_NAME,
): ResolvedRace {
  const race = config.race ?? {};
  const tables = config.agents ?? {};
  const allowExperimental =
    flags.allowExperimental ?? race.allow_experimental_adapters ?? CONFIG_DEFAULTS.allowExperimentalAdapters;
  const idleTimeoutS = flags.idleTimeoutS ?? race.idle_timeout_s ?? CONFIG_DEFAULTS.idleTimeoutS;
  const timeoutS = flags.timeoutS ?? race.timeout_s ?? CONFIG_DEFAULTS.timeoutS;

  const explicit = flags.agents ?? race.agents;
  const source = flags.agents ? '--agents' : race.agents ? `${configName} race.agents` : 'the default agents';
  const listed = expandAgentList(explicit ?? defaultAgentNames(config, allowExperimental), tables, {
    source,
    repeat: flags.repeat,
  });
  if (listed.problems.length > 0) throw new ConfigError(listed.problems);
  const blocked = [
    ...new Set(
      listed.agents
        .filter((agent) => isExperimental(agent.adapterId) && !allowExperimental)
        .map((agent) => agent.adapterId),
    ),
  ];
  if (explicit && blocked.length > 0) {
    throw new ConfigError([
      `${blocked.join(', ')} is experimental (named in ${source}); add --allow-experimental-adapters ` +
        `(or race.allow_experimental_adapters = true in ${configName}) to race it`,
    ]);
  }

  const models = modelFlagsByAgent(flags.models ?? {}, listed.agents);
  const problems = [...models.problems];
  const raceChecks = [...checkSpecsOf(config), ...flagChecks(config, flags)];
  const agents = listed.agents.map((agent): AgentPlan => {
    const agentConfig = tables[agent.table] ?? {};
    const flagged = models.of(agent);
    const model = flagged?.model ?? agent.model ?? agentConfig.model;
    // --check gates too: an agent's checks cannot weaken them (the file's own were checked on reading).
    const ownChecks = (own: AgentConfig['checks']): Pick<AgentPlan, 'checks'> => {
      if (own === undefined || own.length === 0) return {};
      problems.push(
        ...agentCheckProblems(agent.table, own, raceChecks, {
          file: configName,
          raceChecks: '[[checks]] or --check',
        }),
      );
      return {
        checks: checksOfAgent(raceChecks, own, secondsToMs, CONFIG_DEFAULTS.checkTimeoutS),
      };
    };
    const invalid = adapterOf(agent.adapterId).validateModel(model);
    if (invalid) {
      const where =
        flagged !== undefined
          ? `--model ${flagged.key}=${model ?? ''}`
          : agent.model !== undefined
            ? `${source} "${agent.entry}"`
            : `${configName} agents.${agent.table}.model`;
      problems.push(
        `${where}: ${invalid.message}; use a real model name or leave it out for the CLI's default`,
      );
    }
    return {
      name: agent.name,
      adapterId: agent.adapterId,
      ...(agent.table !== agent.name ? { table: agent.table } : {}),
      ...(agentConfig.binary !== undefined ? { binary: agentConfig.binary } : {}),
      ...(model !== undefined ? { model } : {}),
      extraArgs: [...(agentConfig.extra_args ?? [])],
      env: { ...(agentConfig.env ?? {}) },
      // The --idle-timeout flag overrides per-agent values too.
      idleTimeoutMs: secondsToMs(flags.idleTimeoutS ?? agentConfig.idle_timeout_s ?? idleTimeoutS),
      ...(agentConfig.max_cost_usd === undefined ? {} : { maxCostUsd: agentConfig.max_cost_usd }),
      ...ownChecks(agentConfig.checks),
    };
  });

  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);

  return {
    agents,
    allowExperimental,
    timeoutMs: secondsToMs(timeoutS),
    unsafe: flags.unsafe ?? false,
    keepWorktrees: flags.keepWorktrees ?? race.keep_worktrees ?? CONFIG_DEFAULTS.keepWorktrees,
    prices: toPriceTable(config.prices),
    ...(race.worktree_pool === undefined ? {} : { worktreePool: race.worktree_pool }),
    ...checksOf(config, raceChecks, flags),
  };
}

/** `[[checks]]` as check specs. */
const checkSpecsOf = (config: HydraConfig): CheckSpec[] =>
  (config.checks ?? []).map((check) => ({
    name: check.name,
    run: check.run,
    timeoutMs: secondsToMs(check.timeout_s ?? CONFIG_DEFAULTS.checkTimeoutS),
    gate: check.gate ?? false,
  }));

/** Each `--check`, named after what it runs (unique beside `[[checks]]`). */
function flagChecks(config: HydraConfig, flags: RaceFlags): CheckSpec[] {
  const names = new Set((config.checks ?? []).map((check) => check.name));
  return (flags.checks ?? []).map((run): CheckSpec => {
    const name = uniqueName(checkName(run), names);
    names.add(name);
    // A check given on the command line is what the user wants to hold: a gate.
    return { name, run, timeoutMs: secondsToMs(CONFIG_DEFAULTS.checkTimeoutS), gate: true };
  });
}

/** The race-wide checks (`[[checks]]`, then each `--check`), the score's settings, the budget, auto-merge. */
function checksOf(config: HydraConfig, checks: CheckSpec[], flags: RaceFlags): Partial<ResolvedRace> {
  const { allowed_paths: allowedPaths, ...weights } = config.score ?? {};
  const maxCostUsd = flags.maxCostUsd ?? config.race?.max_cost_usd;
  return {
    ...(checks.length === 0 ? {} : { checks }),
    ...(config.race?.check_concurrency === undefined
      ? {}
      : { checkConcurrency: config.race.check_concurrency }),
    ...(config.score === undefined ? {} : { scoreWeights: { ...DEFAULT_SCORE_WEIGHTS, ...weights } }),
    ...(allowedPaths === undefined ? {} : { allowedPaths }),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    ...(flags.autoMerge === undefined ? {} : { autoMerge: flags.autoMerge }),
    ...(flags.allowTestChanges === true ? { allowTestChanges: true } : {}),
  };
}

/**
 * A short name for a `--check` command: the script of `npm test`/`npm run lint`, `test` for
 * `node --test`, `go test`, `cargo test`, else the program's name (`pytest`, `make`).
 */
export function checkName(run: string): string {
  const words = run.trim().split(/\s+/);
  const [first = 'check', second, third] = words;
  const program = first.split('/').pop() ?? first;
  const script = ['npm', 'pnpm', 'yarn', 'bun'].includes(program)
    ? second === 'run'
      ? third
      : second
    : undefined;
  // `node --test`, `go test ./...`, `cargo test`: a test run.
  const runsTests = words.slice(1).some((word) => word === 'test' || word === '--test');
  const name = (script ?? (runsTests ? 'test' : program)).replace(/[^A-Za-z0-9._-]/g, '');
  return name === '' ? 'check' : name;
}

const uniqueName = (name: string, taken: ReadonlySet<string>): string => {
  if (!taken.has(name)) return name;
  let n = 2;
  while (taken.has(`${name}-${n}`)) n += 1;
  return `${name}-${n}`;
};

/**
 * `--model <key>=<model>` per agent: a key that is an agent's name sets its model; a key that is the
 * name the agent was listed by (`claude` for `claude*3`) or its adapter's alias sets the model of
 * each copy. An adapter that is not racing is ignored, as before named agents; any other key is a problem.
 */
function modelFlagsByAgent(
  models: Partial<Record<string, string>>,
  agents: readonly ListedAgent[],
): { of: (agent: ListedAgent) => { key: string; model: string } | undefined; problems: string[] } {
  const problems: string[] = [];
  const byName = new Map<string, { key: string; model: string }>();
  const byBase = new Map<string, { key: string; model: string }>();
  for (const [key, model] of Object.entries(models)) {
    if (model === undefined) continue;
    const word = key.trim().toLowerCase();
    if (agents.some((agent) => agent.name === word)) byName.set(word, { key, model });
    else if (agents.some((agent) => agent.base === word)) byBase.set(word, { key, model });
    else {
      const adapter = getAdapter(word);
      if (adapter !== undefined) byBase.set(adapter.id, { key, model });
      else
        problems.push(
          `--model ${key}=${model}: no agent of this race is named ${key}; race agents: ${agents.map((agent) => agent.name).join(', ')}`,
        );
    }
  }
  return { of: (agent) => byName.get(agent.name) ?? byBase.get(agent.base), problems };
}

/**
 * Every adapter in the default race not disabled in the config (one outside it, such as Gemini CLI,
 * only when its table says `enabled = true`; experimental ones only when allowed), then every named
 * agent enabled there.
 */
function defaultAgentNames(config: HydraConfig, allowExperimental: boolean): string[] {
  const tables = config.agents ?? {};
  const adapters = adapterIds().filter(
    (id) =>
      (adapterOf(id).inDefaultRace !== false
        ? tables[id]?.enabled !== false
        : tables[id]?.enabled === true) &&
      (allowExperimental || !isExperimental(id)),
  );
  const named = Object.entries(tables)
    .filter(([name, table]) => !adapterIds().includes(name) && table.enabled === true)
    .filter(([name, table]) => {
      const adapter = tableAdapter(name, table);
      return adapter !== undefined && (allowExperimental || !isExperimental(adapter));
    })
    .map(([name]) => name);
  return [...adapters, ...named];
}

/** One plan per adapter, for doctor: configured binary and model, defaults otherwise. */
export function planForDoctor(config: HydraConfig, id: AdapterId): AgentPlan {
  const agentConfig = config.agents?.[id] ?? {};
  const idle = agentConfig.idle_timeout_s ?? config.race?.idle_timeout_s ?? CONFIG_DEFAULTS.idleTimeoutS;
  return {
    name: id,
    adapterId: id,
    ...(agentConfig.binary !== undefined ? { binary: agentConfig.binary } : {}),
    ...(agentConfig.model !== undefined ? { model: agentConfig.model } : {}),
    extraArgs: [...(agentConfig.extra_args ?? [])],
    env: { ...(agentConfig.env ?? {}) },
    idleTimeoutMs: secondsToMs(idle),
    enabled: agentConfig.enabled !== false,
  };
}

export function buildRaceOptions(
  config: HydraConfig,
  flags: RaceFlags,
  base: { repoPath: string; prompt: string; configName?: string; configPath?: string | null },
): RaceOptions {
  const resolved = resolveRace(config, flags, base.configName);
  return {
    repoPath: base.repoPath,
    prompt: base.prompt,
    ...resolved,
    configSnapshot: { file: base.configPath ?? null, config, flags },
  };
}

function toPriceTable(prices: HydraConfig['prices']): PriceTable {
  const table: Record<string, ModelPrice> = {};
  for (const [model, entry] of Object.entries(prices ?? {})) {
    table[model] = {
      inputPerMTok: entry.input_per_mtok,
      outputPerMTok: entry.output_per_mtok,
      ...(entry.cache_read_per_mtok !== undefined ? { cacheReadPerMTok: entry.cache_read_per_mtok } : {}),
      ...(entry.cache_write_per_mtok !== undefined ? { cacheWritePerMTok: entry.cache_write_per_mtok } : {}),
    };
  }
  return table;
}

/** Whole milliseconds; a positive limit never rounds down to 0, which would mean "no limit". */
const secondsToMs = (seconds: number): number => (seconds > 0 ? Math.max(1, Math.round(seconds * 1000)) : 0);
