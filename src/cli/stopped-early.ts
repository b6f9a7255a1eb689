/**
 * `--stop first-verified`: what stopping the others early saved, against each stopped agent's
 * median cost a race in this repository's ledger (hydra stats), and the line that says so.
 */
import { findRepoRoot, readLedger } from '../engine/index.js';
import type { RaceSummary } from '../engine/index.js';

export interface EarlyStop {
  by: string;
  agents: string[];
  /** The median cost a race less what it spent, summed over the stopped agents with a history; null: none has one. */
  savedUsd: number | null;
}

/** The early stop of a race, with what it saved; null when nobody was stopped early. */
export async function earlyStop(
  summary: RaceSummary,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<EarlyStop | null> {
  const stopped = summary.stoppedEarly;
  if (stopped === undefined || stopped.agents.length === 0) return null;
  const root = findRepoRoot(cwd);
  const ledger = root === null ? [] : (await readLedger({ repos: [root], env })).agents;
  let saved: number | null = null;
  for (const name of stopped.agents) {
    const line = ledger.find((item) => item.agent === name || name.startsWith(`${item.agent}-`));
    const spent = summary.agents.find((agent) => agent.agent === name)?.usage.costUsd ?? 0;
    if (line?.medianCostUsd === null || line?.medianCostUsd === undefined) continue;
    saved = (saved ?? 0) + Math.max(0, line.medianCostUsd - spent);
  }
  return { by: stopped.by, agents: stopped.agents, savedUsd: saved };
}

/** `claude's result passed every check first: codex was stopped early (...)`. */
export const earlyStopLine = (stop: EarlyStop): string =>
  `${stop.by}'s result passed every check first: ${stop.agents.join(', ')} ${stop.agents.length === 1 ? 'was' : 'were'} stopped early (--stop first-verified), ${stop.agents.length === 1 ? 'its' : 'their'} work so far kept on ${stop.agents.length === 1 ? 'its branch' : 'their branches'}; ${
    stop.savedUsd === null
      ? 'no history yet to say what it saved'
      : `saved about $${stop.savedUsd.toFixed(2)} against ${stop.agents.length === 1 ? 'its' : 'their'} median cost a race (hydra stats)`
  }`;
