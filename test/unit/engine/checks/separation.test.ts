/**
 * `--auto-merge best`: time and cost never decide the merge (checks/separation.ts). It goes to the
 * result ahead on checks, tests, cross-tests, scope and size (its merit), and to none when two
 * results share the best merit.
 */
import { describe, expect, it } from 'vitest';
import type { ScoreInput } from '../../../../src/engine/checks/score.js';
import { mergeContenders, pickBest, scoreAgents } from '../../../../src/engine/checks/score.js';

const passing = (name: string, extra: Partial<ScoreInput> = {}): ScoreInput => ({
  agent: name,
  completed: true,
  checks: [{ name: 'test', gate: true, passed: true, tests: { passed: 2, failed: 0 } }],
  diff: { files: 1, lines: 2 },
  outsideAllowed: null,
  durationMs: 1000,
  costUsd: 0.1,
  ...extra,
});

const separated = { requireSeparation: true } as const;

describe('separation', () => {
  it('merges nothing when only time and cost tell two results apart, and says why', () => {
    const scores = scoreAgents([passing('fix'), passing('special-case', { durationMs: 4000, costUsd: 0.3 })]);
    // Without the rule the faster, cheaper one wins: a coin flip on the user's branch.
    expect(pickBest(scores)).toMatchObject({ agent: 'fix' });
    const pick = pickBest(scores, separated);
    expect(pick.agent).toBeNull();
    expect('reason' in pick ? pick.reason : '').toMatch(
      /^fix and special-case pass the same checks with diffs of the same size: only time and cost tell them apart, which say nothing about which change is right \(no reproduction .*\); .*hydra merge <run> <agent>.*--judge <agent>/,
    );
  });

  it('lets size decide: the smaller change that passes the same checks', () => {
    const scores = scoreAgents([passing('small'), passing('large', { diff: { files: 1, lines: 3 } })]);
    expect(pickBest(scores, separated)).toMatchObject({ agent: 'small' });
  });

  it('lets size decide between results that pass the same reproductions', () => {
    const scores = scoreAgents([
      passing('small', { evidence: 1 }),
      passing('large', { evidence: 1, diff: { files: 2, lines: 6 } }),
    ]);
    expect(pickBest(scores, separated)).toMatchObject({ agent: 'small' });
  });

  it('merges the smaller result when the larger one leads the total only by time and cost', () => {
    const scores = scoreAgents([
      passing('cheap', { evidence: 1, diff: { files: 1, lines: 8 }, costUsd: 0.01 }),
      passing('small', { evidence: 1, diff: { files: 1, lines: 6 }, costUsd: 1, durationMs: 9000 }),
    ]);
    expect(scores[0]!.total).toBeGreaterThan(scores[1]!.total);
    expect(pickBest(scores)).toMatchObject({ agent: 'cheap' });
    expect(pickBest(scores, separated)).toMatchObject({ agent: 'small' });
  });

  it('names every result nothing separates from the top', () => {
    const scores = scoreAgents([
      passing('a'),
      passing('b', { durationMs: 2000 }),
      passing('c', { durationMs: 3000 }),
    ]);
    const pick = pickBest(scores, separated);
    expect('reason' in pick ? pick.reason : '').toMatch(
      /^a, b and c pass the same checks with diffs of the same size/,
    );
  });

  it('merges nothing when results pass the same reproductions with diffs of the same size', () => {
    const scores = scoreAgents([
      passing('fix', { evidence: 1 }),
      passing('other', { evidence: 1, durationMs: 3000 }),
    ]);
    const pick = pickBest(scores, separated);
    expect(pick.agent).toBeNull();
    expect('reason' in pick ? pick.reason : '').toMatch(
      /^fix and other pass the same checks and cross-tests with diffs of the same size: only time and cost tell them apart, which say nothing about which change is right; review/,
    );
  });

  it('merges the result cross-testing separates: one that fails a rival reproduction loses', () => {
    const scores = scoreAgents([
      passing('fix', { evidence: 1, diff: { files: 1, lines: 4 } }),
      passing('special-case', { evidence: 0 }),
    ]);
    expect(pickBest(scores, separated)).toMatchObject({ agent: 'fix' });
  });

  it('is not held back by a rival that failed a check, broke the contract or touched files outside allowed_paths', () => {
    const failing = passing('failing', {
      checks: [{ name: 'test', gate: false, passed: false, tests: { passed: 1, failed: 1 } }],
    });
    const flagged = passing('flagged', {
      checks: [{ name: 'test', gate: true, passed: true, tests: { passed: 2, failed: 0 }, flags: ['x'] }],
    });
    const outside = passing('outside', { outsideAllowed: 1 });
    const scores = scoreAgents([passing('fix', { outsideAllowed: 0 }), failing, flagged, outside]);
    expect(pickBest(scores, separated)).toMatchObject({ agent: 'fix' });
  });

  it('hands results nothing separates to the judge, however far apart their totals, and follows its ranking', () => {
    const scores = scoreAgents([passing('fast'), passing('slow', { durationMs: 20_000, costUsd: 2 })]);
    expect(mergeContenders(scores, { judgeMargin: 0 })).toEqual(['fast']);
    expect(mergeContenders(scores, { ...separated, judgeMargin: 0 })).toEqual(['fast', 'slow']);
    expect(pickBest(scores, { ...separated, judgeMargin: 0, ranking: ['slow', 'fast'] })).toMatchObject({
      agent: 'slow',
    });
  });

  it('leaves --unverified as it was: the top of results no check ran for is merged on diff, time and cost', () => {
    const unchecked = { checks: [] };
    const scores = scoreAgents([passing('a', unchecked), passing('b', { ...unchecked, durationMs: 2000 })]);
    expect(pickBest(scores, { ...separated, allowUnverified: true })).toMatchObject({ agent: 'a' });
  });

  it('merges the top of results that made the same change: no coin flip', () => {
    const scores = scoreAgents([passing('a'), passing('b', { durationMs: 2000 })]);
    const sameChange = (x: string, y: string): boolean =>
      x === y || [x, y].every((agent) => 'ab'.includes(agent));
    expect(pickBest(scores, { ...separated, sameChange })).toMatchObject({ agent: 'a' });
    expect(pickBest(scores, { ...separated, sameChange: (x, y) => x === y }).agent).toBeNull();
  });

  it('merges a result that stands alone', () => {
    expect(pickBest(scoreAgents([passing('only')]), separated)).toMatchObject({ agent: 'only' });
  });
});
