/**
 * What cross-testing proves, as pure functions of the summary's `newTests` (so a run record gives
 * the same numbers): the score's `evidence` part and the warnings both panes show.
 *
 * A reproduction is a test file that fails on the base and passes on its author's result. A guard
 * is one that passes on the base and on its author's result: it pins behaviour the base had, so a
 * result that fails it broke that behaviour. When a race has at least one reproduction, every
 * agent's evidence part is
 *
 *   evidence = (2 × own + confirmed) / 3
 *     own       = 1 if the agent wrote a reproduction, else 0
 *     confirmed = the share of the other agents' reproductions, and of the guards of the others
 *                 that wrote a reproduction, that its result passes (1 when there are none)
 *
 * so writing a reproduction counts most, passing the others' tests comes next, and a result that
 * fails a rival's reproduction, or breaks what the base did by a rival's guard, loses that share.
 * A guard counts only when its author also reproduced the bug: the task changes behaviour the base
 * had, so a test that pins the bug passes on the base too, and an author who fixed nothing must not
 * turn every fix's change into evidence against it (its guard is still named in the panes). A test
 * that changed the tree it ran in (edited or deleted a tracked file, moved HEAD: one deleted a
 * rival's `src/` and the rival "failed a reproduction") proves nothing, whatever its outcomes, and
 * is named. A race without reproductions has no evidence part.
 */
import type { NewTestRun, NewTestsSummary } from '../../check-types.js';

interface WithNewTests {
  agent: string;
  newTests?: NewTestsSummary;
}

/** It changed a tree it ran in: its outcomes prove nothing. */
const changedATree = (test: NewTestRun): boolean => test.changesTree !== undefined;

/** Fails on the base, passes on its author's result, and left every tree alone. */
export const isReproduction = (test: NewTestRun): boolean =>
  test.onBase === 'failed' && test.onSelf === 'passed' && !changedATree(test);

/** Passes on the base and on its author's result, and left every tree alone: behaviour the base had. */
const isGuard = (test: NewTestRun): boolean =>
  test.onBase === 'passed' && test.onSelf === 'passed' && !changedATree(test);

const reproductionsOf = (agent: WithNewTests): NewTestRun[] =>
  (agent.newTests?.tests ?? []).filter(isReproduction);

/** The tests of an agent that weigh on its rivals: its reproductions, and its guards once it reproduced the bug. */
const weighingOf = (agent: WithNewTests): NewTestRun[] => {
  const tests = agent.newTests?.tests ?? [];
  return tests.some(isReproduction) ? tests.filter((test) => isReproduction(test) || isGuard(test)) : [];
};

/** Each agent's evidence part (0–1), or null when no agent of the race wrote a reproduction. */
export const evidenceParts = (agents: readonly WithNewTests[]): Map<string, number> | null => {
  if (!agents.some((agent) => reproductionsOf(agent).length > 0)) return null;
  return new Map(
    agents.map((agent) => {
      const own = reproductionsOf(agent).length > 0 ? 1 : 0;
      const outcomes = agents
        .filter((other) => other.agent !== agent.agent)
        .flatMap((other) => weighingOf(other).map((test) => test.onOthers[agent.agent]))
        .filter((status) => status === 'passed' || status === 'failed');
      const confirmed =
        outcomes.length === 0 ? 1 : outcomes.filter((status) => status === 'passed').length / outcomes.length;
      return [agent.agent, (2 * own + confirmed) / 3];
    }),
  );
};

/** Where a test changed trees, and what: `the base (src/a.js), b's result (src/)`. */
const changedWhere = (test: NewTestRun): string => {
  const changes = test.changesTree ?? {};
  const list = (files: readonly string[]): string => files.join(', ');
  return [
    ...(changes.base === undefined ? [] : [`the base (${list(changes.base)})`]),
    ...(changes.self === undefined ? [] : [`its own result (${list(changes.self)})`]),
    ...Object.entries(changes.others ?? {}).map(([agent, files]) => `${agent}'s result (${list(files)})`),
  ].join('; ');
};

/**
 * The warnings of cross-testing, for both agents' panes: a rival's result that fails an agent's
 * reproduction or guard, and a test that changed the tree it ran in.
 */
export const crossTestWarnings = (agents: readonly WithNewTests[]): Map<string, string[]> => {
  const warnings = new Map<string, string[]>();
  const add = (agent: string, text: string): void => {
    warnings.set(agent, [...(warnings.get(agent) ?? []), text]);
  };
  for (const author of agents)
    for (const test of author.newTests?.tests ?? []) {
      if (changedATree(test)) {
        add(
          author.agent,
          `its test ${test.file} changed the tree it ran in: ${changedWhere(test)}; it proves nothing`,
        );
        for (const rival of Object.keys(test.changesTree?.others ?? {}))
          add(
            rival,
            `${author.agent}'s test ${test.file} changed this result's files as it ran: not counted`,
          );
        continue;
      }
      const reproduction = isReproduction(test);
      if (!reproduction && !isGuard(test)) continue;
      for (const [rival, status] of Object.entries(test.onOthers)) {
        if (status !== 'failed') continue;
        if (reproduction) {
          add(
            rival,
            `fails ${author.agent}'s reproduction ${test.file} (it fails on the base, passes on ${author.agent}'s result)`,
          );
          add(author.agent, `${rival}'s result fails its reproduction ${test.file}`);
        } else {
          add(
            rival,
            `fails ${author.agent}'s test ${test.file}, which passes on the base (it changed behaviour the base had)`,
          );
          add(author.agent, `${rival}'s result fails its test ${test.file}, which passes on the base`);
        }
      }
    }
  return warnings;
};
