/** `--agents auto`: agents chosen by their record, within the budget, else the default (engine/ledger/choose.ts). */
import { describe, expect, it } from 'vitest';
import { chooseAgents, tallyRuns, type AgentLedger } from '../../../../src/engine/ledger/index.js';
import { ledgerRun, type FakeOutcome } from '../../../support/ledger-records.js';

/** A ledger from `races` races, each with these outcomes. */
const ledgerOf = (races: number, outcomes: FakeOutcome[]): AgentLedger[] =>
  tallyRuns(
    Array.from({ length: races }, (_, index) =>
      ledgerRun({
        runId: `20261101-1000${String(index).padStart(2, '0')}-ab${String(index).padStart(2, '0')}`,
        agents: outcomes,
      }),
    ),
  );

// gemini wins every race at $0.50; qwen passes too, scoring lower, at $0.05; codex fails at $0.02.
const HERE = ledgerOf(4, [
  { agent: 'gemini', checks: 'passed', total: 90, costUsd: 0.5 },
  { agent: 'qwen', checks: 'passed', total: 70, costUsd: 0.05 },
  { agent: 'codex', checks: 'failed', costUsd: 0.02 },
]);

describe('--agents auto', () => {
  it('picks the agents with the most verified wins per dollar here, saying why', () => {
    // qwen never wins here, so only gemini has a verified win: a second agent needs one too.
    const choice = chooseAgents({ count: 2, here: HERE, all: null });
    expect(choice.source).toBe('repository');
    expect(choice.agents).toEqual(['gemini']);
    expect(choice.reasons).toEqual([
      'chose gemini: 4 verified wins in 4 races here ($0.500 a race, $0.500 a verified win)',
    ]);
  });

  it('ranks by wins per dollar, not by wins alone', () => {
    const here = [
      ...ledgerOf(4, [{ agent: 'gemini', checks: 'passed', total: 90, costUsd: 1 }]),
      ...ledgerOf(3, [{ agent: 'qwen', checks: 'passed', total: 90, costUsd: 0.1 }]),
    ];
    expect(chooseAgents({ count: 2, here, all: null }).agents).toEqual(['qwen', 'gemini']);
    expect(chooseAgents({ count: 1, here, all: null }).agents).toEqual(['qwen']);
  });

  it('passes over an agent whose cost a race would take the race past --max-cost-usd', () => {
    const here = [
      ...ledgerOf(4, [{ agent: 'gemini', checks: 'passed', total: 90, costUsd: 1 }]),
      ...ledgerOf(3, [{ agent: 'qwen', checks: 'passed', total: 90, costUsd: 0.1 }]),
    ];
    const choice = chooseAgents({ count: 2, here, all: null, maxCostUsd: 0.5 });
    expect(choice.agents).toEqual(['qwen']);
    expect(choice.reasons).toContain(
      'gemini passed over: $1.00 a race would take the expected spend to $1.10, over --max-cost-usd $0.500',
    );
  });

  it('falls back to every repository while this one has too little history, then to the default', () => {
    const thin = ledgerOf(2, [{ agent: 'gemini', checks: 'passed', total: 90, costUsd: 0.5 }]);
    const fromAll = chooseAgents({ count: 2, here: thin, all: HERE });
    expect(fromAll.source).toBe('all');
    expect(fromAll.agents).toEqual(['gemini']);
    expect(fromAll.reasons[0]).toBe('no agent in this repository has 3 races and a verified win yet');
    expect(fromAll.reasons[1]).toMatch(/^chose gemini: 4 verified wins in 4 races across your repositories/);

    const none = chooseAgents({ count: 2, here: [], all: [] });
    expect(none).toEqual({
      agents: [],
      source: 'default',
      reasons: [
        'no agent in this repository has 3 races and a verified win yet',
        'no agent across your repositories has 3 races and a verified win yet',
        'raced the default agents: too little history to choose by record',
      ],
    });
  });

  it('falls back when no agent with a record fits the budget', () => {
    const choice = chooseAgents({ count: 2, here: HERE, all: null, maxCostUsd: 0.1 });
    expect(choice.source).toBe('default');
    expect(choice.reasons[0]).toMatch(/^gemini passed over/);
  });
});
