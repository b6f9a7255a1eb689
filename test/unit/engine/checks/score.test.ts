/** The score: disqualifications, parts, weights, and what --auto-merge best picks. */
import { describe, expect, it } from 'vitest';
import type { ScoreInput, ScoredCheck } from '../../../../src/engine/checks/score.js';
import { pickBest, scoreAgents } from '../../../../src/engine/checks/score.js';

const check = (
  name: string,
  passed: boolean,
  gate = false,
  tests: ScoredCheck['tests'] = null,
): ScoredCheck => ({
  name,
  gate,
  passed,
  tests,
});

const agent = (name: string, extra: Partial<ScoreInput> = {}): ScoreInput => ({
  agent: name,
  completed: true,
  checks: [check('test', true, true, { passed: 10, failed: 0 })],
  diff: { files: 1, lines: 10 },
  outsideAllowed: null,
  durationMs: 1000,
  costUsd: 0.1,
  ...extra,
});

describe('scoreAgents', () => {
  it('orders a fix above a break above no change, and a failed gate scores 0', () => {
    const scores = scoreAgents([
      agent('fixes'),
      agent('breaks', { checks: [check('test', false, false, { passed: 7, failed: 3 })] }),
      agent('nothing', { diff: { files: 0, lines: 0 } }),
      agent('gated', { checks: [check('build', false, true)] }),
    ]);
    const total = (name: string): number => scores.find((score) => score.agent === name)?.total ?? -1;
    expect(total('fixes')).toBe(100);
    expect(total('breaks')).toBeGreaterThan(0);
    expect(total('breaks')).toBeLessThan(total('fixes'));
    expect(total('nothing')).toBe(0);
    expect(scores.find((score) => score.agent === 'nothing')?.disqualified).toBe('changed nothing');
    expect(scores.find((score) => score.agent === 'gated')).toMatchObject({
      total: 0,
      gates: { passed: false, failed: ['build'] },
      disqualified: 'failed gate build',
    });
  });

  it('is deterministic: the same inputs give the same scores', () => {
    const inputs = [agent('a', { durationMs: 2000 }), agent('b', { diff: { files: 2, lines: 40 } })];
    expect(scoreAgents(inputs)).toEqual(scoreAgents(inputs));
  });

  it('leaves out a part nobody has: an unknown cost is not counted against anyone', () => {
    const [a, b] = scoreAgents([agent('a', { costUsd: null }), agent('b', { costUsd: 5 })]);
    expect(a?.parts.cost).toBeNull();
    expect(b?.parts.cost).toBeNull();
    expect(a?.total).toBe(b?.total);
  });

  it('prefers the smaller diff and the faster agent, other things equal', () => {
    const [small, large] = scoreAgents([agent('small'), agent('large', { diff: { files: 3, lines: 100 } })]);
    expect(small?.parts.diff).toBe(1);
    expect(large?.parts.diff).toBeCloseTo(0.1);
    expect(small!.total).toBeGreaterThan(large!.total);
  });

  it('flags files outside allowed_paths through the scope part', () => {
    const [score] = scoreAgents([agent('a', { diff: { files: 4, lines: 10 }, outsideAllowed: 1 })]);
    expect(score?.parts.scope).toBe(0.75);
  });

  it('follows the weights', () => {
    const inputs = [agent('a', { durationMs: 4000 }), agent('b', { diff: { files: 1, lines: 40 } })];
    const speed = scoreAgents(inputs, { checks: 0, tests: 0, diff: 0, scope: 0, duration: 1, cost: 0 });
    expect(speed.map((score) => score.total)).toEqual([25, 100]);
  });
});

describe('pickBest', () => {
  it('picks the top score', () => {
    expect(pickBest(scoreAgents([agent('a'), agent('b', { durationMs: 3000 })]))).toEqual({
      agent: 'a',
      score: 100,
    });
  });

  it('picks nothing on a tie, and says who tied', () => {
    const pick = pickBest(scoreAgents([agent('a'), agent('b')]));
    expect(pick).toEqual({ agent: null, reason: 'a and b tie at 100' });
  });

  it("follows a judge's ranking of an exact tie, also when it ranks the top first", () => {
    const scores = scoreAgents([agent('a'), agent('b')]);
    expect(pickBest(scores, { judgeMargin: 5, ranking: ['a', 'b'] })).toEqual({ agent: 'a', score: 100 });
    expect(pickBest(scores, { judgeMargin: 5, ranking: ['b', 'a'] })).toEqual({ agent: 'b', score: 100 });
  });

  it('picks nothing when no result can win, and says why', () => {
    const pick = pickBest(scoreAgents([agent('a', { completed: false }), agent('b', { diff: null })]));
    expect(pick.agent).toBeNull();
    expect('reason' in pick && pick.reason).toContain('a: did not complete');
  });
});
