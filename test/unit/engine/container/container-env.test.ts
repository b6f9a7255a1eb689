/** Which of the user's variables a container agent gets (src/engine/container/env.ts). */
import { describe, expect, it } from 'vitest';
import { adapterOf, registerAdapter } from '../../../../src/adapters/registry.js';
import type { AgentAdapter } from '../../../../src/adapters/types.js';
import { passedEnvNames } from '../../../../src/engine/container/index.js';

/** The list container/env.ts kept before the adapters declared their variables. */
const FORMER_LIST =
  /^(ANTHROPIC|OPENAI|CODEX|CLAUDE|CLAUDE_CODE|GEMINI|GOOGLE|CURSOR|QWEN|DASHSCOPE|OPENROUTER|AZURE_OPENAI|MISTRAL|DEEPSEEK|XAI|GROQ|OPENCODE)_[A-Z0-9_]+$/;
const FORMER_STATE_DIRS = new Set([
  'CODEX_HOME',
  'CLAUDE_CONFIG_DIR',
  // Qwen Code's and Gemini CLI's, declared since their agents get state copies (issue 35, case 4).
  'QWEN_HOME',
  'GEMINI_CLI_HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
]);

describe('passedEnvNames', () => {
  it("passes the CLIs' keys and endpoints, not the variables that name this machine's state directories", () => {
    const env = {
      ANTHROPIC_API_KEY: 'sk-a',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      OPENAI_API_KEY: 'sk-o',
      CODEX_HOME: '/home/me/.codex',
      CLAUDE_CONFIG_DIR: '/home/me/.claude',
      CLAUDE_CODE_MAX_RETRIES: '0',
      PATH: '/usr/bin',
    };
    expect(passedEnvNames(env)).toEqual([
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_BASE_URL',
      'CLAUDE_CODE_MAX_RETRIES',
      'OPENAI_API_KEY',
    ]);
  });

  it('passes what the former list of vendor prefixes passed, now from the adapters', () => {
    const vendors = [
      'ANTHROPIC',
      'OPENAI',
      'CODEX',
      'CLAUDE',
      'GEMINI',
      'GOOGLE',
      'CURSOR',
      'QWEN',
      'DASHSCOPE',
    ];
    const others = [
      'OPENROUTER',
      'AZURE_OPENAI',
      'MISTRAL',
      'DEEPSEEK',
      'XAI',
      'GROQ',
      'OPENCODE',
      'AWS',
      'AZURE',
    ];
    const tails = ['API_KEY', 'BASE_URL', 'HOME', 'CONFIG_DIR', 'CODE_MAX_RETRIES', 'MODEL', 'x', ''];
    const env: Record<string, string> = {
      PATH: '/usr/bin',
      HOME: '/home/me',
      XDG_CONFIG_HOME: '/home/me/.config',
    };
    for (const vendor of [...vendors, ...others])
      for (const tail of tails) env[`${vendor}_${tail}`] = 'value';
    env['GOOGLE_GEMINI_BASE_URL'] = 'http://127.0.0.1:1';
    const former = Object.keys(env)
      .filter((name) => FORMER_LIST.test(name) && !FORMER_STATE_DIRS.has(name))
      .sort();
    expect(former.length).toBeGreaterThan(80);
    expect(passedEnvNames(env)).toEqual(former);
  });

  it("passes one agent only its own CLI's variables when asked for that adapter", () => {
    const env = {
      ANTHROPIC_API_KEY: 'sk-a',
      CLAUDE_CODE_MAX_RETRIES: '0',
      OPENAI_API_KEY: 'sk-o',
      CODEX_HOME: '/x',
    };
    expect(passedEnvNames(env, [adapterOf('claude')])).toEqual([
      'ANTHROPIC_API_KEY',
      'CLAUDE_CODE_MAX_RETRIES',
    ]);
    expect(passedEnvNames(env, [adapterOf('codex')])).toEqual(['OPENAI_API_KEY']);
  });

  it('passes what an adapter registered at run time declares, and nothing once it is gone', () => {
    const acme: AgentAdapter = {
      ...adapterOf('cursor'),
      id: 'acme',
      aliases: [],
      binaries: ['acme'],
      stateDirs: [{ path: '.acme', env: 'ACME_HOME' }],
      api: { hosts: ['api.acme.test'], baseUrlEnv: ['ACME_ENDPOINT'] },
      environment: { keys: ['ACME_TOKEN'], prefixes: ['ACME_'] },
    };
    const env = {
      ACME_TOKEN: 't',
      ACME_REGION: 'eu',
      ACME_ENDPOINT: 'http://127.0.0.1:1',
      ACME_HOME: '/home/me/.acme',
    };
    const unregister = registerAdapter(acme);
    try {
      expect(passedEnvNames(env)).toEqual(['ACME_ENDPOINT', 'ACME_REGION', 'ACME_TOKEN']);
      expect(passedEnvNames(env, [acme])).toEqual(['ACME_ENDPOINT', 'ACME_REGION', 'ACME_TOKEN']);
    } finally {
      unregister();
    }
    expect(passedEnvNames(env)).toEqual([]);
  });
});
