/**
 * Per-agent checks are executing keys: a cloned repository's `[[agents.<name>.checks]]` run nothing
 * until the user trusts the file, and the race says so with the same warning as for `[[checks]]`.
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
import { expectNoProcessOfRun } from '../../support/fault-invariants.js';
import { sh, writeScript } from '../../support/security-helpers.js';

let sandbox: Sandbox;
let repo: string;
let marker: string;

/** What the repository's check.sh logged, one line per run. */
const checkRuns = (): string[] =>
  existsSync(marker)
    ? readFileSync(marker, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

beforeEach(async () => {
  sandbox = createSandbox();
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 2, edits: [{ path: 'hello.txt', content: 'hello\n' }] },
  });
  repo = await createRepo(sandbox.dir);
  marker = path.join(sandbox.dir, 'check-ran.log');
  writeScript(path.join(repo, 'check.sh'), `echo "ran $1" >> ${sh(marker)}`);
  writeFileSync(
    path.join(repo, 'hydra.toml'),
    '[race]\nagents = ["claude"]\n\n[[agents.claude.checks]]\nname = "own"\nrun = "./check.sh own"\n',
  );
  // Committed, as in a clone.
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'checks']);
});

afterEach(() => sandbox.cleanup());

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 90_000 });

describe("a repository's per-agent checks", () => {
  it('run nothing until trusted, with the warning [[checks]] gets; after hydra trust they run', async () => {
    const untrusted = await run(['race', '--json', 'Add a hello.txt file']);
    expect(untrusted.exitCode, untrusted.stderr).toBe(0);
    expect(checkRuns()).toEqual([]);
    expect(untrusted.stderr).toMatch(
      /hydra\.toml is not trusted, so its agents\.claude\.checks is ignored.*hydra trust/,
    );
    const lines = parseNdjson(untrusted.stdout);
    const summary = lines.at(-1) as { runId: string; agents: Array<{ status: string; checks?: unknown }> };
    expect(summary.agents[0]?.status).toBe('completed');
    expect(summary.agents[0]?.checks).toBeUndefined();
    expectNoProcessOfRun(summary.runId);

    const trust = await run(['trust']);
    expect(trust.exitCode).toBe(0);
    // hydra trust shows what the file would run.
    expect(trust.stdout).toContain('agents.claude.checks[0] own runs "./check.sh own"');
    const trusted = await run(['race', '--json', 'Add a hello.txt file']);
    expect(trusted.exitCode, trusted.stderr).toBe(0);
    expect(trusted.stderr).not.toContain('not trusted');
    expect(checkRuns()).toEqual(['ran own']);
    const checks = (parseNdjson(trusted.stdout).at(-1) as { agents: Array<{ checks?: unknown[] }> }).agents[0]
      ?.checks;
    expect(checks).toEqual([expect.objectContaining({ name: 'own', status: 'passed' })]);
  });
});
