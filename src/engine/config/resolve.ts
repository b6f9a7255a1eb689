/**
 * Config and command-line flags merged into RaceOptions (flags win): the agent list, each agent's
 * plan, the checks, the score's settings, the budget and the prices.
 */
import { adapterIds, adapterOf, getAdapter } from '../../adapters/registry.js';
import type { AdapterId, ModelPrice, PriceTable } from '../../adapters/types.js';
import { DEFAULT_SCORE_WEIGHTS } from '../checks/index.js';
import type { ScoreWeights } from '../checks/index.js';
import type { AgentPlan } from '../agent-plan.js';
import type { CheckSpec } from '../check-types.js';
import type { RaceOptions } from './race-options.js';
import { agentCheckProblems, checksOfAgent } from './agent-checks.js';
import { expandAgentList, tableAdapter } from './agents.js';
import type { ListedAgent } from './agents.js';
import { ConfigError } from './config-error.js';
import { isPathLike, resolveCommandSync } from '../probe/index.js';
import { checkSpecsOf, flagChecks } from './race-checks.js';
import { CONFIG_DEFAULTS, CONFIG_FILE_NAME, secondsToMs } from './schema.js';
import type { AgentConfig, HydraConfig } from './schema.js';
import { DEFAULT_SANDBOX, SANDBOX_MODES } from '../sandbox/index.js';
import type { SandboxMode, SandboxSettings } from '../sandbox/index.js';
import { DEFAULT_SETUP_TIMEOUT_MS } from '../setup/index.js';
import type { PortRange, SetupSettings } from '../setup/index.js';
import { DEFAULT_CONTAINER } from '../container/index.js';
import type { ContainerSettings } from '../container/index.js';
import type { RunnerKind } from '../agent-plan.js';

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
  /** `--unverified`: `--auto-merge best` may merge a result no check ran for. */
  unverified?: boolean;
  /** `--no-cross-test` (false): over `[race] cross_test`. */
  crossTest?: boolean;
  /** `--stop first-verified`: over `[race] stop`. */
  stop?: 'first-verified' | 'never';
  /** `--judge <agent>`: a configured agent that ranks tied results, read-only. */
  judge?: string;
  /** `--sandbox auto|required|off`: over `[sandbox] mode` and HYDRA_SANDBOX. */
  sandbox?: SandboxMode;
  /** `--runner local|container`: over `agents.<name>.runner` and `[race] runner`. */
  runner?: RunnerKind;
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
  /** `check_pass_env`: credentials the checks get (RaceOptions.checkPassEnv). */
  checkPassEnv?: string[];
  /** `worktree_pool`: worktrees kept between races (0 or absent: none). */
  worktreePool?: number;
  /** `port_range`: where agents' port blocks are taken (absent: the default range). */
  portRange?: PortRange;
  /** `--no-cross-test`, `[race] cross_test = false`: no cross-testing (absent: on). */
  crossTest?: false;
  /** `--stop first-verified`, `[race] stop`: stop the others this long after one result is verified. */
  stopFirstVerified?: { graceMs: number };
  scoreWeights?: ScoreWeights;
  allowedPaths?: string[];
  maxCostUsd?: number;
  autoMerge?: 'best';
  allowTestChanges?: boolean;
  allowUnverified?: boolean;
  judgeMargin?: number;
  sandbox: SandboxSettings;
  setup: SetupSettings;
  container: ContainerSettings;
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
  if (listed.problems.length > 0) throw new ConfigError({ problems: listed.problems });
  const blocked = [
    ...new Set(
      listed.agents
        .filter((agent) => isExperimental(agent.adapterId) && !allowExperimental)
        .map((agent) => agent.adapterId),
    ),
  ];
  if (explicit && blocked.length > 0) {
    throw new ConfigError({
      problems: [
        `${blocked.join(', ')} is experimental (named in ${source}); add --allow-experimental-adapters ` +
          `(or race.allow_experimental_adapters = true in ${configName}) to race it`,
      ],
    });
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
      ...runnerOf(config, agentConfig, flags),
    };
  });
  const container = containerOf(config);
  if (
    agents.some((plan) => plan.runner === 'container') &&
    container.image === null &&
    !container.devcontainer
  ) {
    problems.push(
      `agents run in containers (runner = "container") but no image is named: set [container] image = "<image>" in ${configName} (or [container] devcontainer = true)`,
    );
  }

  if (problems.length > 0) throw new ConfigError({ problems: [...new Set(problems)] });

  return {
    agents,
    allowExperimental,
    timeoutMs: secondsToMs(timeoutS),
    unsafe: flags.unsafe ?? false,
    keepWorktrees: flags.keepWorktrees ?? race.keep_worktrees ?? CONFIG_DEFAULTS.keepWorktrees,
    prices: toPriceTable(config.prices),
    ...(race.worktree_pool === undefined ? {} : { worktreePool: race.worktree_pool }),
    ...((flags.crossTest ?? race.cross_test) === false ? { crossTest: false as const } : {}),
    ...((flags.stop ?? race.stop) === 'first-verified'
      ? { stopFirstVerified: { graceMs: secondsToMs(race.stop_grace_s ?? CONFIG_DEFAULTS.stopGraceS) } }
      : {}),
    ...(race.port_range === undefined
      ? {}
      : { portRange: { first: race.port_range[0], last: race.port_range[1] } }),
    ...checksOf(config, raceChecks, flags),
    sandbox: sandboxOf(config, flags),
    setup: setupOf(config),
    container,
  };
}

/** Where an agent runs: `--runner`, else its table's `runner`, else `[race] runner`; `local` is left unsaid. */
const runnerOf = (config: HydraConfig, agent: AgentConfig, flags: RaceFlags): { runner?: RunnerKind } => {
  const runner = flags.runner ?? agent.runner ?? config.race?.runner ?? 'local';
  return runner === 'local' ? {} : { runner };
};

/** `[container]` with the defaults filled in. */
function containerOf(config: HydraConfig): ContainerSettings {
  const container = config.container ?? {};
  return {
    image: container.image ?? DEFAULT_CONTAINER.image,
    hosts: [...(container.hosts ?? DEFAULT_CONTAINER.hosts)],
    maxAgents: container.max_agents ?? DEFAULT_CONTAINER.maxAgents,
    network: container.network ?? DEFAULT_CONTAINER.network,
    devcontainer: container.devcontainer ?? DEFAULT_CONTAINER.devcontainer,
  };
}

/** `[setup]` with the defaults filled in; `.cursor/worktrees.json` is read where the race starts (src/engine/setup). */
export function setupOf(config: HydraConfig): SetupSettings {
  const setup = config.setup ?? {};
  const run = setup.run === undefined ? [] : typeof setup.run === 'string' ? [setup.run] : [...setup.run];
  return {
    run,
    runSource: run.length > 0 ? 'hydra.toml' : null,
    timeoutMs: setup.timeout_s === undefined ? DEFAULT_SETUP_TIMEOUT_MS : secondsToMs(setup.timeout_s),
    copy: [...(setup.copy ?? [])],
    share: [...(setup.share ?? [])],
  };
}

/** HYDRA_SANDBOX: the user's own default mode (a test suite's `off`), under the flag, over hydra.toml. */
const SANDBOX_ENV = 'HYDRA_SANDBOX';

/** `[sandbox]`, `--sandbox` and HYDRA_SANDBOX, with the defaults filled in (a race's, and doctor's). */
export function sandboxOf(
  config: HydraConfig,
  flags: Pick<RaceFlags, 'sandbox'>,
  env: NodeJS.ProcessEnv = process.env,
): SandboxSettings {
  const fromEnv = env[SANDBOX_ENV];
  const envMode = SANDBOX_MODES.find((mode) => mode === fromEnv);
  return {
    mode: flags.sandbox ?? envMode ?? config.sandbox?.mode ?? DEFAULT_SANDBOX.mode,
    allowHosts: [...(config.sandbox?.allow_hosts ?? [])],
    allowWrite: [...(config.sandbox?.allow_write ?? [])],
  };
}

/** The race-wide checks (`[[checks]]`, then each `--check`), the score's settings, the budget, auto-merge. */
function checksOf(config: HydraConfig, checks: CheckSpec[], flags: RaceFlags): Partial<ResolvedRace> {
  const { allowed_paths: allowedPaths, judge_margin: judgeMargin, ...weights } = config.score ?? {};
  const maxCostUsd = flags.maxCostUsd ?? config.race?.max_cost_usd;
  return {
    ...(checks.length === 0 ? {} : { checks }),
    ...(config.race?.check_concurrency === undefined
      ? {}
      : { checkConcurrency: config.race.check_concurrency }),
    ...(config.race?.check_pass_env === undefined ? {} : { checkPassEnv: [...config.race.check_pass_env] }),
    ...(config.score === undefined ? {} : { scoreWeights: { ...DEFAULT_SCORE_WEIGHTS, ...weights } }),
    ...(allowedPaths === undefined ? {} : { allowedPaths }),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    ...(flags.autoMerge === undefined ? {} : { autoMerge: flags.autoMerge }),
    ...(flags.allowTestChanges === true ? { allowTestChanges: true } : {}),
    ...(flags.unverified === true ? { allowUnverified: true } : {}),
    ...(judgeMargin === undefined ? {} : { judgeMargin }),
  };
}

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

/**
 * The CLIs a config races when no flag names agents: its `race.agents`, else its default set. What
 * an untrusted repository's file may narrow but not widen (trust-filter.ts).
 */
export function adaptersRacedBy(config: HydraConfig): Set<AdapterId> {
  const allow = config.race?.allow_experimental_adapters ?? CONFIG_DEFAULTS.allowExperimentalAdapters;
  const listed = expandAgentList(
    config.race?.agents ?? defaultAgentNames(config, allow),
    config.agents ?? {},
    {
      source: 'race.agents',
    },
  );
  return new Set(listed.agents.map((agent) => agent.adapterId));
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
    // A container agent's CLI need only be in its image (probed there: doctor's image section).
    ...runnerOf(config, agentConfig, {}),
  };
}

export function buildRaceOptions(
  config: HydraConfig,
  flags: RaceFlags,
  base: { repoPath: string; prompt: string; configName?: string; configPath?: string | null },
): RaceOptions {
  const resolved = resolveRace(config, flags, base.configName);
  const judge = judgePlan(config, flags, base.configName);
  return {
    repoPath: base.repoPath,
    prompt: base.prompt,
    ...resolved,
    ...(judge === undefined ? {} : { judge }),
    configSnapshot: { file: base.configPath ?? null, config, flags },
  };
}

/** `--judge <agent>`: one agent, resolved like a raced one (its table's binary, model, env). */
function judgePlan(config: HydraConfig, flags: RaceFlags, configName?: string): AgentPlan | undefined {
  if (flags.judge === undefined) return undefined;
  const { agents } = resolveRace(
    config,
    {
      agents: [flags.judge],
      ...(flags.models === undefined ? {} : { models: flags.models }),
      allowExperimental: flags.allowExperimental ?? false,
    },
    configName,
  );
  const [plan, ...more] = agents;
  if (plan === undefined || more.length > 0)
    throw new ConfigError({
      problems: [`--judge ${flags.judge}: name one agent (e.g. --judge claude), not ${agents.length}`],
    });
  return plan;
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
    if (plan.binary === undefined || resolveCommandSync(plan.binary, env) !== null) continue;
    const where = isPathLike(plan.binary)
      ? `${plan.binary} does not exist or is not executable`
      : `"${plan.binary}" is not on PATH`;
    problems.push(
      `${configName}: agents.${plan.table ?? plan.name}.binary: ${where}; fix the path (relative paths start from the config file's directory), or remove the key to use ${plan.adapterId} from PATH`,
    );
  }
  // Copies of one agent share its table: one line for them all.
  if (problems.length > 0) throw new ConfigError({ problems: [...new Set(problems)] });
}
