/** The contract on screen (issue 34): the pane's line, the compare view's column, the detail view's two runs. */
import { describe, expect, it } from 'vitest';
import { lineText } from '../../../../src/ui/layout/lines.js';
import { paneLines } from '../../../../src/ui/layout/pane-lines.js';
import { compareLines } from '../../../../src/ui/layout/view-lines.js';
import { createTheme } from '../../../../src/ui/text/theme.js';
import type { AgentSnapshot, CheckSummary, ScoreSummary } from '../../../../src/engine/index.js';
import { completed, raceSnapshot } from '../../../support/ui-fixtures.js';

const theme = createTheme({ ascii: false, color: false });

const score = (total: number): ScoreSummary => ({
  total,
  gates: { passed: true, failed: [] },
  parts: { checks: 1, tests: 1, diff: 1, scope: null, duration: 1, cost: null },
  disqualified: null,
  verified: true,
});

const check = (status: CheckSummary['status'], extra: Partial<CheckSummary> = {}): CheckSummary => ({
  name: 'test',
  gate: true,
  status,
  exitCode: status === 'passed' ? 0 : 1,
  durationMs: 1000,
  tests: { passed: status === 'passed' ? 2 : 1, failed: status === 'passed' ? 0 : 1, skipped: 0 },
  newlyFailing: null,
  newlyPassing: null,
  output: '',
  ...extra,
});

/** Passes with its own edited test, fails with the base's. */
const CHEAT = [
  check('failed', {
    own: {
      status: 'passed',
      exitCode: 0,
      durationMs: 900,
      tests: { passed: 2, failed: 0, skipped: 0 },
      output: '',
    },
    contract: ['lib.test.js'],
  }),
];

const pane = (agent: AgentSnapshot): string[] =>
  paneLines(agent, { index: 0, focused: false, now: 0, theme, width: 100, height: 20, compact: false }).map(
    lineText,
  );

describe('the contract in the panes', () => {
  it('names what the result changed of the tests and that it passes only with its own', () => {
    expect(pane(completed('claude', { checks: CHEAT, score: score(20) }))).toContain(
      'changed the tests: lib.test.js · passes only with its own tests',
    );
  });

  it('has no such line for a result that changed none', () => {
    const lines = pane(completed('codex', { checks: [check('passed')], score: score(90) }));
    expect(lines.some((line) => line.includes('changed the tests'))).toBe(false);
  });
});

describe('the contract in the compare view', () => {
  it('has a column with both runs when a result changed the tests', () => {
    const snapshot = raceSnapshot([
      completed('claude', { checks: CHEAT, score: score(20) }),
      completed('codex', { checks: [check('passed')], score: score(90) }),
    ]);
    const text = compareLines(snapshot, 0, snapshot.now, theme, 160).map(lineText);
    expect(text[0]).toMatch(/Tests changed/);
    expect(text.find((line) => line.includes('Claude Code'))).toMatch(/own✔ base✘/);
    expect(text.find((line) => line.includes('Codex'))).toMatch(/✔ 2\/2\s+-/);
  });

  it('has no such column when no result changed the tests', () => {
    const snapshot = raceSnapshot([completed('codex', { checks: [check('passed')], score: score(90) })]);
    expect(compareLines(snapshot, 0, snapshot.now, theme, 160).map(lineText)[0]).not.toMatch(/Tests changed/);
  });
});
