/**
 * Which failed checks get a hint at the race's end: a check failing on the baseline and every
 * result (the place, not the results, is wrong), and a sandboxed check whose `fetch` failed.
 */
import { describe, expect, it } from 'vitest';
import {
  FETCH_FAILED_HINT,
  failingEverywhere,
  fetchFailedInSandbox,
  missingFilesHint,
} from '../../../src/cli/check-hints.js';
import type { CheckSummary, RaceSummary } from '../../../src/engine/index.js';

const check = (name: string, status: CheckSummary['status'], output = ''): CheckSummary => ({
  name,
  gate: true,
  status,
  exitCode: status === 'passed' ? 0 : 1,
  durationMs: 10,
  tests: null,
  newlyFailing: null,
  newlyPassing: null,
  output,
});

const summaryOf = (
  baseline: CheckSummary[],
  agents: Array<{ checks: CheckSummary[]; sandbox?: string | null }>,
): RaceSummary =>
  ({
    baseline: { status: 'done', checks: baseline },
    agents: agents.map((agent, index) => ({ agent: `a${index}`, status: 'completed', ...agent })),
  }) as unknown as RaceSummary;

describe('failingEverywhere', () => {
  it('names a check that failed on the baseline and on every result', () => {
    const summary = summaryOf(
      [check('test', 'failed'), check('lint', 'passed')],
      [{ checks: [check('test', 'failed'), check('lint', 'passed')] }, { checks: [check('test', 'error')] }],
    );
    expect(failingEverywhere(summary)).toEqual(['test']);
  });

  it('names none when one result passed it: the results, not the place, differ', () => {
    const summary = summaryOf(
      [check('test', 'failed')],
      [{ checks: [check('test', 'failed')] }, { checks: [check('test', 'passed')] }],
    );
    expect(failingEverywhere(summary)).toEqual([]);
  });
});

describe('missingFilesHint', () => {
  it('names the missing files (three, then a count) and .worktreeinclude and [setup]', () => {
    const hint = missingFilesHint(['test'], ['.env', '.env.local', 'config/', 'secrets.json']);
    expect(hint).toContain('check test fails on the base commit too');
    expect(hint).toContain('(.env, .env.local, config/ and 1 more)');
    expect(hint).toContain('.worktreeinclude');
    expect(hint).toContain('[setup] copy');
  });

  it('says nothing when the worktrees lack nothing', () => {
    expect(missingFilesHint(['test'], [])).toBeNull();
  });
});

describe('fetchFailedInSandbox', () => {
  const fetchFailed = check('test', 'failed', 'TypeError: fetch failed\n  cause: getaddrinfo ENOTFOUND');

  it('is true for a sandboxed agent whose check failed with fetch failed', () => {
    expect(fetchFailedInSandbox(summaryOf([], [{ checks: [fetchFailed], sandbox: 'bubblewrap' }]))).toBe(
      true,
    );
    expect(FETCH_FAILED_HINT).toMatch(/Node before 22\.21.*NODE_USE_ENV_PROXY/);
  });

  it('is false unsandboxed, or when the check failed otherwise', () => {
    expect(fetchFailedInSandbox(summaryOf([], [{ checks: [fetchFailed], sandbox: null }]))).toBe(false);
    expect(
      fetchFailedInSandbox(
        summaryOf([], [{ checks: [check('test', 'failed', 'expected 2')], sandbox: 'bubblewrap' }]),
      ),
    ).toBe(false);
  });
});
