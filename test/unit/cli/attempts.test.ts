/** `--attempts`: whom to try again, and when to stop (src/cli/attempts.ts). */
import { describe, expect, it } from 'vitest';
import { attemptStop, bestAgent } from '../../../src/cli/attempts.js';
import { tallyRuns } from '../../../src/engine/ledger/index.js';
import { fakeSummary, ledgerRun } from '../../support/ledger-records.js';

// This race: neither passed; claude scored higher.
const race = fakeSummary({
  runId: '20261110-100000-ab01',
  agents: [
    { agent: 'claude', checks: 'failed', total: 30, costUsd: 0.5 },
    { agent: 'codex', checks: 'failed', total: 10, costUsd: 0.1 },
  ],
});

describe('the next attempt', () => {
  it('is of the agent with the best record here, not the best score of this race', () => {
    const ledger = tallyRuns([
      ledgerRun({
        runId: '20261101-100000-ab02',
        agents: [{ agent: 'codex', checks: 'passed', costUsd: 0.1 }],
      }),
    ]);
    expect(bestAgent(race, ledger)?.agent).toBe('codex');
    expect(bestAgent(race, [])?.agent).toBe('claude');
  });

  it('does not start once a result passed every check, at N, or past the budget', () => {
    const claude = race.agents[0] ?? null;
    expect(attemptStop(race, { attempts: 3 }, 1, claude)).toBeNull();
    expect(attemptStop(race, { attempts: 3 }, 3, claude)).toBe('3 attempts made, none passed every check');
    expect(attemptStop(race, { attempts: 3, maxCostUsd: 1 }, 1, claude)).toBe(
      'another attempt of claude (about $0.5000) would pass --max-cost-usd $1',
    );
    const check = {
      name: 'test',
      gate: true,
      status: 'passed' as const,
      exitCode: 0,
      durationMs: 1,
      tests: null,
      newlyFailing: null,
      newlyPassing: null,
      output: '',
    };
    const passed = { ...race, agents: race.agents.map((agent) => ({ ...agent, checks: [check] })) };
    expect(attemptStop(passed, { attempts: 3 }, 1, claude)).toBe('a result passed every check');
  });
});
