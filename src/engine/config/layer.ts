/**
 * A repository's hydra.toml over the user's own, key by key: tables merge (an agent's table, its
 * env, [race], [score], a price), a list or a value of the repository replaces the user's, and
 * checks merge by name. The user's limits hold: a check the user configured stays as the user wrote
 * it (the repository may add checks, and make one a gate, but not change or drop it), a budget is
 * the lower of the two, and the user's `score.allowed_paths` stays. Each refused change is a note.
 */
import type { AgentCheckConfig } from './agent-checks.js';
import type { HydraConfig } from './schema.js';

type Table = Record<string, unknown>;
const isTable = (value: unknown): value is Table =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys whose values are lists of checks merged by name, wherever they are. */
const CHECK_LISTS = new Set(['checks']);

interface Where {
  /** The user's file and the repository's, as shown. */
  user: string;
  repo: string;
}

/** The layered config and what the user should hear about it. */
export function layerConfigs(
  user: HydraConfig,
  repo: HydraConfig,
  where: Where,
): { config: HydraConfig; notes: string[] } {
  const notes: string[] = [];
  const merged = mergeTables(user as Table, repo as Table, []) as HydraConfig;
  const keepChecks = (
    path: string,
    mine: readonly AgentCheckConfig[] | undefined,
    theirs: readonly AgentCheckConfig[] | undefined,
  ) => mergeChecks(mine ?? [], theirs ?? [], user.checks ?? [], { ...where, key: path }, notes);
  if (user.checks !== undefined || repo.checks !== undefined) {
    merged.checks = keepChecks('[[checks]]', user.checks, repo.checks) as HydraConfig['checks'];
  }
  for (const [name, table] of Object.entries(merged.agents ?? {})) {
    if (table === undefined) continue;
    const mine = user.agents?.[name]?.checks;
    const theirs = repo.agents?.[name]?.checks;
    if (mine !== undefined || theirs !== undefined)
      table.checks = keepChecks(`[[agents.${name}.checks]]`, mine, theirs);
    const budget = lowerBudget(user.agents?.[name]?.max_cost_usd, repo.agents?.[name]?.max_cost_usd);
    if (budget.note) notes.push(budgetNote(`agents.${name}.max_cost_usd`, budget.value, where));
    if (budget.value !== undefined) table.max_cost_usd = budget.value;
  }
  const raceBudget = lowerBudget(user.race?.max_cost_usd, repo.race?.max_cost_usd);
  if (raceBudget.note) notes.push(budgetNote('race.max_cost_usd', raceBudget.value, where));
  if (raceBudget.value !== undefined && merged.race !== undefined)
    merged.race.max_cost_usd = raceBudget.value;
  const mineAllowed = user.score?.allowed_paths;
  const theirsAllowed = repo.score?.allowed_paths;
  if (mineAllowed !== undefined && merged.score !== undefined) {
    if (theirsAllowed !== undefined && JSON.stringify(theirsAllowed) !== JSON.stringify(mineAllowed))
      notes.push(
        `${where.repo}: score.allowed_paths is ignored: your own in ${where.user} stays (a repository cannot widen the paths agents may change)`,
      );
    merged.score.allowed_paths = mineAllowed;
  }
  return { config: merged, notes };
}

/** Tables merge key by key; anything else from the repository replaces the user's. */
function mergeTables(mine: Table, theirs: Table, path: readonly string[]): Table {
  const out: Table = { ...mine };
  for (const [key, value] of Object.entries(theirs)) {
    if (value === undefined) continue;
    const own = out[key];
    out[key] =
      isTable(own) && isTable(value) && !CHECK_LISTS.has(key)
        ? mergeTables(own, value, [...path, key])
        : value;
  }
  return out;
}

const lowerBudget = (
  mine: number | undefined,
  theirs: number | undefined,
): { value: number | undefined; note: boolean } => {
  if (mine === undefined) return { value: theirs, note: false };
  if (theirs === undefined || theirs <= mine) return { value: theirs ?? mine, note: false };
  return { value: mine, note: true };
};

const budgetNote = (key: string, value: number | undefined, where: Where): string =>
  `${where.repo}: ${key} is higher than your own (${value} USD in ${where.user}), which stays: a repository may lower a budget, not raise it`;

/**
 * A list of checks: the user's in order, each as the user wrote it (the repository's check of the
 * same name may only make it a gate), then the repository's new ones. An agent's check named like
 * one of the user's race-wide checks (an override of the user's test) is held to the same rule.
 */
function mergeChecks(
  mine: readonly AgentCheckConfig[],
  theirs: readonly AgentCheckConfig[],
  userChecks: readonly AgentCheckConfig[],
  where: Where & { key: string },
  notes: string[],
): AgentCheckConfig[] {
  const out = mine.map((check) => ({ ...check }));
  for (const check of theirs) {
    const own = out.find((item) => item.name === check.name);
    const users = own ?? userChecks.find((item) => item.name === check.name);
    if (users === undefined) {
      out.push(check);
      continue;
    }
    const changes =
      (check.run !== undefined && check.run !== users.run) ||
      (check.timeout_s !== undefined && check.timeout_s !== users.timeout_s);
    const ungates = users.gate === true && check.gate === false;
    if (changes || ungates)
      notes.push(
        ungates
          ? `${where.repo}: ${where.key} "${check.name}" sets gate = false, but "${check.name}" is your gate in ${where.user}: it stays a gate (a repository may add checks, not change or drop yours)`
          : `${where.repo}: ${where.key} "${check.name}" changes your check "${check.name}" from ${where.user}: yours runs as you wrote it (a repository may add checks, not change or drop yours)`,
      );
    else if (own === undefined) out.push(check);
    else if (check.gate === true) own.gate = true;
  }
  return out;
}
