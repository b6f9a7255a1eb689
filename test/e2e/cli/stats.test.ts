/**
 * `hydra stats`: the ledger of a repository's races (and with --all, of every repository in the
 * index), from records written by hand; damaged and unfinished records are skipped and counted.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';
import { writeRunRecord, type FakeRun } from '../../support/ledger-records.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

const run = (args: string[], cwd = repo) => hydra(args, { cwd, env: sandbox.env, timeoutMs: 60_000 });

const WON_BY_CODEX: FakeRun = {
  runId: '20261101-100000-aa01',
  agents: [
    { agent: 'claude', checks: 'failed', costUsd: 0.3 },
    { agent: 'codex', checks: 'passed', total: 80, costUsd: 0.1, reproductions: 1 },
  ],
};
const WON_BY_CLAUDE: FakeRun = {
  runId: '20261120-100000-aa02',
  agents: [
    { agent: 'claude', checks: 'passed', total: 90, costUsd: 0.5 },
    { agent: 'codex', checks: 'passed', total: 70, costUsd: 0.1 },
  ],
};

interface StatsJson {
  runs: number;
  skipped: { damaged: number; unfinished: number; foreign: number; missingRepos: number };
  agents: Array<{
    agent: string;
    races: number;
    verifiedWins: number;
    checksPassRate: number | null;
    reproductions: number;
  }>;
}

const statsJson = async (args: string[], cwd = repo): Promise<StatsJson> => {
  const result = await run(['stats', '--json', ...args], cwd);
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as StatsJson;
};

describe('hydra stats', () => {
  it('tallies each agent over the finished races, skipping and counting a damaged record and an unfinished run', async () => {
    writeRunRecord(repo, WON_BY_CODEX);
    writeRunRecord(repo, WON_BY_CLAUDE);
    const damaged = writeRunRecord(repo, { ...WON_BY_CLAUDE, runId: '20261121-100000-aa03' });
    writeFileSync(path.join(damaged, 'summary.json'), '{"agents":[{"agent":"claude"}], "runId": 7}');
    writeRunRecord(repo, { ...WON_BY_CLAUDE, runId: '20261122-100000-aa04' }, { finished: false });

    const stats = await statsJson([]);

    expect(stats.runs).toBe(2);
    expect(stats.skipped).toEqual({ damaged: 1, unfinished: 1, foreign: 0, missingRepos: 0 });
    expect(
      stats.agents.map((agent) => [
        agent.agent,
        agent.races,
        agent.verifiedWins,
        agent.checksPassRate,
        agent.reproductions,
      ]),
    ).toEqual([
      ['codex', 2, 1, 1, 1],
      ['claude', 2, 1, 0.5, 0],
    ]);
  });

  it('reads a record again once it changed since the last hydra stats (its outcome is cached until then)', async () => {
    writeRunRecord(repo, WON_BY_CODEX);
    const dir = writeRunRecord(repo, WON_BY_CLAUDE);
    expect((await statsJson([])).runs).toBe(2);
    const cached = await statsJson([]);
    expect(cached.agents.find((agent) => agent.agent === 'claude')?.verifiedWins).toBe(1);

    // Edited in place (its directory's mtime unchanged), then merged later: both are seen.
    writeFileSync(path.join(dir, 'summary.json'), '{"agents": 5}');
    expect((await statsJson([])).skipped.damaged).toBe(1);
    writeRunRecord(repo, { ...WON_BY_CLAUDE, merged: 'codex' });
    const merged = await statsJson([]);
    expect(merged.skipped.damaged).toBe(0);
    expect(merged.agents.find((agent) => agent.agent === 'codex')?.verifiedWins).toBe(2);
  });

  it('prints a table that says what it skipped', async () => {
    writeRunRecord(repo, WON_BY_CODEX);
    mkdirSync(path.join(repo, '.hydra', 'runs', '20261121-100000-aa03'));
    writeFileSync(path.join(repo, '.hydra', 'runs', '20261121-100000-aa03', 'meta.json'), 'not json');

    const result = await run(['stats']);

    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/AGENT +ADAPTER +RACES +VERIFIED WINS +CHECKS PASSED/);
    expect(result.stdout).toMatch(/codex +codex +1 +1 +100% of 1 +1 +1m00s +\$0\.1000 +\$0\.1000 +n\/a/);
    expect(result.stdout).toContain('skipped: 1 damaged record (hydra runs shows what is wrong)');
  });

  it('narrows to the races since a date or an age, and refuses a --since it cannot read', async () => {
    writeRunRecord(repo, WON_BY_CODEX);
    writeRunRecord(repo, WON_BY_CLAUDE);

    const since = await statsJson(['--since', '2026-11-10']);
    expect(since.runs).toBe(1);
    expect(since.agents.find((agent) => agent.agent === 'claude')?.verifiedWins).toBe(1);
    expect((await statsJson(['--since', '1d'])).runs).toBe(0);

    const bad = await run(['stats', '--since', 'last tuesday']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(
      '--since needs an age (30m, 12h, 7d, 2w) or a date (2026-11-01), not "last tuesday"',
    );
  });

  it('says there is nothing yet in a repository never raced in', async () => {
    const result = await run(['stats']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(
      'no finished races in this repository; start one with: hydra race "<prompt>"',
    );
  });
});

describe('the ledger cache written as races end', () => {
  it('a race journals its run as it writes the record: the first hydra stats takes it from there, not from the record', async () => {
    await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
    const raced = await run(['race', '--json', '--agents', 'claude', 'Add a hello.txt file']);
    expect(raced.exitCode, raced.stderr).toBe(0);
    const runId = String(parseNdjson(raced.stdout).at(-1)?.['runId']);
    const journal = path.join(sandbox.dir, 'xdg-cache', 'hydra', 'ledger');
    expect(readdirSync(journal).some((name) => name.endsWith('.journal'))).toBe(true);
    // The summary made unreadable in place, its size and times kept: only the journal can count it.
    const summary = path.join(repo, '.hydra', 'runs', runId, 'summary.json');
    const { size, mtimeNs } = statSync(summary, { bigint: true });
    writeFileSync(summary, ' '.repeat(Number(size)));
    // Its mtime back to the nanosecond (utimes takes a double: not that precise).
    const seconds = mtimeNs / 1_000_000_000n;
    const nanos = String(mtimeNs % 1_000_000_000n).padStart(9, '0');
    execFileSync('touch', ['-m', '-d', `@${seconds}.${nanos}`, summary]);

    const stats = await statsJson([]);

    expect(stats.runs).toBe(1);
    expect(stats.skipped.damaged).toBe(0);
    expect(stats.agents.map((agent) => [agent.agent, agent.races])).toEqual([['claude', 1]]);
    // Folded into the cache: the journal is gone, and the next run reads the cache.
    expect(readdirSync(journal).filter((name) => name.includes('.journal'))).toEqual([]);
    expect((await statsJson([])).runs).toBe(1);
  });
});

describe('hydra stats --all', () => {
  it('reads every repository a race remembered, counting one that is gone', async () => {
    await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
    const other = await createRepo(sandbox.dir, { name: 'other' });
    const raced = await run(['race', '--json', '--agents', 'claude', 'Add a hello.txt file'], other);
    expect(raced.exitCode, raced.stderr).toBe(0);
    expect(parseNdjson(raced.stdout).at(-1)?.type).toBe('summary');
    writeRunRecord(repo, WON_BY_CODEX);
    const gone = path.join(sandbox.dir, 'gone');
    mkdirSync(path.join(sandbox.dir, 'xdg-data', 'hydra'), { recursive: true });
    writeFileSync(path.join(sandbox.dir, 'xdg-data', 'hydra', 'repositories'), `${gone}\n`, { flag: 'a' });

    const here = await statsJson([], other);
    const all = await statsJson(['--all'], repo);

    expect(here.runs).toBe(1);
    expect(all.runs).toBe(2);
    expect(all.skipped.missingRepos).toBe(1);
    expect(all.agents.find((agent) => agent.agent === 'claude')?.races).toBe(2);
  });
});
