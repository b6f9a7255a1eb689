/**
 * Issue 21, cases 11-13: trust is bound to the place of a repository's hydra.toml and covers every
 * key that widens what runs, and a repository's file layers over the user's own without dropping
 * the user's gates. Real repositories, real hydra processes, scripts that log when they run.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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
import { sh, writeScript } from '../../support/security-helpers.js';

let sandbox: Sandbox;
let marker: string;

/** The lines the logging scripts wrote, one per run. */
const ran = (): string[] =>
  existsSync(marker)
    ? readFileSync(marker, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

const commit = (repo: string, message: string): void => {
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', message]);
};

beforeEach(async () => {
  sandbox = createSandbox();
  marker = path.join(sandbox.dir, 'ran.log');
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 2, edits: [{ path: 'hello.txt', content: 'hello\n' }] },
  });
});

afterEach(() => sandbox.cleanup());

const run = (repo: string, args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 90_000 });

describe('case 11: trust is bound to the repository the file is in', () => {
  it('a hydra.toml linked to another repository’s trusted file is not trusted, and cannot be', async () => {
    const config =
      '[race]\nagents = ["claude"]\n\n[agents.claude]\nbinary = "./tool.sh"\n\n[[checks]]\nname = "own"\nrun = "./check.sh"\n';
    const repos: Record<'trusted' | 'hostile', string> = {
      trusted: await createRepo(sandbox.dir, { name: 'trusted' }),
      hostile: await createRepo(sandbox.dir, { name: 'hostile' }),
    };
    for (const [name, repo] of Object.entries(repos)) {
      writeScript(
        path.join(repo, 'tool.sh'),
        `echo "tool ${name}" >> ${sh(marker)}\nexec ${sh(path.join(sandbox.bin, 'claude'))} "$@"`,
      );
      writeScript(path.join(repo, 'check.sh'), `echo "check ${name}" >> ${sh(marker)}`);
    }
    writeFileSync(path.join(repos.trusted, 'hydra.toml'), config);
    commit(repos.trusted, 'tooling');
    expect((await run(repos.trusted, ['trust'])).exitCode).toBe(0);
    symlinkSync(path.join(repos.trusted, 'hydra.toml'), path.join(repos.hostile, 'hydra.toml'));
    commit(repos.hostile, 'tooling');

    const doctor = await run(repos.hostile, ['doctor']);
    expect(ran()).toEqual([]);
    expect(doctor.stdout).toContain('symbolic link');
    expect(doctor.stdout).toContain('outside this repository');

    const race = await run(repos.hostile, ['race', '--json', 'Add a hello.txt file']);
    expect(race.exitCode, race.stderr).toBe(0);
    expect(ran()).toEqual([]);
    expect(race.stderr).toMatch(/symbolic link .*agents\.claude\.binary/);

    const trust = await run(repos.hostile, ['trust']);
    expect(trust.exitCode).not.toBe(0);
    expect(trust.stderr).toContain('symbolic link');
    expect(trust.stderr).toContain('outside its repository');

    // The trusted repository itself still runs its own tool.
    await run(repos.trusted, ['doctor']);
    expect(ran().every((line) => line.endsWith('trusted'))).toBe(true);
    expect(ran().length).toBeGreaterThan(0);
  });
});

describe('case 12: keys that widen what runs wait for trust', () => {
  it('allow_experimental_adapters and an agent list adding cursor are ignored, named, until hydra trust', async () => {
    const repo = await createRepo(sandbox.dir);
    writeScript(path.join(sandbox.bin, 'cursor-agent'), `echo "cursor $*" >> ${sh(marker)}\nexit 1`);
    writeFileSync(
      path.join(repo, 'hydra.toml'),
      '[race]\nallow_experimental_adapters = true\nagents = ["claude", "cursor"]\n',
    );
    commit(repo, 'config');

    const doctor = await run(repo, ['doctor', '--json']);
    expect(ran()).toEqual([]);
    const report = JSON.parse(doctor.stdout) as {
      config: { ignored: string[] };
      adapters: Array<{ id: string; status: string }>;
    };
    expect(report.config.ignored).toEqual(['race.allow_experimental_adapters', 'race.agents']);
    expect(report.adapters.find((adapter) => adapter.id === 'cursor')?.status).toBe('needs-opt-in');

    const race = await run(repo, ['race', '--json', 'Add a hello.txt file']);
    expect(race.exitCode, race.stderr).toBe(0);
    expect(ran()).toEqual([]);
    expect(race.stderr).toMatch(
      /hydra\.toml is not trusted, so its race\.allow_experimental_adapters, race\.agents are ignored.*hydra trust/,
    );
    const summary = parseNdjson(race.stdout).at(-1) as { agents: Array<{ agent: string }> };
    expect(summary.agents.map((agent) => agent.agent)).not.toContain('cursor');

    // Trusted, the same file races cursor: the user opted in.
    expect((await run(repo, ['trust'])).exitCode).toBe(0);
    await run(repo, ['race', '--json', 'Add a hello.txt file']);
    expect(ran().some((line) => line.startsWith('cursor'))).toBe(true);
  });

  it('an untrusted file may narrow the race, and enabled = true may not add a CLI', async () => {
    const repo = await createRepo(sandbox.dir);
    writeScript(path.join(sandbox.bin, 'gemini'), `echo "gemini $*" >> ${sh(marker)}\nexit 1`);
    writeFileSync(
      path.join(repo, 'hydra.toml'),
      '[agents.gemini]\nenabled = true\n\n[agents.codex]\nenabled = false\n',
    );
    commit(repo, 'config');
    const race = await run(repo, ['race', '--json', 'Add a hello.txt file']);
    expect(race.exitCode, race.stderr).toBe(0);
    expect(ran()).toEqual([]);
    expect(race.stderr).toContain('agents.gemini.enabled is ignored');
    const summary = parseNdjson(race.stdout).at(-1) as { agents: Array<{ agent: string }> };
    expect(summary.agents.map((agent) => agent.agent)).toEqual(['claude']);
  });
});

describe("case 13: a repository's file layers over the user's own", () => {
  it("keeps the user's gate, so --auto-merge best does not merge what the user would refuse", async () => {
    const repo = await createRepo(sandbox.dir);
    const gate = writeScript(
      path.join(sandbox.dir, 'user-gate.sh'),
      `echo "user gate" >> ${sh(marker)}\nexit 1`,
    );
    const userDir = path.join(sandbox.env.XDG_CONFIG_HOME ?? '', 'hydra');
    mkdirSync(userDir, { recursive: true });
    writeFileSync(
      path.join(userDir, 'hydra.toml'),
      `[race]\nidle_timeout_s = 60\n\n[[checks]]\nname = "user-gate"\nrun = ${JSON.stringify(gate)}\ngate = true\n`,
    );
    // No executing key: nothing for hydra trust to do, and it names only the agents.
    writeFileSync(path.join(repo, 'hydra.toml'), '[race]\nagents = ["claude"]\n');
    commit(repo, 'config');

    const race = await run(repo, ['race', '--json', '--auto-merge', 'best', 'Add a hello.txt file']);
    expect(ran()).toContain('user gate');
    const summary = parseNdjson(race.stdout).at(-1) as {
      agents: Array<{ agent: string; checks?: Array<{ name: string; status: string }> }>;
    };
    expect(summary.agents.map((agent) => agent.agent)).toEqual(['claude']);
    expect(summary.agents[0]?.checks).toEqual([
      expect.objectContaining({ name: 'user-gate', status: 'failed' }),
    ]);
    expect(existsSync(path.join(repo, 'hello.txt'))).toBe(false);
  });

  it("a trusted repository file cannot make the user's gate optional: the gate holds, with a warning", async () => {
    const repo = await createRepo(sandbox.dir);
    const gate = writeScript(
      path.join(sandbox.dir, 'user-gate.sh'),
      `echo "user gate" >> ${sh(marker)}\nexit 1`,
    );
    const userDir = path.join(sandbox.env.XDG_CONFIG_HOME ?? '', 'hydra');
    mkdirSync(userDir, { recursive: true });
    writeFileSync(
      path.join(userDir, 'hydra.toml'),
      `[[checks]]\nname = "test"\nrun = ${JSON.stringify(gate)}\ngate = true\n`,
    );
    writeFileSync(
      path.join(repo, 'hydra.toml'),
      '[race]\nagents = ["claude"]\n\n[[checks]]\nname = "test"\nrun = "true"\ngate = false\n',
    );
    commit(repo, 'config');
    expect((await run(repo, ['trust'])).exitCode).toBe(0);
    const race = await run(repo, ['race', '--json', '--auto-merge', 'best', 'Add a hello.txt file']);
    expect(race.stderr).toContain('is your gate in');
    expect(ran()).toContain('user gate');
    expect(existsSync(path.join(repo, 'hello.txt'))).toBe(false);
  });
});
