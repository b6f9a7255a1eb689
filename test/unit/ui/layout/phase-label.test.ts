/**
 * After every agent settled, the race may cross-test their results and ask the judge before it
 * reviews: the header says which, instead of "racing".
 */
import { describe, expect, it } from 'vitest';
import { phaseOf, shownPhase } from '../../../../src/engine/race/snapshot.js';
import type { RaceContext } from '../../../../src/engine/race/race-types.js';
import { headerLines } from '../../../../src/ui/layout/chrome-lines.js';
import { lineText } from '../../../../src/ui/layout/lines.js';
import { createTheme } from '../../../../src/ui/text/theme.js';
import { T0, completed, raceSnapshot } from '../../../support/ui-fixtures.js';

const theme = createTheme({ ascii: false, color: false });

describe('the race phase', () => {
  it('is cross_testing while cross-testing (and weighing it), judging while the judge ranks', () => {
    expect(phaseOf('racing')).toBe('racing');
    expect(phaseOf('preparingRound')).toBe('racing');
    expect(phaseOf('crossTesting')).toBe('cross_testing');
    expect(phaseOf('weighing')).toBe('cross_testing');
    expect(phaseOf('judging')).toBe('judging');
    expect(phaseOf('reviewing')).toBe('reviewing');
  });

  it('is checking once every agent of the race ended while their checks still run (issue 34)', () => {
    const context = (statuses: string[], checking = true): RaceContext =>
      ({
        launches: statuses.map((_, index) => ({ agent: `a${index}` })),
        agents: statuses.map((status, index) => ({
          agent: `a${index}`,
          status,
          checking: index === 0 && checking,
        })),
        baseline: null,
      }) as unknown as RaceContext;
    expect(shownPhase('racing', context(['completed', 'running']))).toBe('racing');
    expect(shownPhase('racing', context(['completed', 'pending']))).toBe('racing');
    expect(shownPhase('racing', context(['completed', 'failed']))).toBe('checking');
    // Nothing checks (a result's grace, its commit): still racing.
    expect(shownPhase('racing', context(['completed', 'failed'], false))).toBe('racing');
    // Preparing a round: its agent has not started yet.
    expect(shownPhase('preparingRound', context(['completed']))).toBe('racing');
  });

  it.each([
    ['cross_testing', 'cross-testing'],
    ['judging', 'judging'],
    ['racing', 'racing'],
    ['checking', 'checking'],
  ] as const)('reads %s as "%s" in the header', (phase, label) => {
    const snapshot = raceSnapshot([completed('claude'), completed('codex')], { phase });
    const status = lineText(headerLines(snapshot, T0 + 90_000, theme, 120)[1] ?? []);
    expect(status.startsWith(`${label} · `)).toBe(true);
  });
});
