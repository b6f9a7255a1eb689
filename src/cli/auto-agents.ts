/**
 * `hydra race --agents auto` (`auto:N`): the agents the ledger says win most per dollar
 * (engine/ledger), in place of the list; the reasons go to the race's header as notes.
 */
import { AUTO_AGENTS, chooseAgents, findRepoRoot, ledgerRepos, readLedger } from '../engine/index.js';
import type { RaceFlags } from '../engine/index.js';
import type { CliContext } from './context.js';
import { UsageError, seeHelp } from './errors.js';

const AUTO = /^auto(?::(\d+))?$/;

/** How many agents `--agents auto[:N]` asks for, or null when the list names agents. */
export function autoCount(given: readonly string[]): number | null {
  // `--agents a,b --agents c`: one list.
  const entries = given
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const autos = entries.filter((entry) => AUTO.test(entry.trim()) || entry.trim().startsWith('auto:'));
  if (autos.length === 0) return null;
  if (entries.length > 1)
    throw new UsageError({
      message: `--agents auto chooses every agent of the race by record: name no other agent beside it (got "${entries.join(',')}")`,
      hint: 'Race --agents auto, --agents auto:3, or name the agents yourself.',
    });
  const match = AUTO.exec(autos[0]!.trim());
  const count = match?.[1] === undefined ? (match === null ? Number.NaN : AUTO_AGENTS) : Number(match[1]);
  if (!(count >= 1 && count <= 9))
    throw new UsageError({
      message: `--agents ${autos[0]}: auto:N needs a number of agents from 1 to 9`,
      hint: seeHelp('race'),
    });
  return count;
}

/** The flags with the chosen agents in place of `auto`, and why each was chosen. */
export async function withAutoAgents(
  ctx: CliContext,
  flags: RaceFlags,
  count: number,
): Promise<{ flags: RaceFlags; notes: string[] }> {
  const here = findRepoRoot(ctx.cwd);
  const budget = flags.maxCostUsd === undefined ? {} : { maxCostUsd: flags.maxCostUsd };
  const hereLedger = here === null ? [] : (await readLedger({ repos: [here], env: ctx.env })).agents;
  let choice = chooseAgents({ count, here: hereLedger, all: null, ...budget });
  if (choice.source !== 'repository') {
    const all = (await readLedger({ repos: ledgerRepos(null, ctx.env), env: ctx.env })).agents;
    choice = chooseAgents({ count, here: hereLedger, all, ...budget });
  }
  const { agents: _auto, ...rest } = flags;
  return {
    flags: choice.agents.length === 0 ? rest : { ...rest, agents: choice.agents },
    notes: choice.reasons.map((reason) => `--agents auto: ${reason}`),
  };
}
