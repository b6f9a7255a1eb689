/** The registry: the one list of adapters, which a test can extend for the length of a test. */
import { afterEach, describe, expect, it } from 'vitest';
import { codexAdapter } from '../../../src/adapters/codex.js';
import {
  adapterIds,
  adapterOf,
  binaryCandidates,
  getAdapter,
  registerAdapter,
} from '../../../src/adapters/registry.js';
import type { AgentAdapter } from '../../../src/adapters/types.js';

/** A stand-in adapter under another name (its behaviour does not matter here). */
const named = (id: string, aliases: string[] = []): AgentAdapter => ({
  ...codexAdapter,
  id,
  aliases,
  binaries: [id],
});

const cleanups: Array<() => void> = [];
const register = (adapter: AgentAdapter): void => {
  cleanups.push(registerAdapter(adapter));
};

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('adapter registry', () => {
  it('adds a registered adapter after the built-ins, and forgets it when unregistered', () => {
    const builtIn = adapterIds();
    const unregister = registerAdapter(named('acme', ['acme-cli']));
    expect(adapterIds()).toEqual([...builtIn, 'acme']);
    expect(getAdapter(' Acme-CLI ')?.id).toBe('acme');
    expect(adapterOf('acme').id).toBe('acme');

    unregister();

    expect(adapterIds()).toEqual(builtIn);
    expect(getAdapter('acme-cli')).toBeUndefined();
    expect(() => adapterOf('acme')).toThrow(/no adapter is registered as "acme"/);
  });

  it('refuses a name another adapter already answers to, as id or alias', () => {
    expect(() => registerAdapter(named('claude'))).toThrow(/"claude" is already registered/);
    expect(() => registerAdapter(named('acme', ['Cursor-Agent']))).toThrow(
      /"cursor-agent" is already registered/,
    );
    expect(getAdapter('acme')).toBeUndefined();
  });

  it('refuses an id that could not name a branch or a config table as it is', () => {
    for (const id of ['Acme', 'acme agent', '', '9acme', 'acme/x']) {
      expect(() => registerAdapter(named(id)), id).toThrow(/lowercase letters, digits and dashes/);
    }
  });

  it('resolves a user-typed name to one adapter: id or alias, any case', () => {
    register(named('acme'));
    expect(getAdapter('CODEX')?.id).toBe('codex');
    expect(getAdapter('cursor-agent')?.id).toBe('cursor');
    expect(getAdapter('acme')?.id).toBe('acme');
    expect(getAdapter('constructor')).toBeUndefined();
  });

  it('tries a configured binary first, then the adapter’s own names, each once', () => {
    expect(binaryCandidates(codexAdapter)).toEqual(['codex']);
    expect(binaryCandidates(codexAdapter, '')).toEqual(['codex']);
    expect(binaryCandidates(codexAdapter, '/opt/codex')).toEqual(['/opt/codex', 'codex']);
    expect(binaryCandidates(codexAdapter, 'codex')).toEqual(['codex']);
  });
});

describe('built-in adapters', () => {
  it.each(adapterIds())('%s declares its binaries, install and sign-in hints, and a demo pace', (id) => {
    const adapter = adapterOf(id);
    expect(adapter.binaries.length).toBeGreaterThan(0);
    expect(adapter.installHint).not.toBe('');
    expect(adapter.signInHint).not.toBe('');
    expect(adapter.demo?.lineDelayMs).toBeGreaterThan(0);
  });

  it('only Claude Code warns about running as root, and only for a race in bypass mode', () => {
    const warned = adapterIds().filter(
      (id) => (adapterOf(id).doctorWarnings?.({ isRoot: true, unsafe: true }) ?? []).length > 0,
    );
    expect(warned).toEqual(['claude']);
    expect(adapterOf('claude').doctorWarnings?.({ isRoot: false, unsafe: true })).toEqual([]);
    expect(adapterOf('claude').doctorWarnings?.({ isRoot: true, unsafe: false })).toEqual([]);
  });
});
