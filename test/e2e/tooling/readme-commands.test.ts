/**
 * Every command the README shows in a `sh` block is run: here, in the README's order, on a real
 * repository with fake agent CLIs, or by the test named in ELSEWHERE. A command added to the README
 * without a test fails the first case.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
  ROOT,
} from '../../support/cli-helpers.js';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The commands of the README's `sh` blocks: comments dropped, `a && b` split in two. */
export function readmeCommands(text: string): string[] {
  const commands: string[] = [];
  for (const block of text.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    for (const line of (block[1] ?? '').split('\n')) {
      const command = line.replace(/\s{2,}#.*$/, '').trim();
      if (command === '' || command.startsWith('#')) continue;
      commands.push(...command.split(' && ').map((part) => part.trim()));
    }
  }
  return commands;
}

/** Commands run by another test or by CI, with a line of that file that runs them. */
const ELSEWHERE: Record<string, { file: string; needle: string }> = {
  'npm install': { file: '.ci/run', needle: 'npm ci' },
  'npm test': { file: '.ci/run', needle: 'npm test' },
  'hydra show last --tui': {
    file: 'test/system/terminal/dashboard.test.ts',
    needle: "command: ['show', 'last', '--tui']",
  },
};

/** Commands this file runs (below, in this order). */
const HERE = [
  'npm run demo',
  'npm install -g .',
  'npx hydra --help',
  'cd your-repo',
  'hydra demo --here',
  'hydra doctor',
  'hydra race --check auto "add a --verbose flag to the CLI and a test for it"',
  'hydra merge <run-id> claude',
  'hydra race --agents claude:opus,claude:sonnet "fix the flaky test"',
  'hydra race --agents claude*3 "fix the flaky test"',
  'hydra continue last claude "Also add a test for it"',
  'hydra rerun last codex',
  'cd "$(hydra open last claude)"',
];

describe("the README's commands", () => {
  it('are each run by this file or by the test named for it', () => {
    const commands = readmeCommands(README);
    expect(commands.length).toBeGreaterThan(10);
    const untested = commands.filter(
      (command) => !HERE.includes(command) && ELSEWHERE[command] === undefined,
    );
    expect(untested, 'README commands no test runs: add them here').toEqual([]);
    // Nothing listed here that the README no longer shows (the list would rot).
    expect([...HERE, ...Object.keys(ELSEWHERE)].filter((command) => !commands.includes(command))).toEqual([]);
    for (const { file, needle } of Object.values(ELSEWHERE)) {
      expect(readFileSync(path.join(ROOT, file), 'utf8'), file).toContain(needle);
    }
  });
});

describe('run in order, as a newcomer would', () => {
  let sandbox: Sandbox;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[], cwd = repo) => hydra(args, { cwd, env, timeoutMs: 120_000 });

  beforeAll(async () => {
    sandbox = createSandbox();
    // npm and npx live beside node.
    env = { ...sandbox.env, PATH: `${sandbox.env.PATH}:${path.dirname(process.execPath)}` };
    repo = await createRepo(sandbox.dir, { name: 'your-repo' });
    // A Node project whose `npm test` the README's --check auto finds.
    writeFileSync(
      path.join(repo, 'package.json'),
      JSON.stringify({ name: 'your-repo', private: true, scripts: { test: 'node --test' } }, null, 2),
    );
    writeFileSync(
      path.join(repo, 'cli.test.js'),
      "const test = require('node:test');\ntest('runs', () => {});\n",
    );
    git(repo, ['add', '-A']);
    git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'a node project']);
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 5,
        edits: [{ path: 'verbose.js', content: 'module.exports = 1;\n' }],
      },
      codex: { agent: 'codex', delayMs: 5, edits: [{ path: 'codex.js', content: 'module.exports = 2;\n' }] },
    });
  });

  afterAll(() => sandbox.cleanup());

  it('npm run demo, npm install -g . and npx hydra --help, in the checkout', async () => {
    const npm = path.join(path.dirname(process.execPath), 'npm');
    const demo = await execa(npm, ['run', 'demo'], { cwd: ROOT, env, extendEnv: false, reject: false });
    expect(demo.exitCode, String(demo.stderr)).toBe(0);

    const prefix = mkdtempSync(path.join(tmpdir(), 'hydra-readme-prefix-'));
    try {
      const install = await execa(
        npm,
        // Without its `prepare` (a build of dist/ in this checkout, covered by prepare.test.ts): the
        // other test files, run at once, use this dist/ while it would be rebuilt under them.
        ['install', '-g', '.', '--prefix', prefix, '--no-audit', '--no-fund', '--ignore-scripts'],
        {
          cwd: ROOT,
          env,
          extendEnv: false,
          reject: false,
        },
      );
      expect(install.exitCode, String(install.stderr)).toBe(0);
      const installed = await execa(path.join(prefix, 'bin', 'hydra'), ['--version'], { reject: false });
      expect(installed.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }

    const npx = path.join(path.dirname(process.execPath), 'npx');
    // Without the `prepare` npx runs when it installs this checkout into its cache, for the reason
    // given above: it rebuilt dist/ (removed, then written again) under the files run at once.
    const help = await execa(npx, ['--ignore-scripts', '--no-install', 'hydra', '--help'], {
      cwd: ROOT,
      env,
      extendEnv: false,
      reject: false,
    });
    expect(help.exitCode, String(help.stderr)).toBe(0);
    expect(help.stdout).toContain('hydra race');
  }, 300_000);

  it('hydra demo --here races the simulated agents in your repository', async () => {
    const result = await run(['demo', '--here']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(git(repo, ['status', '--porcelain'])).toBe('');
  }, 120_000);

  it('hydra doctor, then a race with --check auto and a merge', async () => {
    const doctor = await run(['doctor']);
    expect(doctor.exitCode, doctor.stderr).toBe(0);

    // Typed on the command line, --check auto needs no hydra trust (issue 34).
    const race = await run(['race', '--check', 'auto', 'add a --verbose flag to the CLI and a test for it']);
    expect(race.exitCode, race.stderr).toBe(0);
    const lines = parseNdjson(race.stdout);
    const summary = lines.at(-1) as { runId: string; agents: Array<{ checks?: Array<{ status: string }> }> };
    // --check auto found `npm test` and ran it on every result.
    for (const agent of summary.agents) expect(agent.checks?.[0]?.status).toBe('passed');

    const merge = await run(['merge', summary.runId, 'claude']);
    expect(merge.exitCode, merge.stderr).toBe(0);
    expect(existsSync(path.join(repo, 'verbose.js'))).toBe(true);
  }, 240_000);

  it('one CLI several ways, then continue, rerun and open on the last race', async () => {
    for (const agents of ['claude:opus,claude:sonnet', 'claude*3']) {
      const result = await run(['race', '--agents', agents, 'fix the flaky test']);
      expect(result.exitCode, result.stderr).toBe(0);
    }
    // The last race was claude*3: its agents are claude-1..3, so continue the README's way on a
    // race of claude and codex.
    expect((await run(['race', 'fix the flaky test'])).exitCode).toBe(0);
    const follow = await run(['continue', 'last', 'claude', 'Also add a test for it']);
    expect(follow.exitCode, follow.stderr).toBe(0);
    const rerun = await run(['rerun', 'last', 'codex']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const open = await run(['open', 'last', 'claude']);
    expect(open.exitCode, open.stderr).toBe(0);
    expect(existsSync(open.stdout.trim())).toBe(true);
  }, 300_000);
});
