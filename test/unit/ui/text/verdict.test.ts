/**
 * Issue 34, "A score that explains itself": one line per agent, from its summary's fields alone,
 * says why it ranks where it does.
 */
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../../../src/core/events.js';
import type { AgentSummary, CheckSummary, RaceSummary } from '../../../../src/engine/index.js';
import { explainRank, rankingLines } from '../../../../src/ui/text/verdict.js';

const check = (status: CheckSummary['status'], passed: number, failed: number): CheckSummary => ({
  name: 'test',
  gate: true,
  status,
  exitCode: status === 'passed' ? 0 : 1,
  durationMs: 1000,
  tests: { passed, failed, skipped: 0 },
  newlyFailing: [],
  newlyPassing: [],
  output: '',
});

const agent = (name: string, total: number, extra: Partial<AgentSummary> = {}): AgentSummary => ({
  agent: name,
  adapter: 'claude',
  status: 'completed',
  exitCode: 0,
  durationMs: 123_000,
  usage: { ...emptyUsage(), costUsd: 0.12, costSource: 'reported' },
  diff: { filesChanged: 1, insertions: 2, deletions: 1 },
  branch: `hydra/r/${name}`,
  worktree: null,
  setup: null,
  checks: [check('passed', 14, 0)],
  score: {
    total,
    gates: { passed: true, failed: [] },
    parts: { checks: 1, tests: 1, diff: 1, scope: null, duration: 1, cost: 1 },
    disqualified: null,
    verified: true,
  },
  ...extra,
});

const race = (agents: AgentSummary[]): Pick<RaceSummary, 'agents' | 'baseline'> => ({
  agents,
  baseline: { status: 'done', checks: [check('failed', 13, 1)] },
});

describe('explainRank', () => {
  it("says what a result changed of the tests and whether it passes with the base's put back (the contract)", () => {
    const cheat = agent('codex', 40, {
      contract: {
        changed: ['test/discount.test.js', 'package.json#scripts.test'],
        passesOwn: true,
        passesBase: false,
      },
    });
    const honest = agent('claude', 95, {
      contract: { changed: ['test/discount.test.js'], passesOwn: true, passesBase: true },
    });
    const all = race([honest, cheat]);

    expect(explainRank(cheat, all)).toContain(
      "changed the tests (test/discount.test.js, package.json#scripts.test): passes only with its own tests (fails the base's)",
    );
    expect(explainRank(honest, all)).toContain(
      "changed the tests (test/discount.test.js): passes with the base's tests put back",
    );
    expect(explainRank(agent('gemini', 90), all)).not.toContain('changed the tests');
  });

  it('says its place, its checks against the base, its new test and its cost', () => {
    const fix = agent('claude', 95.5, {
      newTests: {
        count: 1,
        failOnBase: 1,
        passOnSelf: 1,
        reproductions: 1,
        onOthers: {},
        tests: [],
      },
    });
    const summary = race([fix, agent('codex', 80)]);
    expect(explainRank(fix, summary)).toBe(
      '1st, 95.5: test: passes all 14 tests (1 failed on the base); its new test fails on the base and passes here; $0.1200, 2m03s',
    );
  });

  it('says why a result cannot win, that a score is unverified, and that checks are not evidence', () => {
    const broken = agent('codex', 0, {
      checks: [check('failed', 10, 4)],
      score: {
        total: 0,
        gates: { passed: false, failed: ['test'] },
        parts: { checks: null, tests: null, diff: null, scope: null, duration: null, cost: null },
        disqualified: 'failed gate test',
        verified: true,
      },
    });
    const unchecked = agent('gemini', 60, { checks: [] });
    (unchecked.score as { verified: boolean }).verified = false;
    const gamed = agent('qwen', 50, {});
    (gamed.score as { flags?: string[] }).flags = ['test: ran 10 tests; the baseline ran 14'];
    const summary = race([agent('claude', 90), broken, unchecked, gamed]);
    expect(explainRank(broken, summary)).toMatch(/^4th, 0: cannot win: failed gate test; \$0\.1200/);
    expect(explainRank(unchecked, summary)).toMatch(/^2nd, 60: unverified \(no check ran\);/);
    expect(explainRank(gamed, summary)).toContain('not evidence: test: ran 10 tests; the baseline ran 14');
  });

  it('says a result is ahead once time and cost are left out, when a higher total leads it by them alone', () => {
    const parts = (diff: number, duration: number, cost: number) => ({
      checks: 1,
      tests: 1,
      diff,
      scope: null,
      duration,
      cost,
    });
    const small = agent('claude', 91.8);
    (small.score as { parts: object }).parts = parts(1, 0.8, 0.2);
    const cheap = agent('gemini', 94.6);
    (cheap.score as { parts: object }).parts = parts(0.75, 1, 1);
    const summary = race([cheap, small]);
    expect(explainRank(small, summary)).toMatch(
      /^2nd, 91\.8: ahead of gemini once time and cost are left out \(what --auto-merge best goes by\); test:/,
    );
    expect(explainRank(cheap, summary)).not.toContain('left out');
  });

  it('names a shared place', () => {
    const summary = race([agent('claude', 90), agent('codex', 90)]);
    expect(explainRank(summary.agents[1] as AgentSummary, summary)).toMatch(/^tied 1st, 90:/);
  });
});

describe('rankingLines', () => {
  it('lists the scored agents best first, one line each', () => {
    const lines = rankingLines(race([agent('codex', 80), agent('claude', 95.5)]));
    expect(lines.map((line) => line.split(':')[0])).toEqual(['claude', 'codex']);
  });
});
