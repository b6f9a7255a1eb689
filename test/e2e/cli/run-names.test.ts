/**
 * Naming a run on the command line: its id, a unique prefix of it, or `last` for the newest run,
 * in every command that takes one (show, merge, clean), through the real entry point on a real
 * repository with two real (headless, fake-agent) races.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5 },
    codex: { agent: 'codex', delayMs: 5 },
  });
});

afterEach(() => sandbox.cleanup());

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 90_000 });

/** Races once headless and returns the run id. */
const raceOnce = async (): Promise<string> => {
  const raced = await run(['race', '--json', 'Add a hello.txt file']);
  expect(raced.exitCode, raced.stderr).toBe(0);
  const summary = parseNdjson(raced.stdout).at(-1) as { runId: string };
  return summary.runId;
};

/** The shortest prefix of `id` that `other` does not start with. */
const uniquePrefix = (id: string, other: string): string => {
  let length = 1;
  while (other.startsWith(id.slice(0, length))) length += 1;
  return id.slice(0, length);
};

describe('run names', () => {
  it('last names the newest run in show, and a unique prefix names its run', async () => {
    const older = await raceOnce();
    const newer = await raceOnce();
    // Two runs in one second: their ids do not order them (the random part does), `last` still must.
    expect(newer).not.toBe(older);

    const last = await run(['show', 'last']);
    expect(last.exitCode, last.stderr).toBe(0);
    expect(last.stdout).toContain(`run     ${newer}`);

    const prefixed = await run(['show', uniquePrefix(older, newer), '--json']);
    expect(prefixed.exitCode, prefixed.stderr).toBe(0);
    expect((JSON.parse(prefixed.stdout) as { runId: string }).runId).toBe(older);
  }, 120_000);

  it('an ambiguous prefix is an error listing the candidates; an unknown name points at hydra runs', async () => {
    const older = await raceOnce();
    const newer = await raceOnce();
    // Both ids start with the year.
    for (const args of [
      ['show', '20'],
      ['merge', '20', 'claude'],
      ['clean', '20'],
    ]) {
      const result = await run(args);
      expect(result.exitCode, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain('"20" is ambiguous');
      expect(result.stderr).toContain(older);
      expect(result.stderr).toContain(newer);
    }
    for (const args of [
      ['show', 'nope'],
      ['merge', 'nope', 'claude'],
      ['clean', 'nope'],
    ]) {
      const result = await run(args);
      expect(result.exitCode, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain('No run "nope"');
      expect(result.stderr, args.join(' ')).toContain('hydra runs');
    }
    // Nothing was removed by the refused cleans.
    expect(git(repo, ['branch', '--list', 'hydra/*']).split('\n')).toHaveLength(4);
  }, 120_000);

  it('merge last merges the newest run; clean <prefix> and clean last remove only the runs named', async () => {
    const older = await raceOnce();
    const newer = await raceOnce();

    const merged = await run(['merge', 'last', 'claude']);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(merged.stdout).toContain(`merged claude (run ${newer})`);

    const cleaned = await run(['clean', uniquePrefix(older, newer)]);
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(git(repo, ['branch', '--list', `hydra/${older}/*`])).toBe('');
    expect(existsSync(path.join(repo, '.hydra', 'runs', older))).toBe(false);
    expect(existsSync(path.join(repo, '.hydra', 'runs', newer))).toBe(true);

    // The newest run was merged: clean last removes its results but keeps its record as history.
    const lastCleaned = await run(['clean', 'last']);
    expect(lastCleaned.exitCode, lastCleaned.stderr).toBe(0);
    expect(git(repo, ['branch', '--list', `hydra/${newer}/*`])).toBe('');
    expect(existsSync(path.join(repo, '.hydra', 'runs', newer))).toBe(true);
    const forgotten = await run(['clean', 'last', '--forget-merged']);
    expect(forgotten.exitCode, forgotten.stderr).toBe(0);
    expect(existsSync(path.join(repo, '.hydra', 'runs', newer))).toBe(false);
  }, 120_000);

  it('last in a repository without runs says there is none and names hydra runs', async () => {
    for (const args of [
      ['show', 'last'],
      ['merge', 'last', 'claude'],
      ['clean', 'last'],
    ]) {
      const result = await run(args);
      expect(result.exitCode, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain('no run yet');
      expect(result.stderr, args.join(' ')).toContain('hydra runs');
    }
  });
});
