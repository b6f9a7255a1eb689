/**
 * `--agents auto` / `auto:N`: the agents with the most verified wins per dollar in this
 * repository's ledger; while it is too thin, the ledger of every repository; while that is too
 * thin, the tier-1 default. Within `--max-cost-usd`: an agent whose cost a race would take the
 * picks past the budget is passed over. Each pick comes with the reason the race's header shows.
 */
import type { AgentLedger } from './tally.js';

/** Races an agent must have run before its record counts. */
export const MIN_RACES = 3;
/** How many agents `--agents auto` picks (the tier-1 default races two). */
export const AUTO_AGENTS = 2;

export interface AutoChoice {
  /** What to race, as `--agents` entries; none: the default race (race.agents, else tier 1). */
  agents: string[];
  /** One line per pick (and per agent the budget passed over): why. */
  reasons: string[];
  /** Whose record decided: this repository's, every repository's, or none (the default). */
  source: 'repository' | 'all' | 'default';
}

export interface AutoInput {
  count: number;
  /** This repository's ledger, and every repository's (null when it was not read). */
  here: readonly AgentLedger[];
  all: readonly AgentLedger[] | null;
  maxCostUsd?: number;
}

/** Verified wins per dollar; a record with wins at no known cost ranks below every priced one. */
const winsPerDollar = (agent: AgentLedger): number =>
  agent.costUsd === null || agent.costUsd <= 0 ? -1 / (1 + agent.races) : agent.verifiedWins / agent.costUsd;

const usd = (value: number): string => `$${value < 1 ? value.toFixed(3) : value.toFixed(2)}`;

const why = (agent: AgentLedger, where: string): string => {
  const price =
    agent.costPerRace === null
      ? 'cost unknown'
      : `${usd(agent.costPerRace)} a race${agent.costPerVerifiedWin === null ? '' : `, ${usd(agent.costPerVerifiedWin)} a verified win`}`;
  return `${agent.spec}: ${agent.verifiedWins} verified win${agent.verifiedWins === 1 ? '' : 's'} in ${agent.races} races ${where} (${price})`;
};

/** The agents of a ledger with enough history and a verified win, best record first. */
const ranked = (ledger: readonly AgentLedger[]): AgentLedger[] =>
  ledger
    .filter((agent) => agent.races >= MIN_RACES && agent.verifiedWins > 0)
    .sort(
      (a, b) =>
        winsPerDollar(b) - winsPerDollar(a) ||
        b.verifiedWins / b.races - a.verifiedWins / a.races ||
        a.spec.localeCompare(b.spec),
    );

/** Picks in order of record, each only if the race's expected cost stays within the budget. */
const withinBudget = (
  candidates: readonly AgentLedger[],
  count: number,
  where: string,
  budget: number | undefined,
): { agents: string[]; reasons: string[] } => {
  const agents: string[] = [];
  const reasons: string[] = [];
  let expected = 0;
  for (const agent of candidates) {
    if (agents.length >= count) break;
    const cost = agent.costPerRace ?? 0;
    if (budget !== undefined && expected + cost > budget) {
      reasons.push(
        `${agent.spec} passed over: ${usd(cost)} a race would take the expected spend to ${usd(expected + cost)}, over --max-cost-usd ${usd(budget)}`,
      );
      continue;
    }
    expected += cost;
    agents.push(agent.spec);
    reasons.push(`chose ${why(agent, where)}`);
  }
  return { agents, reasons };
};

export const chooseAgents = (input: AutoInput): AutoChoice => {
  const thin = (where: string): string => `no agent ${where} has ${MIN_RACES} races and a verified win yet`;
  const sources = [
    { source: 'repository' as const, ledger: input.here, where: 'here' },
    ...(input.all === null
      ? []
      : [{ source: 'all' as const, ledger: input.all, where: 'across your repositories' }]),
  ];
  const notes: string[] = [];
  for (const { source, ledger, where } of sources) {
    const candidates = ranked(ledger);
    if (candidates.length === 0) {
      notes.push(thin(where === 'here' ? 'in this repository' : where));
      continue;
    }
    const picked = withinBudget(candidates, input.count, where, input.maxCostUsd);
    if (picked.agents.length === 0) {
      notes.push(...picked.reasons);
      continue;
    }
    return { agents: picked.agents, reasons: [...notes, ...picked.reasons], source };
  }
  return {
    agents: [],
    reasons: [...notes, 'raced the default agents: too little history to choose by record'],
    source: 'default',
  };
};
