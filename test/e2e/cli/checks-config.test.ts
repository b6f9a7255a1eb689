/** `[[checks]]`, `[score]`, budgets and `--auto-merge` in hydra.toml and on the command line. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/engine/config/config-error.js';
import { loadConfig } from '../../../src/engine/config/load.js';
import { parseConfigText } from '../../../src/engine/config/parse.js';
import { checkName } from '../../../src/engine/config/race-checks.js';
import { resolveRace } from '../../../src/engine/config/resolve.js';
import { DEFAULT_SCORE_WEIGHTS } from '../../../src/engine/checks/index.js';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';

const problemsOf = (text: string): readonly string[] => {
  try {
    parseConfigText(text, 'hydra.toml');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

let sandbox: Sandbox | null = null;
afterEach(() => {
  sandbox?.cleanup();
  sandbox = null;
});

describe('checks in hydra.toml', () => {
  it('turns [[checks]] and --check into checks, the flag ones gates named after what they run', () => {
    const config = parseConfigText(
      '[[checks]]\nname = "lint"\nrun = "npm run lint"\ntimeout_s = 30\n\n[[checks]]\nname = "test"\nrun = "npm test"\ngate = true\n',
      'hydra.toml',
    );
    const race = resolveRace(config, { checks: ['node --test', 'npm run build'] });
    expect(race.checks).toEqual([
      { name: 'lint', run: 'npm run lint', timeoutMs: 30_000, gate: false },
      { name: 'test', run: 'npm test', timeoutMs: 600_000, gate: true },
      { name: 'node-test', run: 'node --test', timeoutMs: 600_000, gate: true },
      { name: 'build', run: 'npm run build', timeoutMs: 600_000, gate: true },
    ]);
    expect(resolveRace({}, {}).checks).toBeUndefined();
  });

  it.each([
    ['npm test', 'test'],
    ['pnpm run lint', 'lint'],
    ['go test ./...', 'test'],
    ['cargo test', 'test'],
    ['pytest -q', 'pytest'],
    ['./scripts/check.sh', 'check.sh'],
    ['test -f x', 'test-f-x'],
    ['[ -f dist/main.js ]', 'test-f-dist-main.js'],
  ])('names --check %j %j', (run, name) => {
    expect(checkName(run)).toBe(name);
  });

  it('says what is wrong with a check', () => {
    expect(problemsOf('[[checks]]\nname = "t"\n')).toEqual([
      'hydra.toml: checks[0].run is required: it must be a non-empty string',
    ]);
    expect(problemsOf('[[checks]]\nname = "t"\nrun = "x"\ngates = true\n')[0]).toContain(
      'unknown key checks[0].gates (did you mean "gate"?)',
    );
    expect(problemsOf('[[checks]]\nname = "t"\nrun = "x"\n[[checks]]\nname = "t"\nrun = "y"\n')[0]).toContain(
      'names t twice',
    );
  });

  it('reads the score weights over the defaults, allowed_paths and the budgets', () => {
    const config = parseConfigText(
      '[race]\nmax_cost_usd = 5\n[agents.codex]\nmax_cost_usd = 1.5\n[score]\ncost = 20\nallowed_paths = ["src/**"]\n',
      'hydra.toml',
    );
    const race = resolveRace(config, { agents: ['codex'] });
    expect(race.scoreWeights).toEqual({ ...DEFAULT_SCORE_WEIGHTS, cost: 20 });
    expect(race.allowedPaths).toEqual(['src/**']);
    expect(race.maxCostUsd).toBe(5);
    expect(race.agents[0]?.maxCostUsd).toBe(1.5);
    expect(resolveRace(config, { maxCostUsd: 2 }).maxCostUsd).toBe(2);
    expect(problemsOf('[race]\nmax_cost_usd = 0\n')[0]).toContain(
      'race.max_cost_usd must be a number of USD, more than 0',
    );
    expect(problemsOf('[score]\ndiff = -1\n')[0]).toContain('score.diff must be a weight, 0 or more');
  });

  it("leaves a repository's untrusted checks out, and says so", async () => {
    sandbox = createSandbox();
    const repo = await createRepo(sandbox.dir);
    writeFileSync(path.join(repo, 'hydra.toml'), '[[checks]]\nname = "test"\nrun = "npm test"\n');
    const loaded = loadConfig({ cwd: repo, env: sandbox.env });
    expect(loaded.trusted).toBe(false);
    expect(loaded.ignored).toEqual(['checks']);
    expect(loaded.config.checks).toBeUndefined();
  });
});

describe('race flags for checks', () => {
  it('refuses a bad --max-cost-usd, --auto-merge or empty --check with exit 2', async () => {
    sandbox = createSandbox();
    const repo = await createRepo(sandbox.dir);
    const run = (args: string[]) =>
      hydra(['race', '--json', ...args, 'do it'], { cwd: repo, env: sandbox!.env });
    const budget = await run(['--max-cost-usd', 'lots']);
    expect(budget.exitCode).toBe(2);
    expect(budget.stderr).toContain('--max-cost-usd must be a positive number of USD');
    const merge = await run(['--auto-merge', 'first']);
    expect(merge.exitCode).toBe(2);
    expect(merge.stderr).toContain('--auto-merge must be "best"');
    const check = await run(['--check', ' ']);
    expect(check.exitCode).toBe(2);
    expect(check.stderr).toContain('--check needs a command');
  });
});

describe('hydra race --json with checks', () => {
  it('prints checks, scores, the baseline and what --auto-merge best merged; hydra show prints them', async () => {
    sandbox = createSandbox();
    const repo = await createRepo(sandbox.dir);
    writeFileSync(path.join(repo, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(path.join(repo, 'lib.js'), 'export const add = (a, b) => a - b;\n');
    writeFileSync(
      path.join(repo, 'lib.test.js'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './lib.js';\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
    );
    git(repo, ['add', '-A']);
    git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'a bug']);
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 5,
        edits: [{ path: 'lib.js', content: 'export const add = (a, b) => a + b;\n' }],
      },
      codex: { agent: 'codex', delayMs: 5, edits: [{ path: 'docs/notes.md', content: 'notes\n' }] },
    });
    // A --config file is trusted; it limits the paths agents may change.
    const config = path.join(sandbox.dir, 'hydra.toml');
    writeFileSync(config, '[score]\nallowed_paths = ["lib.js"]\n');
    const result = await hydra(
      [
        'race',
        '--json',
        '--config',
        config,
        '--check',
        `${process.execPath} --test lib.test.js`,
        '--auto-merge',
        'best',
        'fix add',
      ],
      { cwd: repo, env: sandbox.env },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const summary = parseNdjson(result.stdout).at(-1) as {
      runId: string;
      agents: Array<{
        agent: string;
        checks: unknown[];
        score: { total: number; gates: unknown; parts: object };
      }>;
      baseline: { checks: Array<{ name: string; status: string; tests: unknown }> };
      merged: unknown;
    };
    expect(summary.baseline.checks).toEqual([
      {
        name: 'test',
        status: 'failed',
        exitCode: 1,
        durationMs: expect.any(Number),
        tests: { passed: 0, failed: 1, skipped: 0 },
        // Ran on this machine (a container agent's say `container` and the engine).
        where: 'host',
      },
    ]);
    const claude = summary.agents.find((agent) => agent.agent === 'claude');
    expect(claude?.checks).toEqual([
      {
        name: 'test',
        status: 'passed',
        exitCode: 0,
        durationMs: expect.any(Number),
        tests: { passed: 1, failed: 0, skipped: 0 },
        // Ran on this machine (a container agent's say `container` and the engine).
        where: 'host',
      },
    ]);
    expect(Object.keys(claude?.score ?? {}).sort()).toEqual(['gates', 'parts', 'total', 'verified']);
    expect(summary.merged).toEqual({
      agent: 'claude',
      branch: `hydra/${summary.runId}/claude`,
      method: expect.any(String),
    });
    expect(git(repo, ['show', 'HEAD:lib.js'])).toContain('a + b');
    // The merged result's branch is gone: the line says where its work went, not "on no branch".
    expect(result.stderr).toMatch(/ {2}claude: 1 file \+1 -1 merged into main/);
    expect(result.stderr).toMatch(/ {2}codex: 1 file \+1 -0 on branch hydra\//);

    const shown = await hydra(['show', summary.runId], { cwd: repo, env: sandbox.env });
    // ASCII symbols: TERM=dumb.
    expect(shown.stdout).toContain('baseline x test 0/1');
    expect(shown.stdout).toContain('check   + test 1/1 - 1 newly passing (gate)');
    expect(shown.stdout).toContain('outside allowed_paths: docs/notes.md');
    expect(shown.stdout).toContain('score 100');
    expect(shown.stdout).toContain('score 0 - failed gate test');
    expect(shown.stdout).toContain('cost    estimated from its tokens and the price table');
    expect(shown.stdout).toContain('cost    reported by the CLI');
    // The record outlives the branches: show says which are gone.
    expect(shown.stdout).not.toContain(`branch  hydra/${summary.runId}/claude`);
    expect(shown.stdout).toContain(`branch  hydra/${summary.runId}/codex\n`);
    expect((await hydra(['clean', summary.runId], { cwd: repo, env: sandbox.env })).exitCode).toBe(0);
    const cleaned = await hydra(['show', summary.runId], { cwd: repo, env: sandbox.env });
    expect(cleaned.stdout).toContain(`branch  hydra/${summary.runId}/codex (deleted since the race)`);
  }, 60_000);
});
