/**
 * What a hydra.toml may hold: its zod schema, the message each bad value gets, the defaults, and
 * the known keys per table (for did-you-mean and for the test that every hint names a real key).
 */
import { z } from 'zod';

export const CONFIG_FILE_NAME = 'hydra.toml';

export const CONFIG_DEFAULTS = {
  timeoutS: 1800,
  idleTimeoutS: 300,
  keepWorktrees: false,
  allowExperimentalAdapters: false,
  /** A check's time limit when `timeout_s` is not given. */
  checkTimeoutS: 600,
  /** `[race] stop_grace_s`: how long the others go on once one result is verified. */
  stopGraceS: 30,
} as const;

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
const PASS_ENV_EXAMPLE = 'e.g. check_pass_env = ["AWS_PROFILE", "NPM_TOKEN", "AWS_*"]';
const PASS_ENV = `must be a list of the environment variables the checks get although they hold credentials, ${PASS_ENV_EXAMPLE}`;
const PASS_ENV_NAME = `must be the name of an environment variable (letters, digits and _, a trailing * for a family), ${PASS_ENV_EXAMPLE}`;
const count = z.number({ error: COUNT }).int({ error: COUNT }).min(1, { error: COUNT });
const POOL =
  'must be how many worktrees to keep between races: a whole number from 0 (no pool) to 64, e.g. worktree_pool = 4';
const poolSize = z
  .number({ error: POOL })
  .int({ error: POOL })
  .min(0, { error: POOL })
  .max(64, { error: POOL });

const PORT_RANGE =
  "must be the first and last port agents' blocks of 10 are taken from, from 1024 to 65535, at least 10 apart, e.g. port_range = [20000, 29999]";
const portNumber = z
  .number({ error: PORT_RANGE })
  .int({ error: PORT_RANGE })
  .min(1024, { error: PORT_RANGE })
  .max(65_535, { error: PORT_RANGE });
/** `[race] port_range`: where each agent's block of ports (HYDRA_PORT, setup/ports.ts) is taken. */
const portRange = z
  .tuple([portNumber, portNumber], { error: PORT_RANGE })
  .refine(([first, last]) => last - first + 1 >= 10, { error: PORT_RANGE });
const RUNNER = 'must be "local" (this machine) or "container" (a container per agent, [container])';
const runnerKind = z.enum(['local', 'container'], { error: RUNNER });

/** `[container]`: agents in containers on Docker-compatible engines (src/engine/container; docs/containers.md). */
const containerSchema = z.strictObject(
  {
    image: nonEmpty.optional(),
    hosts: z
      .array(
        nonEmpty.regex(/^(unix|tcp|ssh|npipe):\/\/./, {
          error: 'must be an engine address: unix:///var/run/docker.sock, tcp://host:2376 or ssh://user@host',
        }),
        {
          error: 'must be a list of engine addresses, e.g. ["unix:///var/run/docker.sock", "ssh://buildbox"]',
        },
      )
      .min(1, { error: 'must name at least one engine (or leave the key out for DOCKER_HOST)' })
      .optional(),
    max_agents: count.optional(),
    network: nonEmpty
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, { error: 'must be "none", "bridge" or the name of a network' })
      .optional(),
    devcontainer: bool.optional(),
  },
  { error: 'must be a table: [container] with image, hosts, max_agents, network and devcontainer' },
);

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
      /** Credentials of the user's environment the checks get (process/agent-env.ts, commandEnvironment). */
      check_pass_env: z
        .array(
          z.string({ error: PASS_ENV_NAME }).regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, { error: PASS_ENV_NAME }),
          {
            error: PASS_ENV,
          },
        )
        .optional(),
      worktree_pool: poolSize.optional(),
      port_range: portRange.optional(),
      /** false: no cross-testing (checks/cross-test), like `--no-cross-test`. */
      cross_test: bool.optional(),
      /** Where agents run: this machine or a container each (src/engine/container; docs/containers.md). */
      runner: runnerKind.optional(),
      /** `"first-verified"`: once one result passes every check, the others are stopped (docs/stats.md). */
      stop: z.enum(['first-verified', 'never'], { error: 'must be "first-verified" or "never"' }).optional(),
      /** How long the others may go on once one result is verified, before they are stopped. */
      stop_grace_s: z
        .number({ error: 'must be a number of seconds, 0 or more' })
        .min(0, { error: 'must be a number of seconds, 0 or more' })
        .finite({ error: 'must be a number of seconds, 0 or more' })
        .optional(),
      /** `"auto"`: the project's own test command (config/auto-checks.ts), like `--check auto`. */
      checks: z
        .literal('auto', {
          error: 'must be "auto" (the project\'s own test command); name commands in [[checks]] tables',
        })
        .optional(),
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
    /** Where this agent runs, over `[race] runner`. */
    runner: runnerKind.optional(),
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
    // Cross-testing's part (checks/cross-test): tests that reproduce the bug.
    evidence: weight.optional(),
    /** How close to the top score (in points, 0–100) a result must be for `--judge` to rank it. */
    judge_margin: z
      .number({ error: 'must be a number of points from 0 to 100, e.g. judge_margin = 5' })
      .min(0, { error: 'must be a number of points from 0 to 100, e.g. judge_margin = 5' })
      .max(100, { error: 'must be a number of points from 0 to 100, e.g. judge_margin = 5' })
      .optional(),
    allowed_paths: z
      .array(nonEmpty, { error: 'must be a list of path patterns, e.g. ["src/**", "test/**"]' })
      .optional(),
  },
  {
    error:
      'must be a table: [score] with weights (checks, tests, diff, scope, duration, cost), judge_margin and allowed_paths',
  },
);

/** `[sandbox]`: the OS sandbox around each agent (src/engine/sandbox; docs/sandbox.md). */
const sandboxSchema = z.strictObject(
  {
    mode: z.enum(['auto', 'required', 'off'], { error: 'must be "auto", "required" or "off"' }).optional(),
    allow_hosts: z
      .array(nonEmpty, {
        error: 'must be a list of host names, e.g. ["registry.npmjs.org", "*.internal.example"]',
      })
      .optional(),
    allow_write: z
      .array(nonEmpty, {
        error:
          'must be a list of absolute paths (or ~/..., or a protected path of the worktree such as ".vscode") agents may write, e.g. ["~/.cache/pip"]',
      })
      .optional(),
  },
  { error: 'must be a table: [sandbox] with mode, allow_hosts and allow_write' },
);

/** `[ui]`: how hydra tells the user things (`notify`: a bell and a desktop notification, docs/stats.md). */
const uiSchema = z.strictObject(
  { notify: z.boolean({ error: 'must be true or false' }).optional() },
  { error: 'must be a table: [ui] with notify = true or false' },
);

/** `[setup]`: making each worktree ready (src/engine/setup; docs/setup.md). */
const setupSchema = z.strictObject(
  {
    run: z
      .union([nonEmpty, z.array(nonEmpty)], {
        error: 'must be a command or a list of commands, e.g. "npm ci" or ["npm ci", "cp .env.example .env"]',
      })
      .optional(),
    timeout_s: z
      .number({ error: 'must be a number of seconds, e.g. 600' })
      .positive({ error: 'must be more than 0 seconds' })
      .optional(),
    copy: z
      .array(nonEmpty, {
        error: 'must be a list of gitignore-style patterns, e.g. [".env", "config/*.local.json"]',
      })
      .optional(),
    share: z
      .array(nonEmpty, { error: 'must be a list of ignored directories, e.g. ["node_modules", ".venv"]' })
      .optional(),
  },
  { error: 'must be a table: [setup] with run, timeout_s, copy and share' },
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
export const configSchema = () =>
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
    sandbox: sandboxSchema.optional(),
    setup: setupSchema.optional(),
    container: containerSchema.optional(),
    ui: uiSchema.optional(),
  });

export type HydraConfig = z.infer<ReturnType<typeof configSchema>>;
export type AgentConfig = z.infer<typeof agentSchema>;

export type KeyTable =
  | 'root'
  | 'race'
  | 'agent'
  | 'agentCheck'
  | 'price'
  | 'check'
  | 'score'
  | 'sandbox'
  | 'setup'
  | 'container'
  | 'ui';

/** Known keys per table, for unknown-key messages with a did-you-mean. */
export const knownKeys = (schema: ReturnType<typeof configSchema>): Record<KeyTable, readonly string[]> => ({
  root: Object.keys(schema.shape),
  race: Object.keys(schema.shape.race.unwrap().shape),
  agent: Object.keys(agentSchema.shape),
  agentCheck: Object.keys(agentCheckSchema.shape),
  price: Object.keys(priceSchema.shape),
  check: Object.keys(checkSchema.shape),
  score: Object.keys(scoreSchema.shape),
  sandbox: Object.keys(sandboxSchema.shape),
  setup: Object.keys(setupSchema.shape),
  container: Object.keys(containerSchema.shape),
  ui: Object.keys(uiSchema.shape),
});

/**
 * Whether `path` (`race.max_cost_usd`, `agents.<name>.binary`, `score.cost`, `checks`) is a key of
 * the schema; `<...>` or `*` stands for a table name chosen by the user.
 */
export function isConfigKey(path: string): boolean {
  const keys = knownKeys(configSchema());
  const parts = path.split('.');
  const [first, second, third, fourth] = parts;
  if (first === undefined || !keys.root.includes(first)) return false;
  if (parts.length === 1) return true;
  const named = (part: string | undefined): boolean => part !== undefined && part !== '';
  switch (first) {
    case 'race':
      return parts.length === 2 && keys.race.includes(second ?? '');
    case 'score':
      return parts.length === 2 && keys.score.includes(second ?? '');
    case 'sandbox':
      return parts.length === 2 && keys.sandbox.includes(second ?? '');
    case 'setup':
      return parts.length === 2 && keys.setup.includes(second ?? '');
    case 'container':
      return parts.length === 2 && keys.container.includes(second ?? '');
    case 'ui':
      return parts.length === 2 && keys.ui.includes(second ?? '');
    case 'checks':
      return parts.length === 2 && keys.check.includes(second ?? '');
    case 'prices':
      return (
        named(second) && (parts.length === 2 || (parts.length === 3 && keys.price.includes(third ?? '')))
      );
    case 'agents':
      if (!named(second)) return false;
      if (parts.length === 2) return true;
      if (parts.length === 3) return keys.agent.includes(third ?? '');
      return third === 'checks' && parts.length === 4 && keys.agentCheck.includes(fourth ?? '');
    default:
      return false;
  }
}

/** Whole milliseconds; a positive limit never rounds down to 0, which would mean "no limit". */
export const secondsToMs = (seconds: number): number =>
  seconds > 0 ? Math.max(1, Math.round(seconds * 1000)) : 0;
