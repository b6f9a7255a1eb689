/**
 * Issue 10, case 10: the probe runs the binary with the agent's configured env, as the race does,
 * so a wrapper that needs it probes well; the probe cache is keyed by that env (a hash, never the
 * values), so a changed env is probed again.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { sh, writeScript } from '../../support/security-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
} from '../../support/fault-invariants.js';

const TOKEN = 'wrapper-needs-this-1234';

let sandbox: Sandbox;
let repo: string;
let wrapper: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  const vendor = path.join(sandbox.dir, 'vendor');
  await installFakes(vendor, { claude: { agent: 'claude', delayMs: 2 } });
  wrapper = writeScript(
    path.join(sandbox.dir, 'claude-wrapper'),
    `if [ "$WRAP_TOKEN" != ${sh(TOKEN)} ]; then echo "claude-wrapper: WRAP_TOKEN is not set" >&2; exit 3; fi\n` +
      `exec ${sh(path.join(vendor, 'claude'))} "$@"`,
  );
});

afterEach(() => sandbox.cleanup());

const writeConfig = (token: string): string => {
  const file = path.join(sandbox.dir, 'hydra.toml');
  writeFileSync(
    file,
    `[race]\nagents = ["claude"]\n[agents.claude]\nbinary = ${JSON.stringify(wrapper)}\nenv = { WRAP_TOKEN = "${token}" }\n`,
  );
  return file;
};

type DoctorReport = { adapters: Array<{ id: string; status: string; error: { message: string } | null }> };
const claudeOf = (stdout: string) =>
  (JSON.parse(stdout) as DoctorReport).adapters.find((item) => item.id === 'claude');

/** Every file of the probe cache, as text. */
const cacheText = (): string => {
  const dir = path.join(repo, '.cache', 'hydra');
  return readdirSync(dir)
    .map((name) => readFileSync(path.join(dir, name), 'utf8'))
    .join('\n');
};

describe('probing a wrapper that needs the configured env', () => {
  it('doctor probes it with the env: ready; the cache keeps no env value; another env is probed again', async () => {
    const good = await hydra(['doctor', '--json', '--config', writeConfig(TOKEN)], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(claudeOf(good.stdout)).toMatchObject({ status: 'ready', error: null });
    expect(cacheText()).not.toContain(TOKEN);

    const bad = await hydra(['doctor', '--json', '--config', writeConfig('wrong-token-5678')], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(claudeOf(bad.stdout)?.status).not.toBe('ready');
  });

  it('race probes it with the env and races', async () => {
    const before = captureUserState(repo);
    const result = await hydra(['race', '--json', '--config', writeConfig(TOKEN), 'Add a hello.txt file'], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = parseNdjson(result.stdout);
    const summary = lines.at(-1) as { agents: Array<{ agent: string; status: string }> };
    expect(summary.agents).toEqual([expect.objectContaining({ agent: 'claude', status: 'completed' })]);
    expectUserStateUnchanged(repo, before);
    expectNoProcessOfRun((lines[0] as { runId: string }).runId);
    expectRecordsReadable(repo);
  });
});
