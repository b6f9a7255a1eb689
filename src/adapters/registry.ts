/**
 * The one list of agent CLIs. Everything else (config keys, `--agents`, doctor, the demo, merge)
 * asks this registry, so adding a CLI is one new adapter file and one line in BUILT_IN_ADAPTERS.
 * A test can register a throwaway adapter; the engine looks adapters up here when a race runs.
 */
import { claudeAdapter } from './claude.js';
import { codexAdapter } from './codex.js';
import { cursorAdapter } from './cursor.js';
import { geminiAdapter } from './gemini.js';
import { opencodeAdapter } from './opencode.js';
import { qwenAdapter } from './qwen.js';
import type { AdapterId, AgentAdapter } from './types.js';

/** The CLIs hydra ships with, in display order: the default race's first (claude, codex), then by age. */
const BUILT_IN_ADAPTERS: readonly AgentAdapter[] = [
  claudeAdapter,
  codexAdapter,
  cursorAdapter,
  geminiAdapter,
  qwenAdapter,
  opencodeAdapter,
];

/** Ids that can name a branch, a directory and a `[agents.<id>]` table without quoting. */
const VALID_ID = /^[a-z][a-z0-9-]*$/;

const adapters = new Map<AdapterId, AgentAdapter>();
/** Every lowercase id and alias → its adapter's id. */
const names = new Map<string, AdapterId>();

const namesOf = (adapter: AgentAdapter): string[] => [
  adapter.id,
  ...adapter.aliases.map((alias) => alias.toLowerCase()),
];

/**
 * Adds an adapter; returns the function that removes it again (for tests). An id that is not
 * lowercase letters, digits and dashes, or a name another adapter already answers to, is refused.
 */
export const registerAdapter = (adapter: AgentAdapter): (() => void) => {
  if (!VALID_ID.test(adapter.id)) {
    throw new Error(`adapter id "${adapter.id}" must be lowercase letters, digits and dashes`);
  }
  const taken = namesOf(adapter).find((name) => names.has(name));
  if (taken !== undefined) throw new Error(`adapter name "${taken}" is already registered`);
  adapters.set(adapter.id, adapter);
  for (const name of namesOf(adapter)) names.set(name, adapter.id);
  return () => {
    if (adapters.get(adapter.id) !== adapter) return;
    adapters.delete(adapter.id);
    for (const name of namesOf(adapter)) names.delete(name);
  };
};

for (const adapter of BUILT_IN_ADAPTERS) registerAdapter(adapter);

/** Every registered adapter, in the order registered (the built-ins first). */
export const listAdapters = (): AgentAdapter[] => [...adapters.values()];

/** Every registered id, in the order registered. */
export const adapterIds = (): AdapterId[] => [...adapters.keys()];

/** The adapter a user's word names: its id or an alias, case-insensitively; undefined if none. */
export const getAdapter = (name: string): AgentAdapter | undefined => {
  const id = names.get(name.trim().toLowerCase());
  return id === undefined ? undefined : adapters.get(id);
};

/** The adapter for an id hydra already checked; an unknown id here is a bug, not user input. */
export const adapterOf = (id: AdapterId): AgentAdapter => {
  const adapter = adapters.get(id);
  if (adapter === undefined) throw new Error(`no adapter is registered as "${id}"`);
  return adapter;
};

/** The binaries to try, in order: the configured one first, then the adapter's own names. */
export const binaryCandidates = (adapter: AgentAdapter, configured?: string): string[] => [
  ...new Set([...(configured === undefined || configured === '' ? [] : [configured]), ...adapter.binaries]),
];
