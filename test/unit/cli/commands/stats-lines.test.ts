/** `hydra stats` as printed: the table, the chart on a terminal only, and what was skipped. */
import { describe, expect, it } from 'vitest';
import { parseSince, statsLines } from '../../../../src/cli/commands/stats.js';
import { createStyle } from '../../../../src/cli/style.js';
import type { Ledger } from '../../../../src/engine/index.js';
import { tallyRuns } from '../../../../src/engine/ledger/index.js';
import { ledgerRun } from '../../../support/ledger-records.js';

const ledger: Ledger = {
  repos: ['/tmp/repo'],
  runs: 1,
  since: null,
  skipped: { damaged: 2, unfinished: 1, foreign: 0, missingRepos: 0 },
  agents: tallyRuns([
    ledgerRun({
      runId: '20261101-100000-aa01',
      agents: [
        { agent: 'claude', checks: 'passed', total: 90, costUsd: 1 },
        { agent: 'codex', checks: 'failed', costUsd: 0.2 },
      ],
    }),
  ]),
};
const plain = createStyle(false);

describe('hydra stats on a terminal', () => {
  it('draws quality against cost below the table: the agent that passed up and right, the one that failed down', () => {
    const lines = statsLines(ledger, plain, true, false);
    const chart = lines.slice(lines.indexOf('checks passed (up) against cost a race (right)'), -1);
    expect(chart).toEqual([
      'checks passed (up) against cost a race (right)',
      '100% |                                            A',
      '     |',
      '     |',
      '     |',
      ' 50% |',
      '     |',
      '     |',
      '     |',
      '  0% +---------B-----------------------------------',
      '      $0                                      $1.00',
      '      A claude  B codex',
    ]);
    expect(lines.at(-1)).toBe(
      'skipped: 2 damaged records (hydra runs shows what is wrong), 1 unfinished run',
    );
  });

  it('prints no chart into a pipe', () => {
    const lines = statsLines(ledger, plain, false, false);
    expect(lines.some((line) => line.startsWith('checks passed'))).toBe(false);
    expect(lines[1]).toMatch(/^AGENT +ADAPTER +RACES/);
  });
});

describe('--since', () => {
  it('takes an age back from now, or a date at UTC midnight', () => {
    const now = Date.UTC(2026, 10, 20, 12);
    expect(parseSince('7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseSince('2026-11-01', now)).toBe(Date.UTC(2026, 10, 1));
    expect(() => parseSince('2026-02-30', now)).toThrow('--since: 2026-02-30 is not a date');
  });
});
