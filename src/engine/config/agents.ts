/**
 * Named agents: which agents a race runs and which CLI (adapter) each one is. An agent's name comes
 * from a `[agents.<name>]` table (over `adapter = "<id>"`, or the adapter the name is), from an
 * adapter's id, from `<adapter>:<model>` (named `<adapter>-<model>`) or from a repeat
 * (`claude*3` or `--repeat 3`: `claude-1`, `claude-2`, `claude-3`). Names become branch names and
 * directories, so they are checked here, before anything is created.
 */
import { adapterIds, getAdapter } from '../../adapters/registry.js';
import type { AdapterId } from '../../adapters/types.js';
import type { AgentName } from '../agent-name.js';
import { closest } from './did-you-mean.js';

/** Lowercase letters, digits and dashes, starting with a letter or digit (a branch and a directory name). */
const AGENT_NAME = /^[a-z0-9][a-z0-9-]*$/;
/** Run records keep names of up to 40 characters. */
const MAX_NAME_LENGTH = 40;
/** The most copies one `*N` or `--repeat N` asks for (the dashboard has keys 1 to 9). */
export const MAX_REPEAT = 9;

const NAME_RULE =
  'lowercase letters, digits and dashes, starting with a letter or digit, at most 40 characters';

/** A `[agents.<name>]` table as far as naming goes: the adapter it runs and whether it is on. */
interface AgentTable {
  adapter?: string | undefined;
  enabled?: boolean | undefined;
  model?: string | undefined;
}

/** Why a name cannot be an agent's name, or null when it can. */
const agentNameProblem = (name: string): string | null =>
  AGENT_NAME.test(name) && name.length <= MAX_NAME_LENGTH
    ? null
    : `"${name}" is not a valid agent name: use ${NAME_RULE} (it names a branch and a directory)`;

/** The adapter a table runs: its `adapter` key, else the adapter its name is (id or alias). */
export const tableAdapter = (name: string, table: AgentTable | undefined): AdapterId | undefined =>
  getAdapter(table?.adapter ?? name)?.id;

const adapterList = (): string => adapterIds().join(', ');

/** The problems of each `[agents.<name>]` table, one line each naming its key. */
export function agentTableProblems(
  tables: Readonly<Record<string, AgentTable | undefined>>,
  displayName: string,
): string[] {
  const problems: string[] = [];
  for (const [name, table] of Object.entries(tables)) {
    const badName = agentNameProblem(name);
    if (badName !== null) {
      const key = /^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name);
      problems.push(`${displayName}: agents.${key}: ${badName}`);
      continue;
    }
    const adapterWord = table?.adapter;
    if (adapterWord !== undefined) {
      const adapter = getAdapter(adapterWord);
      const own = getAdapter(name);
      if (adapter === undefined) {
        const suggestion = closest(adapterWord, adapterIds());
        problems.push(
          `${displayName}: agents.${name}.adapter: "${adapterWord}" is not an adapter${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; use one of ${adapterList()}`,
        );
      } else if (own !== undefined && own.id !== adapter.id) {
        problems.push(
          `${displayName}: agents.${name}: "${name}" is the ${own.id} adapter's name, so it cannot run ${adapter.id}; give this agent another name`,
        );
      }
    } else if (getAdapter(name) === undefined) {
      const suggestion = closest(name, adapterIds());
      problems.push(
        `${displayName}: agents.${name}: "${name}" is not an adapter${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; say which CLI it runs with adapter = "<id>" (one of ${adapterList()})`,
      );
    }
  }
  return problems;
}

/** One agent of the race's list before its settings are merged. */
export interface ListedAgent {
  name: AgentName;
  adapterId: AdapterId;
  /** The `[agents.<key>]` table whose settings it takes (absent when there is none). */
  table: string;
  /** The name before a repeat's `-<n>`: what `--model <base>=...` also applies to. */
  base: AgentName;
  /** The model `<adapter>:<model>` asked for. */
  model?: string;
  /** The list entry it came from, for messages (`claude*3`). */
  entry: string;
}

/** What an entry of the list names, before repeats. */
type Named = Omit<ListedAgent, 'base' | 'entry'>;

type ListProblem = string;

/** `opus-4.5` → `opus-4-5`: a model as part of an agent name. */
const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** What `claude`, `opus` or `claude:opus` names; a problem (a message) when it names nothing. */
function nameEntry(
  word: string,
  tables: Readonly<Record<string, AgentTable | undefined>>,
  source: string,
): Named | ListProblem {
  const colon = word.indexOf(':');
  if (colon >= 0) {
    const adapterWord = word.slice(0, colon).trim();
    const model = word.slice(colon + 1).trim();
    const adapter = getAdapter(adapterWord);
    if (adapter === undefined)
      return `${source}: "${word}": "${adapterWord}" is not an adapter; <adapter>:<model> takes one of ${adapterList()}`;
    if (model === '' || slug(model) === '')
      return `${source}: "${word}" names no model; write it as ${adapter.id}:<model>`;
    return { name: `${adapter.id}-${slug(model)}`, adapterId: adapter.id, table: adapter.id, model };
  }
  const name = word.toLowerCase();
  if (Object.hasOwn(tables, name)) {
    const adapterId = tableAdapter(name, tables[name]);
    // A table with a bad adapter was reported when the file was read.
    if (adapterId !== undefined) return { name, adapterId, table: name };
  }
  const adapter = getAdapter(word);
  if (adapter !== undefined) return { name: adapter.id, adapterId: adapter.id, table: adapter.id };
  const known = [...new Set([...adapterIds(), ...Object.keys(tables)])];
  const suggestion = closest(name, known);
  return `${source}: unknown agent "${word}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; name an adapter (${adapterList()}), a [agents.<name>] table of the config, or <adapter>:<model>`;
}

/** `claude*3` → `claude`, 3; a bad count is a problem. */
function splitRepeat(entry: string, source: string): { word: string; count: number | null } | ListProblem {
  const star = entry.lastIndexOf('*');
  if (star < 0) return { word: entry, count: null };
  const countText = entry.slice(star + 1).trim();
  const count = /^\d+$/.test(countText) ? Number(countText) : Number.NaN;
  if (!(count >= 1 && count <= MAX_REPEAT))
    return `${source}: "${entry}": the count after * must be a whole number from 1 to ${MAX_REPEAT}`;
  return { word: entry.slice(0, star).trim(), count };
}

/**
 * The race's agents from a list (`--agents` or `race.agents`), each entry expanded: a repeat
 * (its own `*N`, else `repeat`) gives `<name>-1` … `<name>-N`. Two entries that end up with one name
 * are a problem, not a silent merge.
 */
export function expandAgentList(
  entries: readonly string[],
  tables: Readonly<Record<string, AgentTable | undefined>>,
  options: { source: string; repeat?: number | undefined },
): { agents: ListedAgent[]; problems: ListProblem[] } {
  const agents: ListedAgent[] = [];
  const problems: ListProblem[] = [];
  const owner = new Map<AgentName, string>();
  for (const raw of entries) {
    const entry = raw.trim();
    const split = splitRepeat(entry, options.source);
    if (typeof split === 'string') {
      problems.push(split);
      continue;
    }
    const named = nameEntry(split.word, tables, options.source);
    if (typeof named === 'string') {
      problems.push(named);
      continue;
    }
    const count = split.count ?? options.repeat ?? 1;
    const copies =
      count === 1 ? [named.name] : Array.from({ length: count }, (_, index) => `${named.name}-${index + 1}`);
    for (const name of copies) {
      const bad = agentNameProblem(name);
      const earlier = owner.get(name);
      if (bad !== null) problems.push(`${options.source}: "${entry}": ${bad}`);
      else if (earlier !== undefined)
        problems.push(
          earlier === entry
            ? `${options.source}: "${entry}" is listed twice; to race it more than once write ${split.word}*2 (or --repeat 2)`
            : `${options.source}: "${earlier}" and "${entry}" both make an agent named ${name}; every agent needs its own name`,
        );
      else {
        owner.set(name, entry);
        agents.push({ ...named, name, base: named.name, entry });
      }
    }
  }
  return { agents, problems };
}
