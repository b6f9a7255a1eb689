/** What an agent CLI gets of hydra's environment (src/engine/process/agent-env.ts), and a container agent. */
import { describe, expect, it, vi } from 'vitest';
import { adapterOf } from '../../../../src/adapters/registry.js';
import {
  agentEnvironment,
  commandEnvironment,
  passedVariables,
} from '../../../../src/engine/process/index.js';
import { containerLaunch } from '../../../../src/engine/race/agent-launch.js';
import type { ResolvedRaceOptions } from '../../../../src/engine/race/race-types.js';

const USER_ENV = {
  PATH: '/usr/bin',
  HOME: '/home/me',
  LANG: 'C.UTF-8',
  LC_ALL: 'C',
  TERM: 'xterm',
  TZ: 'UTC',
  HTTPS_PROXY: 'http://proxy:3128',
  NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
  XDG_CONFIG_HOME: '/home/me/.config',
  ANTHROPIC_API_KEY: 'sk-ant',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:4000',
  CLAUDE_CODE_MAX_RETRIES: '0',
  OPENAI_API_KEY: 'sk-o',
  GEMINI_API_KEY: 'g',
  GH_TOKEN: 'ghp',
  AWS_SECRET_ACCESS_KEY: 'aws',
  DATABASE_URL: 'postgres://x',
  HYDRA_DEMO_DELAY_MS: '150',
  HYDRA_TEST_SERVICE_PASSWORD: 'pw',
  XDG_SESSION_TOKEN: 'tok',
};

describe('agentEnvironment', () => {
  it("gives Claude Code the general variables and its own, never another CLI's key or a token", () => {
    expect(Object.keys(agentEnvironment(adapterOf('claude'), USER_ENV)).sort()).toEqual([
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_BASE_URL',
      'CLAUDE_CODE_MAX_RETRIES',
      'HOME',
      'HTTPS_PROXY',
      'HYDRA_DEMO_DELAY_MS',
      'LANG',
      'LC_ALL',
      'NODE_EXTRA_CA_CERTS',
      'PATH',
      'TERM',
      'TZ',
      'XDG_CONFIG_HOME',
    ]);
  });

  it('gives Codex its own key and not Claude Code’s', () => {
    const env = agentEnvironment(adapterOf('codex'), USER_ENV);
    expect(env['OPENAI_API_KEY']).toBe('sk-o');
    expect(env['ANTHROPIC_API_KEY']).toBeUndefined();
    expect(env['GEMINI_API_KEY']).toBeUndefined();
  });
});

describe("a container agent's variables", () => {
  it('are those its own CLI reads, not every CLI’s', () => {
    for (const [name, value] of Object.entries(USER_ENV)) vi.stubEnv(name, value);
    try {
      const launch = containerLaunch(
        { adapterId: 'claude', extraArgs: [], env: {}, idleTimeoutMs: 1000, runner: 'container' },
        { container: { hosts: [], image: 'img', network: 'bridge' } } as unknown as ResolvedRaceOptions,
      );
      const passed = launch?.passEnv ?? [];
      expect(passed).toEqual(
        expect.arrayContaining(['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'CLAUDE_CODE_MAX_RETRIES']),
      );
      for (const name of ['OPENAI_API_KEY', 'GEMINI_API_KEY', 'GH_TOKEN', 'AWS_SECRET_ACCESS_KEY'])
        expect(passed).not.toContain(name);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("a check's environment (commandEnvironment)", () => {
  const CHECK_ENV = {
    ...USER_ENV,
    NODE_ENV: 'test',
    CI: 'true',
    NPM_TOKEN: 'npm_x',
    AWS_PROFILE: 'prod',
    AWS_ACCESS_KEY_ID: 'AKIA',
    AZURE_CLIENT_ID: 'id',
    SSH_AUTH_SOCK: '/tmp/ssh-agent',
    DB_PASS: 'pw',
    STRIPE_KEY: 'sk',
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: 'Authorization: bearer x',
  };

  it('keeps every variable that is no credential, and none that is', () => {
    expect(Object.keys(commandEnvironment({ pass: [] }, CHECK_ENV)).sort()).toEqual([
      'ANTHROPIC_BASE_URL',
      'CI',
      'CLAUDE_CODE_MAX_RETRIES',
      'DATABASE_URL',
      'HOME',
      'HTTPS_PROXY',
      'HYDRA_DEMO_DELAY_MS',
      'LANG',
      'LC_ALL',
      'NODE_ENV',
      'NODE_EXTRA_CA_CERTS',
      'PATH',
      'TERM',
      'TZ',
      'XDG_CONFIG_HOME',
    ]);
    // No rule at all: the same, never the whole.
    expect(commandEnvironment(undefined, CHECK_ENV)).toEqual(commandEnvironment({ pass: [] }, CHECK_ENV));
  });

  it('adds what the user passes, by name or by family, and gives the whole to a trusted command', () => {
    const passed = commandEnvironment({ pass: ['NPM_TOKEN', 'AWS_*'] }, CHECK_ENV);
    expect(passed).toMatchObject({ NPM_TOKEN: 'npm_x', AWS_PROFILE: 'prod', AWS_SECRET_ACCESS_KEY: 'aws' });
    expect(passed['GH_TOKEN']).toBeUndefined();
    expect(commandEnvironment({ pass: [], whole: true }, CHECK_ENV)).toEqual(CHECK_ENV);
  });

  it('gives a command in a container only the passed variables (passedVariables)', () => {
    expect(passedVariables({ pass: ['NPM_TOKEN', 'AWS_*'] }, CHECK_ENV)).toEqual({
      NPM_TOKEN: 'npm_x',
      AWS_PROFILE: 'prod',
      AWS_ACCESS_KEY_ID: 'AKIA',
      AWS_SECRET_ACCESS_KEY: 'aws',
    });
    expect(passedVariables({ pass: [], whole: true }, CHECK_ENV)).toEqual({});
  });
});
