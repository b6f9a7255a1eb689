/**
 * Issue 35, case 6: an agent's environment is an allowlist. A Claude agent (the fault agent as
 * `claude`, writing down the environment it was started with) gets the general variables, its own
 * CLI's (`ANTHROPIC_*`) and what `[agents.X] env` sets; never another CLI's key or a forge or cloud
 * token from hydra's environment.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { installAgents, makeSandbox, plan, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';

/** What hydra's environment holds: the user's keys for every CLI, a forge token, cloud keys. */
const HOSTILE = {
  OPENAI_API_KEY: 'sk-openai-env-case6',
  GEMINI_API_KEY: 'gemini-env-case6',
  GH_TOKEN: 'ghp_envcase6',
  GITHUB_TOKEN: 'ghp_envcase6b',
  AWS_ACCESS_KEY_ID: 'AKIAENVCASE6',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-env-case6',
  NPM_TOKEN: 'npm-env-case6',
  XDG_AUTH_TOKEN: 'xdg-shaped-secret-case6',
  DATABASE_URL: 'postgres://user:pw@db/app',
};

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

beforeEach(() => {
  sandbox = makeSandbox();
  for (const [name, value] of Object.entries(HOSTILE)) vi.stubEnv(name, value);
  vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-env-case6');
  vi.stubEnv('LC_MESSAGES', 'C');
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

describe("a Claude agent's environment", () => {
  it("holds the general variables, Claude's own and its configured ones; no other CLI's key, no token", async () => {
    const dump = path.join(sandbox.dir, 'claude-env.json');
    await installAgents(sandbox, { claude: { logEnvTo: dump } });
    handle = startRace(
      raceOptions(sandbox, [
        plan(sandbox, 'claude', { env: { PROJECT_SETTING: 'mine', NPM_TOKEN: 'given' } }),
      ]),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]?.status, JSON.stringify(summary.agents[0]?.error)).toBe('completed');
    const env = JSON.parse(readFileSync(dump, 'utf8')) as Record<string, string>;
    for (const name of Object.keys(HOSTILE).filter((key) => key !== 'NPM_TOKEN'))
      expect(env[name], name).toBeUndefined();
    // What `[agents.claude] env` sets is the user's choice, a token included.
    expect(env['NPM_TOKEN']).toBe('given');
    expect(env['PROJECT_SETTING']).toBe('mine');
    expect(env['ANTHROPIC_API_KEY']).toBe('sk-ant-env-case6');
    expect(env['PATH']).toBe(process.env['PATH']);
    expect(env['HOME']).toBe(process.env['HOME']);
    expect(env['LC_MESSAGES']).toBe('C');
    expect(env['HYDRA_RUN_ID']).toBe(handle.runId);
  });

  it("also holds the variable its CLI's own configuration takes a provider's key from (a Codex provider's env_key), and nothing else of hydra's", async () => {
    vi.stubEnv('MY_PROVIDER_KEY', 'sk-provider-env-case6');
    const dump = path.join(sandbox.dir, 'codex-env.json');
    await installAgents(sandbox, { codex: { logEnvTo: dump } });
    handle = startRace(
      raceOptions(sandbox, [
        plan(sandbox, 'codex', {
          extraArgs: [
            '-c',
            'model_providers.mine={name="mine",base_url="http://127.0.0.1:9/v1",env_key="MY_PROVIDER_KEY"}',
          ],
        }),
      ]),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]?.status, JSON.stringify(summary.agents[0]?.error)).toBe('completed');
    const env = JSON.parse(readFileSync(dump, 'utf8')) as Record<string, string>;
    // Before: dropped by the allowlist, and a real Codex failed "Missing environment variable".
    expect(env['MY_PROVIDER_KEY']).toBe('sk-provider-env-case6');
    expect(env['OPENAI_API_KEY']).toBe('sk-openai-env-case6');
    expect(env['GH_TOKEN']).toBeUndefined();
    expect(env['DATABASE_URL']).toBeUndefined();
  });
});
