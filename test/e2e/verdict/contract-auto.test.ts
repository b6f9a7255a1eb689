/**
 * Issue 34, the contract under `--check auto`, as a user runs it: a one-line `pytest.py` at the root
 * shadows `python3 -m pytest` and prints "2 passed". The contract runs the base's tests without it,
 * so the honest fix is merged, the shadow alone is not, and `hydra show` says what it changed.
 * Real hydra processes, real pytest, fake agents.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;

const run = (repo: string, args: string[]) => hydra(args, { cwd: repo, env, timeoutMs: 120_000 });

interface Summary {
  merged: { agent: string } | null;
  agents: Array<{
    agent: string;
    contract?: { changed: string[]; passesOwn: boolean; passesBase: boolean };
  }>;
}

const FIXED = 'def add(a, b):\n    return a + b\n';
const SHADOW = 'print("2 passed in 0.01s")\n';

/** A Python project whose test fails on the base, pyproject.toml trusted for --check auto. */
const project = async (): Promise<string> => {
  const repo = await createRepo(sandbox.dir);
  writeFileSync(
    path.join(repo, 'pyproject.toml'),
    '[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n',
  );
  writeFileSync(path.join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(
    path.join(repo, 'test_calc.py'),
    'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
  );
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'a python project']);
  expect((await run(repo, ['trust', 'pyproject.toml'])).exitCode).toBe(0);
  return repo;
};

beforeEach(() => {
  sandbox = createSandbox();
  env = { ...sandbox.env, PATH: `${sandbox.bin}:${process.env.PATH ?? ''}:/usr/bin:/bin` };
});

afterEach(() => sandbox.cleanup());

describe('the contract under --check auto', () => {
  it('merges the honest fix over a pytest.py that shadows the runner, and hydra show says why', async () => {
    const repo = await project();
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', delayMs: 2, edits: [{ path: 'calc.py', content: FIXED }] },
      codex: { agent: 'codex', delayMs: 2, edits: [{ path: 'pytest.py', content: SHADOW }] },
    });
    const race = await run(repo, [
      'race',
      '--json',
      '--agents',
      'claude,codex',
      '--check',
      'auto',
      '--auto-merge',
      'best',
      'Fix add',
    ]);
    const summary = parseNdjson(race.stdout).at(-1) as unknown as Summary;
    expect(summary.agents.find((agent) => agent.agent === 'codex')?.contract).toEqual({
      changed: ['pytest.py (added)'],
      passesOwn: true,
      passesBase: false,
    });
    expect(summary.merged?.agent).toBe('claude');
    expect(readFileSync(path.join(repo, 'calc.py'), 'utf8')).toBe(FIXED);

    const show = await run(repo, ['show', 'last']);
    // Not a terminal: ASCII symbols.
    expect(show.stdout).toMatch(
      /tests +changed the tests: pytest\.py \(added\) - passes only with its own tests/,
    );
    expect(show.stdout).toMatch(/check +\+ pytest .*\(gate\) with its own tests/);
    expect(show.stdout).toMatch(/check +x pytest 1\/2 \(gate\) with the base's tests/);
  }, 240_000);

  it('merges nothing when the shadow is alone', async () => {
    const repo = await project();
    await installFakes(sandbox.bin, {
      codex: { agent: 'codex', delayMs: 2, edits: [{ path: 'pytest.py', content: SHADOW }] },
    });
    const race = await run(repo, [
      'race',
      '--json',
      '--agents',
      'codex',
      '--check',
      'auto',
      '--auto-merge',
      'best',
      'Fix add',
    ]);
    const summary = parseNdjson(race.stdout).at(-1) as unknown as Summary;
    expect(summary.merged).toBeNull();
    expect(git(repo, ['status', '--porcelain'])).toBe('');
  }, 240_000);
});
