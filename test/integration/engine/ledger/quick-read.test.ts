/**
 * The ledger's quick read (engine/ledger/quick-read.ts): a record it reads gives the figures the
 * records' schemas give, and a record damaged in anything the ledger uses is left to the careful
 * read (null), which counts it as damaged.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- records are edited as free JSON, to damage them */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quickReadRun } from '../../../../src/engine/ledger/quick-read.js';
import { recordStat } from '../../../../src/engine/ledger/ledger-cache.js';
import { runFacts } from '../../../../src/engine/ledger/index.js';
import { readRecordDir } from '../../../../src/engine/records/index.js';
import { writeRunRecord, type FakeRun } from '../../../support/ledger-records.js';

let repo: string;

beforeEach(() => {
  repo = mkdtempSync(path.join(os.tmpdir(), 'hydra-quick-read-'));
});

afterEach(() => rmSync(repo, { recursive: true, force: true }));

const RUN: FakeRun = {
  runId: '20261101-100000-aa01',
  agents: [
    { agent: 'claude', checks: 'passed', total: 82, costUsd: 0.3, reproductions: 1 },
    { agent: 'codex', checks: 'passed', total: 80, costUsd: null },
    { agent: 'gemini', checks: 'failed', contract: { passesOwn: true, passesBase: false } },
    { agent: 'claude-2', rerunOf: 'claude', status: 'failed' },
  ],
  judge: { contenders: ['claude', 'codex'], first: 'codex' },
  config: { file: null, config: { agents: { claude: { model: 'opus' } } }, flags: {} },
};

const quick = (runId = RUN.runId) => {
  const stat = recordStat(repo, runId);
  if (stat === null) throw new Error('no record');
  return quickReadRun(path.join(repo, '.hydra', 'runs', runId), runId, stat);
};

/** The facts the records' schemas give for the run, as read-ledger.ts took them before. */
const carefulFacts = (runId = RUN.runId) => {
  const loaded = readRecordDir(path.join(repo, '.hydra', 'runs', runId), runId, false);
  if (loaded.kind !== 'ok' || loaded.record.summary === null) throw new Error(`not whole: ${loaded.kind}`);
  const { meta, summary, merge } = loaded.record;
  return runFacts({ meta, summary, mergedAgent: merge?.agent ?? null, damagedAgents: [] });
};

/** Edits summary.json (or another record file) as JSON. */
const edit = (dir: string, edit: (json: Record<string, any>) => void, file = 'summary.json'): void => {
  const json = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, any>;
  edit(json);
  writeFileSync(path.join(dir, file), JSON.stringify(json));
};

describe('the ledger quick read', () => {
  it('gives the facts the schemas give: judge, rerun, unknown cost, contract, reproductions, a later merge', () => {
    const dir = writeRunRecord(repo, RUN);
    expect(quick()?.summary.agents).toHaveLength(4);
    expect(runFacts(quick()!)).toEqual(carefulFacts());

    writeFileSync(
      path.join(dir, 'merge.json'),
      JSON.stringify({
        runId: RUN.runId,
        agent: 'claude',
        into: 'main',
        method: 'fast-forward',
        commit: 'abcdef1',
        filesChanged: 1,
        removed: [],
      }),
    );
    expect(quick()?.mergedAgent).toBe('claude');
    expect(runFacts(quick()!)).toEqual(carefulFacts());
  });

  it("fills in a score's verified from its checks and reads legacy all-zero usage as unknown, as the schemas do", () => {
    const dir = writeRunRecord(repo, RUN);
    edit(dir, (summary) => {
      const [claude, codex] = summary['agents'];
      delete claude.score.verified;
      claude.checks = [{ status: 'passed' }];
      delete codex.score.verified;
      codex.usage = { ...codex.usage, inputTokens: 0, outputTokens: 0, turns: 0, costUsd: 0 };
      codex.usage.costSource = 'unknown';
      codex.usage.cacheReadTokens = 0;
      codex.usage.cacheWriteTokens = 0;
    });
    // The careful read needs whole checks; the quick read looks only at their status.
    const whole = structuredClone(JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')));
    whole.agents[0].checks = [
      {
        name: 'test',
        gate: true,
        status: 'passed',
        exitCode: 0,
        durationMs: 1,
        tests: null,
        newlyFailing: null,
        newlyPassing: null,
        output: '',
      },
    ];
    writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(whole));

    const facts = runFacts(quick()!);
    expect(facts.find((fact) => fact.agent === 'claude')?.checked).toBe(true);
    expect(facts.find((fact) => fact.agent === 'codex')).toMatchObject({ checked: false, costUsd: null });
    expect(facts).toEqual(carefulFacts());
  });

  it.each<[string, (summary: Record<string, any>) => void]>([
    ['another run id', (summary) => (summary['runId'] = '20261101-100000-ffff')],
    ['an agent id that is not one', (summary) => (summary['agents'][0].agent = '../x')],
    ['an unknown status', (summary) => (summary['agents'][0].status = 'won')],
    ['a cost that is text', (summary) => (summary['agents'][0].usage.costUsd = '0.3')],
    ['a negative token count', (summary) => (summary['agents'][0].usage.inputTokens = -1)],
    ['a score without gates', (summary) => delete summary['agents'][0].score.gates],
    ['a score part that is text', (summary) => (summary['agents'][0].score.parts.checks = 'all')],
    ['reproductions that are text', (summary) => (summary['agents'][0].newTests.reproductions = 'one')],
    ['a contract without passesBase', (summary) => delete summary['agents'][2].contract.passesBase],
    ['a judge ranking an agent id that is not one', (summary) => (summary['judge'].ranking[0].agent = 'A B')],
    [
      'a merge with an unknown method',
      (summary) => (summary['merged'] = { agent: 'claude', branch: 'b', method: 'x' }),
    ],
    ['agents that are not a list', (summary) => (summary['agents'] = {})],
  ])('leaves a summary with %s to the careful read', (_name, damage) => {
    const dir = writeRunRecord(repo, RUN);
    edit(dir, damage);
    expect(quick()).toBeNull();
  });

  it.each<[string, (meta: Record<string, any>) => void]>([
    ['another run id', (meta) => (meta['runId'] = '20261101-100000-ffff')],
    ['an agent on another branch', (meta) => (meta['agents'][0].branch = 'main')],
    ['an agent listed twice', (meta) => meta['agents'].push(meta['agents'][0])],
    ['a pid of 0', (meta) => (meta['pid'] = 0)],
    ['a start that is text', (meta) => (meta['startedAt'] = 'yesterday')],
  ])('leaves a meta.json with %s to the careful read', (_name, damage) => {
    const dir = writeRunRecord(repo, RUN);
    edit(dir, damage, 'meta.json');
    expect(quick()).toBeNull();
  });

  it('leaves an unfinished run, a record file that is a link or not JSON, and a merge of another run to the careful read', () => {
    writeRunRecord(repo, RUN, { finished: false });
    expect(quick()).toBeNull();

    const dir = writeRunRecord(repo, RUN);
    writeFileSync(path.join(dir, 'merge.json'), JSON.stringify({ runId: '20261101-100000-ffff' }));
    expect(quick()).toBeNull();
    rmSync(path.join(dir, 'merge.json'));
    writeFileSync(path.join(repo, 'elsewhere.json'), readFileSync(path.join(dir, 'summary.json')));
    rmSync(path.join(dir, 'summary.json'));
    symlinkSync(path.join(repo, 'elsewhere.json'), path.join(dir, 'summary.json'));
    expect(quick()).toBeNull();
    rmSync(path.join(dir, 'summary.json'));
    writeFileSync(path.join(dir, 'summary.json'), '{"runId":');
    expect(quick()).toBeNull();
  });
});
