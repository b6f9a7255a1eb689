/**
 * What cross-testing proves, as pure functions of the summary's `newTests` (so a run record gives
 * the same numbers): the score's `evidence` part and the warnings both panes show.
 *
 * A reproduction is a test file that fails on the base and passes on its author's result. When a
 * race has at least one, every agent's evidence part is
 *
 *   evidence = (2 × own + confirmed) / 3
 *     own       = 1 if the agent wrote a reproduction, else 0
 *     confirmed = the share of the other agents' reproductions its result passes (1 when there are none)
 *
 * so writing a reproduction counts most, passing the others' comes next, and a result that fails a
 * rival's reproduction loses that share. A new test that passes on the base proves nothing about
 * the task and counts for nothing. A race without reproductions has no evidence part.
 */
import type { NewTestsSummary } from '../../check-types.js';

interface WithNewTests {
  agent: string;
  newTests?: NewTestsSummary;
}

const reproductionsOf = (agent: WithNewTests): NewTestsSummary['tests'] =>
  (agent.newTests?.tests ?? []).filter((test) => test.onBase === 'failed' && test.onSelf === 'passed');

/** Each agent's evidence part (0–1), or null when no agent of the race wrote a reproduction. */
export const evidenceParts = (agents: readonly WithNewTests[]): Map<string, number> | null => {
  if (!agents.some((agent) => reproductionsOf(agent).length > 0)) return null;
  return new Map(
    agents.map((agent) => {
      const own = reproductionsOf(agent).length > 0 ? 1 : 0;
      const outcomes = agents
        .filter((other) => other.agent !== agent.agent)
        .flatMap((other) => reproductionsOf(other).map((test) => test.onOthers[agent.agent]))
        .filter((status) => status === 'passed' || status === 'failed');
      const confirmed =
        outcomes.length === 0 ? 1 : outcomes.filter((status) => status === 'passed').length / outcomes.length;
      return [agent.agent, (2 * own + confirmed) / 3];
    }),
  );
};

/** The warnings of a rival's result that fails an agent's reproduction, for both agents' panes. */
export const crossTestWarnings = (agents: readonly WithNewTests[]): Map<string, string[]> => {
  const warnings = new Map<string, string[]>();
  const add = (agent: string, text: string): void => {
    warnings.set(agent, [...(warnings.get(agent) ?? []), text]);
  };
  for (const author of agents)
    for (const test of reproductionsOf(author))
      for (const [rival, status] of Object.entries(test.onOthers)) {
        if (status !== 'failed') continue;
        add(
          rival,
          `fails ${author.agent}'s reproduction ${test.file} (it fails on the base, passes on ${author.agent}'s result)`,
        );
        add(author.agent, `${rival}'s result fails its reproduction ${test.file}`);
      }
  return warnings;
};
