/** Checks and scores on screen: the pane's check and score lines, and the compare view sorted by score. */
import { describe, expect, it } from 'vitest';
import { lineText } from '../../../../src/ui/layout/lines.js';
import { paneLines } from '../../../../src/ui/layout/pane-lines.js';
import { compareLines, detailLines } from '../../../../src/ui/layout/view-lines.js';
import { createTheme } from '../../../../src/ui/text/theme.js';
import type { CheckSummary, ScoreSummary } from '../../../../src/engine/index.js';
import { completed, raceSnapshot } from '../../../support/ui-fixtures.js';

const theme = createTheme({ ascii: false, color: false });

const check = (overrides: Partial<CheckSummary>): CheckSummary => ({
  name: 'test',
  gate: false,
  status: 'passed',
  exitCode: 0,
  durationMs: 1200,
  tests: null,
  newlyFailing: null,
  newlyPassing: null,
  output: '',
  ...overrides,
});

const score = (total: number, disqualified: string | null = null): ScoreSummary => ({
  total,
  gates: { passed: disqualified === null, failed: [] },
  parts: { checks: null, tests: null, diff: null, scope: null, duration: null, cost: null },
  disqualified,
  verified: true,
});

const FAILING_ONE = check({
  status: 'failed',
  exitCode: 1,
  tests: { passed: 41, failed: 1, skipped: 0 },
  newlyFailing: ['adds'],
  newlyPassing: [],
});

describe('a pane with checks', () => {
  it('shows each check with its counts and what newly fails, and the score', () => {
    const agent = completed('claude', {
      checks: [check({ name: 'build', gate: true }), FAILING_ONE],
      score: score(63.5),
    });
    const text = paneLines(agent, {
      index: 0,
      focused: false,
      now: 0,
      theme,
      width: 80,
      height: 20,
      compact: false,
    }).map(lineText);
    expect(text).toContain('✔ build  ✘ test 41/42 · 1 newly failing');
    expect(text).toContain('score 63.5');
  });

  it('says the checks are running, and why a result scores 0', () => {
    const running = completed('codex', { checking: true });
    const out = completed('cursor', { checks: [], score: score(0, 'changed nothing') });
    const lines = (agent: typeof running): string[] =>
      paneLines(agent, {
        index: 0,
        focused: false,
        now: 0,
        theme,
        width: 80,
        height: 20,
        compact: false,
      }).map(lineText);
    expect(lines(running)).toContain('· running checks…');
    expect(lines(out)).toContain('score 0 · changed nothing');
  });
});

describe('the compare view with checks', () => {
  it('sorts by score and has a column per check', () => {
    const snapshot = raceSnapshot(
      [
        completed('claude', { checks: [FAILING_ONE], score: score(40) }),
        completed('codex', {
          checks: [check({ tests: { passed: 42, failed: 0, skipped: 0 } })],
          score: score(91.2),
        }),
      ],
      { baseline: { status: 'done', checks: [FAILING_ONE], error: null } },
    );
    const text = compareLines(snapshot, 0, snapshot.now, theme, 120).map(lineText);
    expect(text[0]).toMatch(/Agent\s+Status\s+Score\s+test\s+Time/);
    expect(text[1]).toMatch(/2 Codex\s+completed\s+91\.2\s+✔ 42\/42/);
    expect(text[2]).toMatch(/▸ 1 Claude Code\s+completed\s+40\s+✘ 41\/42/);
  });

  it('says the baseline was cancelled when the race was cancelled before its checks finished', () => {
    const snapshot = raceSnapshot([completed('claude', { checks: [FAILING_ONE] })], {
      baseline: {
        status: 'cancelled',
        checks: [],
        error: "The race was cancelled before the baseline's checks finished.",
      },
    });
    const text = compareLines(snapshot, 0, snapshot.now, theme, 120).map(lineText);
    expect(text).toContain('baseline: cancelled before its checks finished');
  });
});

describe('the detail view with checks', () => {
  it('lists each check with the end of its output when it did not pass, and the newly failing tests', () => {
    const agent = completed('claude', {
      checks: [{ ...FAILING_ONE, output: 'TAP version 13\nnot ok 1 - adds\n# fail 1' }],
      score: score(40),
    });
    const text = detailLines(agent, 0, theme, 100, 'run-1').map(lineText);
    expect(text).toContain('score 40');
    expect(text).toContain('✘ test 41/42 · 1 newly failing · 1s');
    expect(text).toContain('    not ok 1 - adds');
    expect(text).toContain('    newly failing: adds');
  });

  it('says where a check ran when it was in a container, as the baseline line does', () => {
    const inContainer = check({ where: 'container', engine: 'ssh://builder' });
    const agent = completed('claude', { checks: [inContainer], score: score(90) });
    const text = detailLines(agent, 0, theme, 100, 'run-1').map(lineText);
    expect(text).toContain('✔ test · 1s · in a container on ssh://builder');

    const snapshot = raceSnapshot([agent], {
      baseline: { status: 'done', checks: [inContainer], error: null },
    });
    const compare = compareLines(snapshot, 0, snapshot.now, theme, 120).map(lineText);
    expect(compare).toContain('baseline: ✔ test (in a container on ssh://builder)');
  });
});
