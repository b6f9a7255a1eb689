/**
 * The contract in the score (issue 34): the score reads the run with the base's tests; a check
 * passes only when it passes both ways; a result passing only with its own tests cannot be
 * auto-merged; and evidence never outweighs failing the contract.
 */
import { describe, expect, it } from 'vitest';
import { pickBest, scoreRace } from '../../../../src/engine/checks/index.js';
import type { CheckSummary, NewTestsSummary } from '../../../../src/engine/index.js';
import { summaryAgent } from '../../../support/ui-fixtures.js';

const check = (passed: number, failed: number, extra: Partial<CheckSummary> = {}): CheckSummary => ({
  name: 'test',
  gate: false,
  status: failed === 0 ? 'passed' : 'failed',
  exitCode: failed === 0 ? 0 : 1,
  durationMs: 10,
  tests: { passed, failed, skipped: 0 },
  newlyFailing: null,
  newlyPassing: null,
  output: '',
  ...extra,
});

const own = (passed: number, failed: number): NonNullable<CheckSummary['own']> => ({
  status: failed === 0 ? 'passed' : 'failed',
  exitCode: failed === 0 ? 0 : 1,
  durationMs: 10,
  tests: { passed, failed, skipped: 0 },
  output: '',
});

/** A "reproduction" rigged on its author's name: fails on the base and on the honest fix, passes on its own. */
const RIGGED: NewTestsSummary = {
  count: 1,
  failOnBase: 1,
  passOnSelf: 1,
  reproductions: 1,
  onOthers: { honest: { passed: 0, failed: 1 } },
  tests: [
    {
      file: 'repro.test.js',
      runner: 'node',
      onBase: 'failed',
      onSelf: 'passed',
      onOthers: { honest: 'failed' },
    },
  ],
};

describe('the contract in the score', () => {
  it('gives no evidence to a result that fails a check the other passes, so it cannot outrank it', () => {
    const agents = [
      summaryAgent('honest', { checks: [check(10, 0)] }),
      // It left the bug (one of the base's ten tests fails) and rigged a reproduction.
      summaryAgent('cheat', { checks: [check(9, 1)], newTests: RIGGED }),
    ];
    const [honest, cheat] = scoreRace(agents);
    expect(cheat?.parts.evidence ?? 0).toBe(0);
    expect(honest?.total ?? 0).toBeGreaterThan(cheat?.total ?? 100);
    const scores = agents.map((agent, index) => ({ agent: agent.agent, ...scoreRace(agents)[index]! }));
    expect(pickBest(scores)).toEqual({ agent: 'honest', score: honest?.total });
  });

  it('scores the run with the base’s tests and flags a result that passes only with its own', () => {
    const agents = [
      summaryAgent('cheat', { checks: [check(1, 1, { own: own(2, 0), contract: ['lib.test.js'] })] }),
    ];
    const [cheat] = scoreRace(agents);
    expect(cheat?.parts.checks).toBe(0);
    expect(cheat?.parts.tests).toBe(0);
    expect(cheat?.flags).toEqual([
      "test: passes only with its own versions of the base's tests (it changed lib.test.js)",
    ]);
    expect(pickBest([{ agent: 'cheat', ...cheat! }]).agent).toBeNull();
  });

  it('fails a check whose own run fails even when the base’s tests pass', () => {
    const [tests] = scoreRace([
      summaryAgent('tests', { checks: [check(2, 0, { own: own(1, 1), contract: ['lib.test.js'] })] }),
    ]);
    expect(tests?.parts.checks).toBe(0);
  });

  it('with --allow-test-changes reads the own run and lets it win', () => {
    const agents = [
      summaryAgent('both', { checks: [check(1, 1, { own: own(2, 0), contract: ['lib.test.js'] })] }),
    ];
    const [both] = scoreRace(agents, undefined, true);
    expect(both?.parts.checks).toBe(1);
    expect(pickBest([{ agent: 'both', ...both! }], { allowTestChanges: true }).agent).toBe('both');
  });
});
