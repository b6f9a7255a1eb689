/**
 * Issue 10.9: a race and then `hydra clean` leave nothing of hydra's behind but what is kept on
 * purpose: no empty `<worktree root>/<repo>-<hash>/` after a race, no empty `.hydra/runs/` after
 * clean, and hydra's `.git/info/exclude` block written once, however many hydras ran.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, installFakes, MAIN } from '../../support/cli-helpers.js';
import {
  captureUserState,
  expectUserStateUnchanged,
  extraWorktrees,
  hydraBranches,
} from '../../support/fault-invariants.js';

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

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 60_000 });
const race = () => run(['race', '--json', 'Add a hello.txt file']);

const excludeFile = (): string => readFileSync(path.join(repo, '.git', 'info', 'exclude'), 'utf8');
const count = (text: string, line: string): number =>
  text.split('\n').filter((item) => item.trim() === line).length;

/** Every file and directory under `dir`, relative to it. */
const tree = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .map((entry) => entry.split(path.sep).join('/'))
        .sort()
    : [];

describe('a race, then hydra clean', () => {
  it('leaves no worktree directory after the race, and nothing but the probe cache after clean', async () => {
    const before = captureUserState(repo);
    const worktreeRoot = sandbox.env.HYDRA_WORKTREE_ROOT!;

    const raced = await race();
    expect(raced.exitCode, raced.stderr).toBe(0);
    expect(tree(worktreeRoot)).toEqual([]);

    const clean = await run(['clean']);
    expect(clean.exitCode, clean.stderr).toBe(0);

    expect(tree(worktreeRoot)).toEqual([]);
    expect(existsSync(path.join(repo, '.hydra'))).toBe(false);
    expect(hydraBranches(repo)).toEqual([]);
    expect(extraWorktrees(repo)).toEqual([]);
    // Kept on purpose: the probe cache (a cache, so the next race need not probe again)...
    expect(tree(path.join(repo, '.cache'))).toEqual(['hydra', 'hydra/adapter-capabilities.json']);
    // ...and one exclude block keeping .hydra and the cache out of `git status`.
    expect(count(excludeFile(), '# added by hydra (run records and caches)')).toBe(1);
    expectUserStateUnchanged(repo, before);
  });
});

describe("hydra's .git/info/exclude block", () => {
  it('is written once by a race (which probes, then creates worktrees), another race, then doctor', async () => {
    expect((await race()).exitCode).toBe(0);
    expect((await race()).exitCode).toBe(0);
    await run(['doctor']);

    const text = excludeFile();
    expect(count(text, '# added by hydra (run records and caches)')).toBe(1);
    expect(count(text, '/.hydra/')).toBe(1);
    expect(count(text, '/.cache/hydra/')).toBe(1);
  });

  it('is written once when two races start at the same moment', async () => {
    const start = () =>
      execa(process.execPath, [MAIN, 'race', '--json', 'Add a hello.txt file'], {
        cwd: repo,
        env: sandbox.env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 60_000,
      });
    const results = await Promise.all([start(), start()]);

    for (const result of results) expect(result.exitCode, String(result.stderr)).toBe(0);
    const text = excludeFile();
    expect(count(text, '# added by hydra (run records and caches)')).toBe(1);
    expect(count(text, '/.hydra/')).toBe(1);
    expect(count(text, '/.cache/hydra/')).toBe(1);
  });
});
