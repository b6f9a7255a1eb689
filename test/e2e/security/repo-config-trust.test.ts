/**
 * Issue 9, case 7: a cloned repository's hydra.toml names the programs hydra runs. Until the user
 * trusts the file (`hydra trust`), its binary, env and extra_args are ignored by doctor and race,
 * and both say which keys and how to trust; an edit needs trust again; --config is trusted.
 */
import { existsSync, mkdirSync, readFileSync, statSync, appendFileSync, writeFileSync } from 'node:fs';
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
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
  extraWorktrees,
} from '../../support/fault-invariants.js';
import { sh, writeScript } from '../../support/security-helpers.js';

let sandbox: Sandbox;
let repo: string;
let marker: string;

const CONFIG =
  '[race]\nagents = ["claude"]\n\n[agents.claude]\nbinary = "./tool.sh"\nenv = { TOOL_MODE = "evil" }\nextra_args = ["--verbose"]\nidle_timeout_s = 20\n';

/** How many times the repository's tool.sh ran. */
const toolRuns = (): number =>
  existsSync(marker)
    ? readFileSync(marker, 'utf8')
        .split('\n')
        .filter((line) => line !== '').length
    : 0;

beforeEach(async () => {
  sandbox = createSandbox();
  // The real (fake) Claude lives on PATH; the repository's tool.sh logs each run, then runs it.
  await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 2 } });
  repo = await createRepo(sandbox.dir);
  marker = path.join(sandbox.dir, 'tool-ran.log');
  writeScript(
    path.join(repo, 'tool.sh'),
    `echo "ran $TOOL_MODE $*" >> ${sh(marker)}\nexec ${sh(path.join(sandbox.bin, 'claude'))} "$@"`,
  );
  writeFileSync(path.join(repo, 'hydra.toml'), CONFIG);
  // Committed, as in a clone: the user's tree is clean.
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'tooling']);
});

afterEach(() => sandbox.cleanup());

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env });

describe('a repository hydra.toml that names programs', () => {
  it('doctor does not run its binary until trusted, says which keys it ignored and how to trust', async () => {
    const text = await run(['doctor']);
    expect(toolRuns()).toBe(0);
    expect(text.stdout).toContain('not trusted');
    expect(text.stdout).toContain('agents.claude.binary, agents.claude.env, agents.claude.extra_args');
    expect(text.stdout).toContain('hydra trust');

    const json = await run(['doctor', '--json']);
    expect(toolRuns()).toBe(0);
    const report = JSON.parse(json.stdout) as {
      config: { trusted: boolean; ignored: string[]; source: string };
    };
    expect(report.config).toMatchObject({
      source: 'repository',
      trusted: false,
      ignored: ['agents.claude.binary', 'agents.claude.env', 'agents.claude.extra_args'],
    });
  });

  it("a race's skipped agent whose only binary is the ignored one says to trust the file, not to install it", async () => {
    // Claude Code is not on PATH: only the repository's tool.sh would run it.
    const env = { ...sandbox.env, PATH: '/usr/bin:/bin' };
    const result = await hydra(['race', '--json', 'Add a hello.txt file'], { cwd: repo, env });
    expect(toolRuns()).toBe(0);
    const summary = parseNdjson(result.stdout).at(-1) as {
      agents?: Array<{ agent: string; status: string; error?: { kind: string; hint: string } }>;
      error?: { kind: string; hint: string };
    };
    const claude = summary.agents?.find((agent) => agent.agent === 'claude');
    const hint = claude?.error?.hint ?? summary.error?.hint ?? '';
    expect(hint).toContain('hydra.toml names agents.claude.binary, ignored until you trust the file');
    expect(hint).not.toContain('npm install -g');
  });

  it('race does not run its binary until trusted, and warns on stderr and in the NDJSON', async () => {
    const before = captureUserState(repo);
    const result = await run(['race', '--json', 'Add a hello.txt file']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(toolRuns()).toBe(0);
    expect(result.stderr).toMatch(/hydra\.toml is not trusted.*agents\.claude\.binary.*hydra trust/);
    const lines = parseNdjson(result.stdout);
    const race = lines.find((line) => line['type'] === 'race') as { runId: string; warnings?: string[] };
    expect(race.warnings?.join('\n')).toContain('agents.claude.binary');
    // The keys that do not execute still apply: the race ran the agent from race.agents.
    expect((lines.at(-1) as { agents: Array<{ agent: string; status: string }> }).agents).toEqual([
      expect.objectContaining({ agent: 'claude', status: 'completed' }),
    ]);
    expectUserStateUnchanged(repo, before);
    expectNoProcessOfRun(race.runId);
    expect(extraWorktrees(repo)).toEqual([]);
    expectRecordsReadable(repo);
  });

  it('after hydra trust, doctor and race run it with its env and extra_args; an edit needs trust again', async () => {
    const trusted = await run(['trust']);
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('agents.claude.binary = "./tool.sh"');
    expect(trusted.stdout).toContain('agents.claude.env sets TOOL_MODE');

    // The trust store: owner-only, under the user's config dir.
    const storeDir = path.join(sandbox.env.XDG_CONFIG_HOME ?? '', 'hydra');
    expect(statSync(storeDir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(storeDir, 'trusted.json')).mode & 0o777).toBe(0o600);

    const doctor = await run(['doctor']);
    expect(doctor.stdout).not.toContain('not trusted');
    expect(toolRuns()).toBeGreaterThan(0);
    expect(readFileSync(marker, 'utf8')).toContain('ran evil');

    const probes = toolRuns();
    const result = await run(['race', '--json', 'Add a hello.txt file']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('not trusted');
    const raceRuns = readFileSync(marker, 'utf8').split('\n').slice(probes);
    expect(raceRuns.some((line) => line.startsWith('ran evil') && line.includes('--verbose'))).toBe(true);

    // An edit (here: appended by a `git pull`) makes the file untrusted again.
    appendFileSync(path.join(repo, 'hydra.toml'), '# changed upstream\n');
    const runsBefore = toolRuns();
    const again = await run(['doctor']);
    expect(again.stdout).toContain('not trusted');
    const raced = await run(['race', '--json', 'Add a hello.txt file']);
    expect(raced.exitCode, raced.stderr).toBe(0);
    expect(toolRuns()).toBe(runsBefore);
    expect((await run(['trust', '--list'])).stdout).toContain('changed since trusted');
  });

  it("a named agent's binary, env and extra_args wait for trust too", async () => {
    writeFileSync(
      path.join(repo, 'hydra.toml'),
      '[agents.opus]\nadapter = "claude"\nmodel = "opus"\nbinary = "./tool.sh"\nenv = { TOOL_MODE = "evil" }\nextra_args = ["--verbose"]\n',
    );
    git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-am', 'a named agent']);
    const result = await run(['race', '--json', '--agents', 'opus', 'Add a hello.txt file']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(toolRuns()).toBe(0);
    expect(result.stderr).toContain('agents.opus.binary, agents.opus.env, agents.opus.extra_args');
    // Its model is not an executing key: the agent raced, as opus, over the Claude CLI on PATH.
    expect((parseNdjson(result.stdout).at(-1) as { agents: unknown[] }).agents).toEqual([
      expect.objectContaining({ agent: 'opus', adapter: 'claude', status: 'completed' }),
    ]);

    expect((await run(['trust'])).exitCode).toBe(0);
    const trusted = await run(['race', '--json', '--agents', 'opus', 'Add a hello.txt file']);
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(readFileSync(marker, 'utf8')).toMatch(/^ran evil .*--model opus.*--verbose/m);
  });

  it('hydra trust --revoke makes it untrusted again', async () => {
    await run(['trust']);
    const revoked = await run(['trust', '--revoke']);
    expect(revoked.exitCode).toBe(0);
    expect(revoked.stdout).toContain('no longer trusted');
    await run(['doctor']);
    expect(toolRuns()).toBe(0);
  });

  it('refuses to trust a file that is not a valid config (exit 2), and trusts nothing', async () => {
    writeFileSync(path.join(repo, 'hydra.toml'), '[agents.claude]\nbinray = "./tool.sh"\n');
    const result = await run(['trust']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('did you mean "binary"');
    expect(existsSync(path.join(sandbox.env.XDG_CONFIG_HOME ?? '', 'hydra', 'trusted.json'))).toBe(false);
  });

  it('a file given with --config is trusted (the user named it)', async () => {
    const result = await run(['doctor', '--config', 'hydra.toml']);
    expect(result.stdout).not.toContain('not trusted');
    expect(toolRuns()).toBeGreaterThan(0);
  });

  it("the user's own config dir is trusted", async () => {
    const userDir = path.join(sandbox.env.XDG_CONFIG_HOME ?? '', 'hydra');
    mkdirSync(userDir, { recursive: true });
    const tool = writeScript(
      path.join(sandbox.dir, 'user-tool.sh'),
      `echo "ran user" >> ${sh(marker)}\nexec ${sh(path.join(sandbox.bin, 'claude'))} "$@"`,
    );
    writeFileSync(path.join(userDir, 'hydra.toml'), `[agents.claude]\nbinary = ${JSON.stringify(tool)}\n`);
    git(repo, ['rm', '--quiet', 'hydra.toml']);
    const result = await run(['doctor']);
    expect(result.stdout).not.toContain('not trusted');
    expect(readFileSync(marker, 'utf8')).toContain('ran user');
  });
});
