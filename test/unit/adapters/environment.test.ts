/** What each adapter declares about the user's environment (src/adapters/environment.ts). */
import { describe, expect, it } from 'vitest';
import { readsEnv, stateDirVariables } from '../../../src/adapters/environment.js';
import { adapterIds, adapterOf } from '../../../src/adapters/registry.js';
import type { AgentAdapter } from '../../../src/adapters/types.js';

describe('declared environment', () => {
  it.each(adapterIds())('%s names its keys, each inside a family it declares', (id) => {
    const adapter = adapterOf(id);
    expect(adapter.environment?.keys.length).toBeGreaterThan(0);
    expect(adapter.environment?.prefixes.length).toBeGreaterThan(0);
    for (const key of adapter.environment?.keys ?? []) expect(readsEnv(adapter, key)).toBe(true);
    for (const prefix of adapter.environment?.prefixes ?? []) expect(prefix).toMatch(/^[A-Z][A-Z0-9_]*_$/);
  });

  it("reads a CLI's own variables and not another vendor's", () => {
    const claude = adapterOf('claude');
    const codex = adapterOf('codex');
    expect(readsEnv(claude, 'ANTHROPIC_API_KEY')).toBe(true);
    expect(readsEnv(claude, 'CLAUDE_CODE_MAX_RETRIES')).toBe(true);
    expect(readsEnv(claude, 'OPENAI_API_KEY')).toBe(false);
    expect(readsEnv(codex, 'OPENAI_BASE_URL')).toBe(true);
    expect(readsEnv(codex, 'AZURE_OPENAI_API_KEY')).toBe(true);
    expect(readsEnv(codex, 'ANTHROPIC_API_KEY')).toBe(false);
    expect(readsEnv(adapterOf('gemini'), 'GOOGLE_GEMINI_BASE_URL')).toBe(true);
    expect(readsEnv(adapterOf('cursor'), 'GEMINI_API_KEY')).toBe(false);
  });

  it('takes a family to be its prefix and an upper-case name, nothing shorter or in lower case', () => {
    const claude = adapterOf('claude');
    expect(readsEnv(claude, 'ANTHROPIC_')).toBe(false);
    expect(readsEnv(claude, 'ANTHROPIC')).toBe(false);
    expect(readsEnv(claude, 'ANTHROPIC_api_key')).toBe(false);
    expect(readsEnv(claude, 'XANTHROPIC_API_KEY')).toBe(false);
  });

  it('reads a base URL or key named outside any family, and nothing for an adapter that declares none', () => {
    const bare: AgentAdapter = { ...adapterOf('cursor'), environment: undefined, api: undefined };
    expect(readsEnv(bare, 'CURSOR_API_KEY')).toBe(false);
    const named: AgentAdapter = {
      ...bare,
      environment: { keys: ['ACME_TOKEN'], prefixes: [] },
      api: { hosts: [], baseUrlEnv: ['ACME_URL'] },
    };
    expect(readsEnv(named, 'ACME_TOKEN')).toBe(true);
    expect(readsEnv(named, 'ACME_URL')).toBe(true);
    expect(readsEnv(named, 'ACME_OTHER')).toBe(false);
  });

  it('names the variables that move a state directory', () => {
    expect(stateDirVariables(adapterOf('codex'))).toEqual(['CODEX_HOME']);
    expect(stateDirVariables(adapterOf('claude'))).toEqual(['CLAUDE_CONFIG_DIR']);
    expect(stateDirVariables(adapterOf('cursor'))).toEqual([]);
  });
});
