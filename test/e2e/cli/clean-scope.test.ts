/**
 * `hydra clean` by scope: the runs named, --merged, --older-than (parsed strictly),
 * --keep-results (worktrees only), and the history of merged races kept for `hydra runs` unless
 * --forget-merged. Real CLI, real repositories, fake agents.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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

/** Races headless; `--keep-worktrees` so there are worktrees to clean. */
const raceOnce = async (): Promise<string> => {
  const raced = await run(['race', '--json', '--keep-worktrees', 'Add a hello.txt file']);
  expect(raced.exitCode, raced.stderr).toBe(0);
  return (parseNdjson(raced.stdout).at(-1) as { runId: string }).runId;
};

const branchesOf = (runId: string): string[] =>
  git(repo, ['for-each-ref', '--format=%(refname:short)', `refs/heads/hydra/${runId}/`])
    .split('\n')
    .filter(Boolean);
const worktreesOf = (runId: string): string[] =>
  git(repo, ['worktree', 'list', '--porcelain'])
    .split('\n')
    .filter((line) => line.startsWith('worktree ') && line.includes(runId));
const recordOf = (runId: string): string => path.join(repo, '.hydra', 'runs', runId);

/** Moves a run's start back in time, as if it had been raced `days` ago. */
const age = (runId: string, days: number): void => {
  const file = path.join(recordOf(runId), 'meta.json');
  const meta = JSON.parse(readFileSync(file, 'utf8')) as { startedAt: number };
  meta.startedAt -= days * 86_400_000;
  writeFileSync(file, JSON.stringify(meta));
};

describe('hydra clean by scope', () => {
  it('--merged cleans only merged runs and keeps their record as history; --forget-merged removes it', async () => {
    const merged = await raceOnce();
    const open = await raceOnce();
    const result = await run(['merge', merged, 'claude']);
    expect(result.exitCode, result.stderr).toBe(0);

    const cleaned = await run(['clean', '--merged']);
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(branchesOf(merged)).toEqual([]);
    expect(worktreesOf(merged)).toEqual([]);
    expect(existsSync(recordOf(merged))).toBe(true);
    expect(cleaned.stdout).toContain(`kept the record of merged run ${merged} for hydra runs`);
    expect(cleaned.stdout).toContain('--forget-merged');
    // The run that was not merged is out of scope.
    expect(branchesOf(open)).toHaveLength(2);
    expect(worktreesOf(open)).toHaveLength(2);

    const runs = await run(['runs', '--json']);
    const listed = (JSON.parse(runs.stdout) as { runs: Array<{ runId: string; merged: unknown }> }).runs;
    expect(listed.find((item) => item.runId === merged)?.merged).toMatchObject({ agent: 'claude' });

    const forgotten = await run(['clean', '--merged', '--forget-merged']);
    expect(forgotten.exitCode, forgotten.stderr).toBe(0);
    expect(existsSync(recordOf(merged))).toBe(false);
    expect(existsSync(recordOf(open))).toBe(true);
  }, 120_000);

  it('--older-than cleans only runs started at least that long ago', async () => {
    const old = await raceOnce();
    const recent = await raceOnce();
    age(old, 8);

    const cleaned = await run(['clean', '--older-than', '7d']);
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(existsSync(recordOf(old))).toBe(false);
    expect(branchesOf(old)).toEqual([]);
    expect(existsSync(recordOf(recent))).toBe(true);
    expect(branchesOf(recent)).toHaveLength(2);
  }, 120_000);

  it('parses --older-than strictly, with a clear error', async () => {
    for (const bad of ['7', '7 days', '-1d', '0d', '1.5d', 'd', '7y']) {
      const result = await run(['clean', `--older-than=${bad}`]);
      expect(result.exitCode, bad).toBe(2);
      expect(result.stderr, bad).toContain(
        `--older-than needs a whole number and a unit: 30m, 12h, 7d or 2w (got "${bad}")`,
      );
    }
  });

  it('--keep-results removes the worktrees only: the branches and the record stay', async () => {
    const runId = await raceOnce();
    expect(worktreesOf(runId)).toHaveLength(2);

    const cleaned = await run(['clean', runId, '--keep-results']);
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(worktreesOf(runId)).toEqual([]);
    expect(branchesOf(runId)).toHaveLength(2);
    expect(existsSync(recordOf(runId))).toBe(true);
    // The results can still be merged.
    const merged = await run(['merge', runId, 'codex']);
    expect(merged.exitCode, merged.stderr).toBe(0);
  }, 120_000);

  it('--dry-run with a scope lists only what is in scope and changes nothing', async () => {
    const a = await raceOnce();
    const b = await raceOnce();
    const dry = await run(['clean', a, '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`hydra/${a}/claude`);
    expect(dry.stdout).not.toContain(b);
    expect(branchesOf(a)).toHaveLength(2);
  }, 120_000);
});
