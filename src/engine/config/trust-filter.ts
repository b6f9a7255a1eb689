/**
 * Which keys of a repository's hydra.toml wait for `hydra trust` (trust.ts keeps the consent): one
 * declared list of the keys that widen what runs, the filter that leaves them out of a file not
 * trusted, and the warning that names them. A new key that runs something (a `[sandbox]` or
 * `[setup]` table) is one line in TRUSTED_ONLY_KEYS; a test fails until every key of the schema is
 * in one of the two lists below.
 */
import { tableAdapter, expandAgentList } from './agents.js';
import { displayPath } from './locate.js';
import { adaptersRacedBy } from './resolve.js';
import type { HydraConfig } from './schema.js';
import { CONFIG_DEFAULTS } from './schema.js';

/**
 * How an untrusted file's value is judged: `always` ignored; `unless-off` kept when false or the
 * same as the user's own; `unless-new-cli` kept when it adds no CLI to the ones the user's own
 * config races (it may only narrow the race).
 */
type TrustRule = 'always' | 'unless-off' | 'unless-new-cli';

/** Key paths (`*` for any agent's table) used from a repository's file only once it is trusted. */
export const TRUSTED_ONLY_KEYS: ReadonlyArray<{ path: string; rule: TrustRule }> = [
  { path: 'checks', rule: 'always' },
  { path: 'agents.*.binary', rule: 'always' },
  { path: 'agents.*.env', rule: 'always' },
  { path: 'agents.*.extra_args', rule: 'always' },
  { path: 'agents.*.checks', rule: 'always' },
  { path: 'race.checks', rule: 'always' },
  // Credentials of the user's environment handed to code agents wrote (their tests, their scripts).
  { path: 'race.check_pass_env', rule: 'always' },
  { path: 'race.allow_experimental_adapters', rule: 'unless-off' },
  { path: 'race.agents', rule: 'unless-new-cli' },
  { path: 'agents.*.enabled', rule: 'unless-new-cli' },
  // The sandbox: its mode, hosts and paths decide what an agent may reach.
  { path: 'sandbox', rule: 'always' },
  // Setup commands run in every worktree before its agent.
  { path: 'setup.run', rule: 'always' },
  // Containers: where agents run, on which engines, with which image and network.
  { path: 'race.runner', rule: 'always' },
  { path: 'agents.*.runner', rule: 'always' },
  { path: 'container', rule: 'always' },
];

/**
 * Keys any file may set: they pick among what the user races, limit it, or price it. Budgets and
 * `score.allowed_paths` cannot loosen the user's own (layer.ts); `[prices]` and `[score]` whole.
 */
export const KEYS_ANY_FILE_SETS: readonly string[] = [
  'race.timeout_s',
  'race.idle_timeout_s',
  'race.keep_worktrees',
  'race.max_cost_usd',
  'race.check_concurrency',
  'race.worktree_pool',
  // Where agents' port blocks are taken: a range of the user's machine, nothing runs.
  'race.port_range',
  // Cross-testing runs the race's (trusted) checks' runners on more trees, or not at all.
  'race.cross_test',
  // Stopping agents early only ever runs less.
  'race.stop',
  'race.stop_grace_s',
  'agents.*.adapter',
  'agents.*.model',
  'agents.*.idle_timeout_s',
  'agents.*.max_cost_usd',
  'prices',
  'score',
  // Copied and shared files come from the user's own checkout only (never through a symlink out).
  'setup.timeout_s',
  'setup.copy',
  'setup.share',
  // A bell and a notification on the user's own terminal: nothing runs.
  'ui',
];

/** The key paths the declared list names, for `hydra trust` and its messages. */
export const EXECUTING_KEYS: readonly string[] = TRUSTED_ONLY_KEYS.map((key) => key.path);

type Table = Record<string, unknown>;
const isTable = (value: unknown): value is Table =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An untrusted repository config without the keys it may not set, and the key paths removed.
 * `user` is the user's own config (or {}), the race it widens.
 */
export function withoutExecutingKeys(
  full: HydraConfig,
  user: HydraConfig = {},
): { config: HydraConfig; ignored: string[] } {
  const config = structuredClone(full) as Table;
  const ignored: string[] = [];
  const raced = adaptersRacedBy(user);
  const tables = { ...(user.agents ?? {}), ...(full.agents ?? {}) };
  const keeps = (rule: TrustRule, path: readonly string[], value: unknown): boolean => {
    if (rule === 'always') return false;
    if (rule === 'unless-off')
      return (
        value === false ||
        value === (user.race?.allow_experimental_adapters ?? CONFIG_DEFAULTS.allowExperimentalAdapters)
      );
    // unless-new-cli: race.agents, or an agent table's enabled.
    if (path[0] === 'race') {
      const listed = expandAgentList(value as string[], tables, { source: 'race.agents' });
      return listed.agents.every((agent) => raced.has(agent.adapterId));
    }
    const adapter = tableAdapter(path[1] ?? '', tables[path[1] ?? '']);
    return value === false || (adapter !== undefined && raced.has(adapter));
  };
  for (const { path, rule } of TRUSTED_ONLY_KEYS) {
    for (const match of matches(config, path.split('.'))) {
      const parent = match.parent;
      const key = match.path.at(-1) ?? '';
      if (keeps(rule, match.path, parent[key])) continue;
      delete parent[key];
      ignored.push(match.path.join('.'));
    }
  }
  return { config: config as HydraConfig, ignored };
}

/**
 * The keys of a file that ask for agents in containers (`race.runner`, `agents.<name>.runner` =
 * "container"): ignored from an untrusted file, they would leave the agents on this machine, with
 * less isolation than the repository asked for, so the race asks the user to choose.
 */
export const containerRunnerKeys = (config: HydraConfig): string[] =>
  [...matches(config as Table, ['race', 'runner']), ...matches(config as Table, ['agents', '*', 'runner'])]
    .filter((match) => match.parent[match.path.at(-1) ?? ''] === 'container')
    .map((match) => match.path.join('.'));

/** Every place `pattern` (`agents.*.binary`) is set in `table`, with the table that holds it. */
function matches(
  table: Table,
  pattern: readonly string[],
  prefix: readonly string[] = [],
): Array<{ path: string[]; parent: Table }> {
  const [head, ...rest] = pattern;
  if (head === undefined) return [];
  const keys = head === '*' ? Object.keys(table) : Object.hasOwn(table, head) ? [head] : [];
  return keys.flatMap((key) => {
    const value = table[key];
    if (value === undefined) return [];
    if (rest.length === 0) return [{ path: [...prefix, key], parent: table }];
    return isTable(value) ? matches(value, rest, [...prefix, key]) : [];
  });
}

/** Why a repository's file is not trusted: never trusted, edited since, or a file outside the repository. */
export type TrustProblem =
  { kind: 'untrusted' } | { kind: 'changed' } | { kind: 'outside'; target: string | null };

/** What to tell the user about an untrusted repository config, or null when nothing was ignored. */
export function untrustedConfigWarning(
  loaded: {
    path: string | null;
    trusted: boolean;
    ignored: readonly string[];
    why?: TrustProblem | undefined;
  },
  cwd: string,
): string | null {
  if (loaded.trusted || loaded.path === null || loaded.ignored.length === 0) return null;
  const file = displayPath(loaded.path, cwd);
  const one = loaded.ignored.length === 1;
  const keys = `${loaded.ignored.join(', ')} ${one ? 'is' : 'are'} ignored`;
  const why = loaded.why ?? { kind: 'untrusted' };
  switch (why.kind) {
    case 'changed':
      return (
        `${file} changed since you trusted it (it is not trusted until you trust it again), so its ${keys}; ` +
        `review the change, then run \`hydra trust\` to use ${one ? 'it' : 'them'}`
      );
    case 'outside':
      return why.target !== null
        ? `${file} is a symbolic link to ${why.target}, outside this repository, so it is not trusted and its ${keys}; ` +
            `hydra trusts only a repository's own file: replace the link with a copy, review it, then run \`hydra trust\``
        : `${file} is not in this repository, so it is not trusted and its ${keys}; ` +
            `name the file with --config to use it as your own`;
    case 'untrusted':
      return (
        `${file} is not trusted, so its ${keys} (they choose what runs); ` +
        `review the file, then run \`hydra trust\` to use ${one ? 'it' : 'them'}`
      );
  }
}
