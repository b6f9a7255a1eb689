/** Which of the user's variables a container agent gets (src/engine/container/env.ts). */
import { describe, expect, it } from 'vitest';
import { passedEnvNames } from '../../../../src/engine/container/index.js';

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
});
