/** Reading a finished race's summary in the engine's tests. */
import type { RaceSummary } from '../../src/engine/index.js';

/** One agent's entry in the summary; throws when the race had no such agent. */
export const agentOf = (summary: RaceSummary, agent: string): RaceSummary['agents'][number] => {
  const found = summary.agents.find((item) => item.agent === agent);
  if (found === undefined) throw new Error(`no ${agent} in the summary`);
  return found;
};
