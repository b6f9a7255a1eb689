/**
 * The text of a hydra.toml to a validated config (smol-toml, then the zod schema), with one message
 * per problem naming the file, the key path and what is allowed, e.g.
 * `hydra.toml: agents.codex.idle_timeout_s must be a positive number of seconds (got "soon")`.
 */
import { parse as parseToml, TomlError } from 'smol-toml';
import type { z } from 'zod';
import { agentTableProblems, expandAgentList } from './agents.js';
import { agentCheckProblems } from './agent-checks.js';
import { ConfigError } from './config-error.js';
import { closest } from './did-you-mean.js';
import { checkSpecsOf } from './race-checks.js';
import { configSchema, knownKeys } from './schema.js';
import type { HydraConfig, KeyTable } from './schema.js';
import type { CheckSpec } from '../check-types.js';

/** Parses and validates the text of a hydra.toml. `displayName` prefixes every message. */
export function parseConfigText(text: string, displayName: string): HydraConfig {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const firstLine = error.message.split('\n')[0] ?? error.message;
      throw new ConfigError({
        problems: [`${displayName}:${error.line}:${error.column}: invalid TOML: ${firstLine}`],
      });
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
    if (problems.length > 0) throw new ConfigError({ problems });
    return result.data;
  }
  const keys = knownKeys(schema);
  throw new ConfigError({
    problems: result.error.issues.flatMap((issue) => describeIssue(issue, displayName, keys)),
  });
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
  if (first === 'sandbox') return keys.sandbox;
  if (first === 'setup') return keys.setup;
  if (first === 'container') return keys.container;
  if (first === 'ui') return keys.ui;
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
