/**
 * Issue 10.4: one damaged record must not break every command. A summary.json or meta.json that
 * parses but does not match the record format is reported as damaged (what is wrong, and that
 * `hydra clean` removes it); every command keeps working on the other, valid runs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  ROOT,
  createRepo,
  createSandbox,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
  extraWorktrees,
  hydraBranches,
} from '../../support/fault-invariants.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
});

afterEach(() => sandbox.cleanup());

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 60_000 });

/** A finished headless race of the fake claude; its run id. */
const race = async (): Promise<string> => {
  const result = await run(['race', '--json', '--agents', 'claude', 'Add a hello.txt file']);
  expect(result.exitCode, result.stderr).toBe(0);
  return String(parseNdjson(result.stdout)[0]?.runId);
};

const recordFile = (runId: string, name: string): string => path.join(repo, '.hydra', 'runs', runId, name);

describe('a summary.json that parses but is not a summary', () => {
  it('is reported as damaged by runs, show and merge, which keep working on the valid run', async () => {
    const valid = await race();
    const damaged = await race();
    writeFileSync(recordFile(damaged, 'summary.json'), '{"agents":[{"agent":"claude"}]}');

    const runs = await run(['runs']);
    const runsJson = await run(['runs', '--json']);
    const showValid = await run(['show', valid]);
    const showDamaged = await run(['show', damaged]);
    const mergeDamaged = await run(['merge', damaged, 'claude']);
    const before = captureUserState(repo);
    const mergeValid = await run(['merge', valid, 'claude']);

    expect(runs.exitCode, runs.stderr).toBe(0);
    const damagedLine = runs.stdout.split('\n').find((line) => line.startsWith(damaged));
    expect(damagedLine).toContain('damaged');
    expect(damagedLine).toContain('summary.json: runId: is missing (expected string)');
    expect(damagedLine).toContain('`hydra clean` removes it');
    expect(runs.stdout.split('\n').find((line) => line.startsWith(valid))).toContain('finished');
    expect(JSON.parse(runsJson.stdout)).toMatchObject({
      runs: expect.arrayContaining([
        expect.objectContaining({ runId: valid, state: 'finished', problem: null }),
        expect.objectContaining({ runId: damaged, state: 'damaged', problem: expect.any(String) }),
      ]),
    });
    expect(showValid.exitCode, showValid.stderr).toBe(0);
    expect(showValid.stdout).toContain(`run     ${valid}`);
    expect(showDamaged.exitCode).toBe(1);
    expect(showDamaged.stderr).toContain(`The record of run ${damaged} is damaged: summary.json:`);
    expect(showDamaged.stderr).toContain('`hydra clean` removes the run');
    expect(mergeDamaged.exitCode).not.toBe(0);
    expect(mergeDamaged.stderr).toContain(`The record of run ${damaged} is damaged: summary.json:`);
    expect(mergeValid.exitCode, mergeValid.stderr).toBe(0);
    expect(mergeValid.stdout).toContain(`merged claude (run ${valid}) into main`);
    expect(readFileSync(path.join(repo, 'hello.txt'), 'utf8')).not.toBe('');
    // Only the asked-for merge changed the user's state: the damaged run did nothing to it.
    expect(before.repo.branch).toBe('main');
    expectNoProcessOfRun(valid);
    expectNoProcessOfRun(damaged);
  });
});

describe('a meta.json whose agents hold null', () => {
  it('does not stop hydra clean, which removes it and the valid runs alike', async () => {
    const valid = await race();
    const damaged = await race();
    const meta = JSON.parse(readFileSync(recordFile(damaged, 'meta.json'), 'utf8')) as object;
    writeFileSync(recordFile(damaged, 'meta.json'), JSON.stringify({ ...meta, agents: [null] }));
    const before = captureUserState(repo);

    const runs = await run(['runs', '--json']);
    const dry = await run(['clean', '--dry-run']);
    const clean = await run(['clean']);

    expect(JSON.parse(runs.stdout)).toMatchObject({
      runs: expect.arrayContaining([
        expect.objectContaining({
          runId: damaged,
          state: 'damaged',
          problem: 'meta.json: agents[0]: Invalid input: expected object, received null',
        }),
      ]),
    });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(clean.stdout).toContain(`hydra/${damaged}/claude`);
    expect(clean.stdout).toContain(`hydra/${valid}/claude`);
    expect(hydraBranches(repo)).toEqual([]);
    expect(extraWorktrees(repo)).toEqual([]);
    expect((await run(['runs'])).stdout).toContain('no races yet');
    expectUserStateUnchanged(repo, before);
    expectRecordsReadable(repo);
  });
});

describe('an events.jsonl with garbage, binary and malformed events', () => {
  it('is shown with the good events and a note of how many lines were left out', async () => {
    const runId = await race();
    const file = recordFile(runId, 'events.jsonl');
    const good = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      `${good}\u0000\u0001\u00ff binary\n{"agent":"claude","at":1,"event":{"kind":"message"}}\n{"agent":"../x","at":1,"event":{"v":1,"kind":"progress","stage":"s"}}\n`,
    );

    const show = await run(['show', runId]);

    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain('note    events.jsonl: 3 lines could not be read and were left out');
    expect(show.stdout).toMatch(/events \(\d+\):/);
  });

  it('reads at most the first 32 MB of a huge events.jsonl and says so', async () => {
    const runId = await race();
    const file = recordFile(runId, 'events.jsonl');
    writeFileSync(file, `${readFileSync(file, 'utf8')}${'x'.repeat(33 * 1024 * 1024)}\n`);

    const show = await run(['show', runId]);

    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/note {4}events\.jsonl is \d+ bytes: only the first 33554432 were read/);
    expect(show.stdout).toContain('completed');
  });
});

describe('fields an agent controls that fail the record check (issue 21.9)', () => {
  /** The fake claude's stream with a session id of another shape and negative usage figures. */
  const hostileClaude = (): string[] =>
    readFileSync(path.join(ROOT, 'fixtures/adapters/claude/streams/success-edit.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) =>
        line
          .replaceAll('00000000-0000-4000-8000-000000000001', '../../not a session; rm -rf ~')
          .replaceAll('"input_tokens":2500', '"input_tokens":-2500')
          .replaceAll('"total_cost_usd":0.0126', '"total_cost_usd":-3'),
      );

  it('are never written: the run reads back whole, with a warning, and every command works', async () => {
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', delayMs: 5, lines: hostileClaude() },
      codex: { agent: 'codex', delayMs: 5 },
    });
    const raced = await run(['race', '--json', '--agents', 'claude,codex', 'Add a hello.txt file']);
    const runId = String(parseNdjson(raced.stdout)[0]?.runId);

    const summaryText = readFileSync(recordFile(runId, 'summary.json'), 'utf8');
    const show = await run(['show', runId]);
    const runs = await run(['runs', '--json']);
    const merge = await run(['merge', runId, 'codex']);

    const claude = (
      JSON.parse(summaryText) as {
        agents: Array<{
          agent: string;
          sessionId?: string;
          usage: Record<string, unknown>;
          warnings?: string[];
        }>;
      }
    ).agents.find((agent) => agent.agent === 'claude');
    expect(claude?.sessionId).toBeUndefined();
    expect(claude?.usage).toMatchObject({ inputTokens: null, costUsd: null });
    expect(claude?.warnings).toEqual(
      expect.arrayContaining([
        'Its sessionId "../../not a session; rm -rf ~" left out of the record: is not a session id.',
        'Its usage.inputTokens -2500 recorded as unknown: Too small: expected number to be >=0.',
      ]),
    );
    expect(show.exitCode, show.stderr).toBe(0);
    expect(JSON.parse(runs.stdout)).toMatchObject({
      runs: [expect.objectContaining({ runId, state: 'finished', problem: null })],
    });
    expect(merge.exitCode, merge.stderr).toBe(0);
    expect(merge.stdout).toContain(`merged codex (run ${runId}) into main`);
  });

  it('one damaged agent entry leaves the other agents of the run working, and says what is wrong', async () => {
    await installFakes(sandbox.bin, { codex: { agent: 'codex', delayMs: 5 } });
    const raced = await run(['race', '--json', '--agents', 'claude,codex', 'Add a hello.txt file']);
    const runId = String(parseNdjson(raced.stdout)[0]?.runId);
    const file = recordFile(runId, 'summary.json');
    const summary = JSON.parse(readFileSync(file, 'utf8')) as { agents: Array<Record<string, unknown>> };
    summary.agents = summary.agents.map((agent) =>
      agent['agent'] === 'claude' ? { ...agent, sessionId: '--evil id' } : agent,
    );
    writeFileSync(file, JSON.stringify(summary));

    const show = await run(['show', runId]);
    const mergeDamaged = await run(['merge', runId, 'claude']);
    const follow = await run(['continue', '--json', runId, 'claude', 'more']);
    const mergeOther = await run(['merge', runId, 'codex']);

    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain(
      'note    summary.json: agents[0]: sessionId: is not a session id: hydra does not act on claude',
    );
    expect(show.stdout).toMatch(/claude\s+failed/);
    expect(mergeDamaged.exitCode).not.toBe(0);
    expect(mergeDamaged.stderr).toContain(
      'Its record is damaged (summary.json: agents[0]: sessionId: is not a session id)',
    );
    expect(follow.exitCode).not.toBe(0);
    expect(follow.stderr).toContain(`the record of claude in run ${runId} is damaged`);
    expect(mergeOther.exitCode, mergeOther.stderr).toBe(0);
    expect(mergeOther.stdout).toContain(`merged codex (run ${runId}) into main`);
  });

  it('hydra rerun of an agent whose recorded CLI was changed fails and says why', async () => {
    const runId = await race();
    const file = recordFile(runId, 'meta.json');
    const meta = JSON.parse(readFileSync(file, 'utf8')) as { agents: Array<Record<string, unknown>> };
    meta.agents = meta.agents.map((agent) => ({ ...agent, adapter: 'evil' }));
    writeFileSync(file, JSON.stringify(meta));

    const rerun = await run(['rerun', '--json', runId, 'claude']);

    expect(rerun.exitCode).not.toBe(0);
    expect(rerun.stderr).toContain(`run ${runId} records agent claude as running "evil"`);
  });
});
