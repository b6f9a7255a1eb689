/**
 * Every adapter, keyed by id. Adding a CLI is one new file and one line here (plus its id in
 * AdapterId).
 */
import { claudeAdapter } from './claude.js';
import { codexAdapter } from './codex.js';
import { cursorAdapter } from './cursor.js';
import type { AdapterId, AgentAdapter } from './types.js';

export const ADAPTERS: Record<AdapterId, AgentAdapter> = {
  claude: claudeAdapter,
  codex: codexAdapter,
  cursor: cursorAdapter,
};

/** Ids in display order: tier-1 first. */
export const ADAPTER_IDS: AdapterId[] = ['claude', 'codex', 'cursor'];

const isAdapterId = (id: string): id is AdapterId => Object.hasOwn(ADAPTERS, id);

/** The adapter for an id as typed by a user (case-insensitive; "cursor-agent" names Cursor). */
export const getAdapter = (id: string): AgentAdapter | undefined => {
  const key = id.trim().toLowerCase();
  const normalized = key === 'cursor-agent' ? 'cursor' : key;
  return isAdapterId(normalized) ? ADAPTERS[normalized] : undefined;
};
