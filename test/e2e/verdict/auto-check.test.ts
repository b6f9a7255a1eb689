/**
 * Issue 26, "Checks found for you": `--check auto` runs the project's own test command on every
 * result and on the base: `npm test` in a Node project with an npm lockfile, pytest in a Python
 * one. Issue 34: typed on the command line, `--check auto` is the user's consent and runs the command
 * with no `hydra trust`, as `--check "npm test"` would; `[race] checks = "auto"` in a config runs it
 * only once its file is trusted: before that, the race is refused with what to do and nothing runs.
 * Real hydra processes, fake agents.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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

const commit = (repo: string, message: string): void => {
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', message]);
};

const run = (repo: string, args: string[]) => hydra(args, { cwd: repo, env, timeoutMs: 120_000 });

interface Summary {
  agents: Array<{
    agent: string;
    checks?: Array<{ name: string; status: string; tests: { passed: number; failed: number } | null }>;
    score?: { verified: boolean };
  }>;
  baseline?: {
    checks: Array<{ name: string; status: string; tests: { passed: number; failed: number } | null }>;
  };
}

beforeEach(() => {
  sandbox = createSandbox();
  // The project's runners (npm, python3 -m pytest) come from this machine's PATH, after the fakes.
  env = { ...sandbox.env, PATH: `${sandbox.bin}:${process.env.PATH ?? ''}:/usr/bin:/bin` };
});

afterEach(() => sandbox.cleanup());

describe('--check auto in a Node project', () => {
  const BUGGY = 'export const add = (a, b) => a - b;\n';
  const FIXED = 'export const add = (a, b) => a + b;\n';

  /** A Node project whose `npm test` logs which client ran it and where, with a bug to fix. */
  const nodeProject = async (): Promise<{ repo: string; marker: string }> => {
    const repo = await createRepo(sandbox.dir);
    const marker = path.join(sandbox.dir, 'npm-test.log');
    // The script says which client ran it (npm sets npm_config_user_agent) and where.
    const script = `node --test; s=$?; echo "\${npm_config_user_agent%% *} $PWD" >> ${JSON.stringify(marker)}; exit $s`;
    writeFileSync(
      path.join(repo, 'package.json'),
      `${JSON.stringify({ name: 'p', type: 'module', scripts: { test: script } }, null, 2)}\n`,
    );
    writeFileSync(
      path.join(repo, 'package-lock.json'),
      '{ "name": "p", "lockfileVersion": 3, "requires": true, "packages": {} }\n',
    );
    writeFileSync(path.join(repo, 'lib.js'), BUGGY);
    writeFileSync(
      path.join(repo, 'lib.test.js'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './lib.js';\ntest('adds', () => assert.equal(add(2, 2), 4));\n",
    );
    commit(repo, 'a node project');
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', delayMs: 2, edits: [{ path: 'lib.js', content: FIXED }] },
      codex: { agent: 'codex', delayMs: 2, edits: [{ path: 'notes.txt', content: 'looked\n' }] },
    });
    return { repo, marker };
  };

  it('typed on the command line, runs `npm test` on every result and the baseline with no hydra trust', async () => {
    const { repo, marker } = await nodeProject();
    const doctor = await run(repo, ['doctor']);
    expect(doctor.stdout).toMatch(
      /--check auto: `npm test` \(package\.json scripts\.test .*package-lock\.json\); package\.json is not trusted: --check auto typed on the command line runs it/,
    );

    const race = await run(repo, [
      'race',
      '--json',
      '--agents',
      'claude,codex',
      '--check',
      'auto',
      'Fix add',
    ]);
    expect(race.exitCode).toBe(0);
    expect(race.stderr).toContain('--check auto: running `npm test`');
    const summary = parseNdjson(race.stdout).at(-1) as unknown as Summary;
    const statusOf = (agent: string) =>
      summary.agents.find((item) => item.agent === agent)?.checks?.map((check) => [check.name, check.status]);
    expect(statusOf('claude')).toEqual([['test', 'passed']]);
    expect(statusOf('codex')).toEqual([['test', 'failed']]);
    expect(summary.baseline?.checks.map((check) => [check.name, check.status])).toEqual([['test', 'failed']]);
    expect(summary.agents.find((item) => item.agent === 'claude')?.score?.verified).toBe(true);
    // Issue 34: the final lines and hydra show say why each result ranks where it does.
    expect(race.stderr).toContain('hydra: why each result ranks where it does:');
    expect(race.stderr).toMatch(
      /^ {2}claude: 1st, [\d.]+: test: passes all 1 test \(1 failed on the base\); /m,
    );
    expect(race.stderr).toMatch(/^ {2}codex: 2nd, 0: cannot win: failed gate test; /m);
    const show = await run(repo, ['show', String(parseNdjson(race.stdout)[0]?.['runId'])]);
    expect(show.stdout).toMatch(/^ {2}why {5}1st, [\d.]+: test: passes all 1 test \(1 failed on the base\)/m);
    // Run by npm, in each result's clean checkout and the base's.
    const lines = readFileSync(marker, 'utf8').trim().split('\n').sort();
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^npm\/\S+ /);
    expect(lines.map((line) => path.basename(line))).toEqual([
      '.baseline',
      '.checks-claude',
      '.checks-codex',
    ]);
  }, 180_000);

  it('[race] checks = "auto" in a config runs it only once package.json is trusted; --revoke says what it revoked', async () => {
    const { repo, marker } = await nodeProject();
    writeFileSync(path.join(repo, 'hydra.toml'), '[race]\nchecks = "auto"\n');
    commit(repo, 'auto checks');
    const args = ['race', '--json', '--agents', 'claude,codex', 'Fix add'];
    expect((await run(repo, ['trust'])).exitCode).toBe(0);

    const refused = await run(repo, args);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('race.checks = "auto" found `npm test`');
    expect(refused.stderr).toContain('hydra trust package.json');
    expect(existsSync(marker)).toBe(false);

    const trusted = await run(repo, ['trust', 'package.json']);
    expect(trusted.stdout).toContain('undo with: hydra trust --revoke package.json');
    const race = await run(repo, args);
    expect(race.stderr).toContain('race.checks = "auto": running `npm test`');
    expect(readFileSync(marker, 'utf8').trim().split('\n')).toHaveLength(3);

    const revoked = await run(repo, ['trust', '--revoke', 'package.json']);
    expect(revoked.exitCode).toBe(0);
    expect(revoked.stdout).toContain(
      'package.json is no longer trusted: [race] checks = "auto" will not run `npm test`',
    );
    expect(revoked.stdout).not.toContain('keys are ignored');
    expect((await run(repo, args)).exitCode).toBe(2);
  }, 180_000);
});

describe('--check auto in a Python project', () => {
  // pytest must be installed (.ci/run installs Debian's python3-pytest): a missing one fails here.
  it('runs pytest on every result and the baseline', async () => {
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
    commit(repo, 'a python project');
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 2,
        edits: [{ path: 'calc.py', content: 'def add(a, b):\n    return a + b\n' }],
      },
    });
    const race = await run(repo, ['race', '--json', '--agents', 'claude', '--check', 'auto', 'Fix add']);
    expect(race.stderr).toContain('--check auto: running `python3 -m pytest`');
    const summary = parseNdjson(race.stdout).at(-1) as unknown as Summary;
    // The counts come from pytest's own summary line: pytest ran, in the result and on the base.
    expect(summary.agents[0]?.checks).toEqual([
      expect.objectContaining({
        name: 'pytest',
        status: 'passed',
        tests: expect.objectContaining({ passed: 2, failed: 0 }),
      }),
    ]);
    expect(summary.baseline?.checks).toEqual([
      expect.objectContaining({
        name: 'pytest',
        status: 'failed',
        tests: expect.objectContaining({ passed: 1, failed: 1 }),
      }),
    ]);
  }, 180_000);
});
