/** The ledger's figures from known records (engine/ledger/tally.ts). */
import { describe, expect, it } from 'vitest';
import { tallyRuns, type AgentLedger } from '../../../../src/engine/ledger/index.js';
import { ledgerRun, type FakeRun } from '../../../support/ledger-records.js';

const RUNS: FakeRun[] = [
  // claude wins on score; both pass.
  {
    runId: '20261101-100000-aa01',
    agents: [
      { agent: 'claude', checks: 'passed', total: 90, costUsd: 0.2, durationMs: 60_000 },
      { agent: 'codex', checks: 'passed', total: 70, costUsd: 0.1, durationMs: 30_000 },
    ],
  },
  // claude fails its checks; codex passes and writes two reproductions.
  {
    runId: '20261102-100000-aa02',
    agents: [
      { agent: 'claude', checks: 'failed', costUsd: 0.3, durationMs: 120_000 },
      { agent: 'codex', checks: 'passed', total: 75, costUsd: 0.1, reproductions: 2, durationMs: 40_000 },
    ],
  },
  // Within the judge's margin: the judge puts codex first though claude scored higher.
  {
    runId: '20261103-100000-aa03',
    agents: [
      { agent: 'claude', checks: 'passed', total: 82, durationMs: 90_000 },
      { agent: 'codex', checks: 'passed', total: 80, durationMs: 50_000 },
    ],
    judge: { contenders: ['claude', 'codex'], first: 'codex' },
  },
  // A rerun of claude with no checks and no known cost: a race of claude's, nothing verified.
  {
    runId: '20261104-100000-aa04',
    agents: [{ agent: 'claude-2', rerunOf: 'claude', costUsd: null, status: 'failed', durationMs: 5_000 }],
  },
];

const line = (ledger: AgentLedger[], agent: string): AgentLedger => {
  const found = ledger.find((item) => item.agent === agent);
  if (found === undefined) throw new Error(`no ${agent} in the ledger`);
  return found;
};

describe("the contract in the ledger: who changed the base's tests, and who passed only that way", () => {
  it('counts the races a result changed the tests in, and those it passed only with its own', () => {
    const ledger = tallyRuns(
      [
        {
          runId: '20261105-100000-aa05',
          agents: [
            {
              agent: 'claude',
              checks: 'passed' as const,
              total: 90,
              contract: { passesOwn: true, passesBase: true },
            },
            { agent: 'codex', checks: 'failed' as const, contract: { passesOwn: true, passesBase: false } },
          ],
        },
        { runId: '20261106-100000-aa06', agents: [{ agent: 'codex', checks: 'passed' as const, total: 70 }] },
      ].map(ledgerRun),
    );
    expect(line(ledger, 'claude')).toMatchObject({ testsChanged: 1, passedOnlyOwnTests: 0 });
    expect(line(ledger, 'codex')).toMatchObject({ testsChanged: 1, passedOnlyOwnTests: 1 });
  });
});

describe('the ledger of known races', () => {
  const ledger = tallyRuns(RUNS.map(ledgerRun));

  it('counts races, verified wins (the judge deciding a close race), checks passed and reproductions', () => {
    expect(line(ledger, 'claude')).toMatchObject({
      adapter: 'claude',
      races: 4,
      completed: 3,
      verifiedWins: 1,
      checked: 3,
      checksPassed: 2,
      reproductions: 0,
    });
    expect(line(ledger, 'claude').checksPassRate).toBeCloseTo(2 / 3);
    expect(line(ledger, 'codex')).toMatchObject({
      races: 3,
      verifiedWins: 2,
      checked: 3,
      checksPassed: 3,
      checksPassRate: 1,
      reproductions: 2,
    });
  });

  it('has the median time of completed results, cost a race over the races with a known cost, and a verified win', () => {
    const claude = line(ledger, 'claude');
    expect(claude.medianDurationMs).toBe(90_000);
    expect(claude.costUsd).toBeCloseTo(0.6);
    expect(claude.costPerRace).toBeCloseTo(0.2);
    expect(claude.costPerVerifiedWin).toBeCloseTo(0.6);
    const codex = line(ledger, 'codex');
    expect(codex.medianDurationMs).toBe(40_000);
    expect(codex.costPerRace).toBeCloseTo(0.1);
    expect(codex.costPerVerifiedWin).toBeCloseTo(0.15);
  });

  it('counts how often the judge agreed with the score, and lists the most verified wins first', () => {
    expect(line(ledger, 'claude')).toMatchObject({ judged: 1, judgeAgreed: 0, judgeAgreement: 0 });
    expect(ledger.map((item) => item.agent)).toEqual(['codex', 'claude']);
  });

  it('says n/a (null), never 0, for what nothing measured', () => {
    const [only] = tallyRuns([
      ledgerRun({ runId: '20261105-100000-aa05', agents: [{ agent: 'qwen', costUsd: null }] }),
    ]);
    expect(only).toMatchObject({
      checksPassRate: null,
      costPerRace: null,
      costPerVerifiedWin: null,
      judgeAgreement: null,
    });
  });

  it("counts a merged result as the race's winner when its checks passed", () => {
    const run: FakeRun = {
      runId: '20261106-100000-aa06',
      agents: [
        { agent: 'claude', checks: 'passed', total: 90 },
        { agent: 'codex', checks: 'passed', total: 60 },
      ],
      merged: 'codex',
    };
    const merged = tallyRuns([ledgerRun(run)]);
    expect(line(merged, 'codex').verifiedWins).toBe(1);
    expect(line(merged, 'claude').verifiedWins).toBe(0);
  });

  it('credits no win to a race whose results only time and cost told apart (nothing merged)', () => {
    const run: FakeRun = {
      runId: '20261107-100000-aa07',
      agents: [
        { agent: 'claude', checks: 'passed', total: 86, merit: 80, durationMs: 30_000 },
        { agent: 'codex', checks: 'passed', total: 80, merit: 80, durationMs: 90_000 },
      ],
    };
    const ledger = tallyRuns([ledgerRun(run)]);
    expect(line(ledger, 'claude').verifiedWins).toBe(0);
    expect(line(ledger, 'codex').verifiedWins).toBe(0);
  });
});

describe('an agent as hydra.toml names it', () => {
  it("is a copy's table (opus-1, opus-2 are opus) and keeps a name that only ends in a number", () => {
    const run: FakeRun = {
      runId: '20261107-100000-aa07',
      agents: [
        { agent: 'opus-1', adapter: 'claude' },
        { agent: 'opus-2', adapter: 'claude' },
        { agent: 'gpt-5', adapter: 'codex' },
      ],
      config: {
        file: null,
        config: { agents: { opus: { adapter: 'claude', model: 'claude-opus-4-5' } } },
        flags: {},
      },
    };
    const ledger = tallyRuns([ledgerRun(run)]);
    expect(ledger.map((item) => [item.agent, item.races, item.model])).toEqual([
      ['gpt-5', 1, null],
      ['opus', 2, 'claude-opus-4-5'],
    ]);
  });

  it('is raced again by its <adapter>:<model> entry when one made its name', () => {
    const run: FakeRun = {
      runId: '20261108-100000-aa08',
      agents: [{ agent: 'claude-opus-4-5', adapter: 'claude' }],
      config: { file: null, config: {}, flags: { agents: ['claude:opus-4.5*2'] } },
    };
    const [agent] = tallyRuns([ledgerRun(run)]);
    expect(agent).toMatchObject({ agent: 'claude-opus-4-5', spec: 'claude:opus-4.5', model: 'opus-4.5' });
  });
});
