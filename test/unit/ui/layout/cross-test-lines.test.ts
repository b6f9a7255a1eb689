/** Cross-testing on screen (issue 26): the pane's new-tests and warning lines, the compare view's column. */
import { describe, expect, it } from 'vitest';
import { lineText } from '../../../../src/ui/layout/lines.js';
import { paneLines } from '../../../../src/ui/layout/pane-lines.js';
import { compareLines } from '../../../../src/ui/layout/view-lines.js';
import { createTheme } from '../../../../src/ui/text/theme.js';
import type { AgentSnapshot, NewTestsSummary, ScoreSummary } from '../../../../src/engine/index.js';
import { completed, raceSnapshot } from '../../../support/ui-fixtures.js';

const theme = createTheme({ ascii: false, color: false });

const score = (total: number, evidence: number): ScoreSummary => ({
  total,
  gates: { passed: true, failed: [] },
  parts: { checks: 1, tests: 1, diff: 1, scope: null, duration: 1, cost: null, evidence },
  disqualified: null,
  verified: true,
});

/** Claude's reproduction fails on Gemini's result; Gemini's test passes on the base. */
const REPRODUCTION: NewTestsSummary = {
  count: 1,
  failOnBase: 1,
  passOnSelf: 1,
  reproductions: 1,
  onOthers: { codex: { passed: 1, failed: 0 }, gemini: { passed: 0, failed: 1 } },
  tests: [
    {
      file: 'add.test.js',
      runner: 'node',
      onBase: 'failed',
      onSelf: 'passed',
      onOthers: { codex: 'passed', gemini: 'failed' },
    },
  ],
};

const PROVES_NOTHING: NewTestsSummary = {
  count: 1,
  failOnBase: 0,
  passOnSelf: 1,
  reproductions: 0,
  onOthers: { claude: { passed: 1, failed: 0 }, codex: { passed: 1, failed: 0 } },
  tests: [
    {
      file: 'ok.test.js',
      runner: 'node',
      onBase: 'passed',
      onSelf: 'passed',
      onOthers: { claude: 'passed', codex: 'passed' },
    },
  ],
};

const pane = (agent: AgentSnapshot): string[] =>
  paneLines(agent, { index: 0, focused: false, now: 0, theme, width: 100, height: 20, compact: false }).map(
    lineText,
  );

describe('cross-testing in the panes', () => {
  it('says whether the new tests reproduce the bug, and warns in both panes when a result fails one', () => {
    const fixer = completed('claude', {
      newTests: REPRODUCTION,
      warnings: ["gemini's result fails its reproduction add.test.js"],
      score: score(90, 1),
    });
    const faker = completed('gemini', {
      newTests: PROVES_NOTHING,
      warnings: ["fails claude's reproduction add.test.js (it fails on the base, passes on claude's result)"],
      score: score(70, 0),
    });
    expect(pane(fixer)).toContain('1 new test · 1 reproduces');
    expect(
      pane(fixer).some((line) => line.includes("gemini's result fails its reproduction add.test.js")),
    ).toBe(true);
    expect(pane(faker)).toContain('1 new test · passes on the base');
    expect(pane(faker).some((line) => line.includes("fails claude's reproduction add.test.js"))).toBe(true);
  });

  it('has no such line for an agent without new tests', () => {
    expect(
      pane(completed('codex', { score: score(80, 1 / 3) })).some((line) => line.includes('new test')),
    ).toBe(false);
  });
});

describe('cross-testing in the compare view', () => {
  it('has a Repro column and names the result that fails a reproduction', () => {
    const snapshot = raceSnapshot([
      completed('claude', { newTests: REPRODUCTION, score: score(90, 1) }),
      completed('codex', { score: score(80, 1 / 3) }),
      completed('gemini', { newTests: PROVES_NOTHING, score: score(70, 0) }),
    ]);
    const text = compareLines(snapshot, 0, snapshot.now, theme, 140).map(lineText);
    expect(text[0]).toMatch(/Agent\s+Status\s+Score\s+Repro\s+Time/);
    expect(text[1]).toMatch(/1 Claude Code\s+completed\s+90\s+1\/1/);
    expect(text[2]).toMatch(/2 Codex\s+completed\s+80\s+-/);
    expect(text[3]).toMatch(/3 Gemini CLI\s+completed\s+70\s+0\/1/);
    expect(text).toContain("cross-test: ⚠ gemini fails claude's reproduction add.test.js");
  });

  it('has no Repro column in a race without new tests', () => {
    const snapshot = raceSnapshot([completed('claude', { score: score(90, 1) })]);
    expect(compareLines(snapshot, 0, snapshot.now, theme, 140).map(lineText)[0]).not.toMatch(/Repro/);
  });
});
