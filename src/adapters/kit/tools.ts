/**
 * One terminal line per tool call, from a CLI's tool table: the table lists its tools by what
 * their line shows (a shell command, a path, a pattern in a path, a URL...). A tool the table
 * does not name shows its name and its input as compact JSON.
 */
import { asString, compactJson, oneLine, relativePath } from '../../core/text.js';

/**
 * What a tool's line shows: `shell` `$ <command>`; `path` `<verb> <path>`; `pattern`
 * `<verb> <pattern> in <path>`; `fetch` `Fetch <url>`; `search` `Search <query>`; `task`
 * `Task <description>`; `paths` `Read <paths as JSON>`; `todos` `Update todo list (<n> items)`;
 * `mcp` `<tool> <arguments>`.
 */
export type ToolLine = 'shell' | 'path' | 'pattern' | 'fetch' | 'search' | 'task' | 'paths' | 'todos' | 'mcp';

/** A tool's name, or `[name, verb]` when its line's verb is not its own name (`['replace', 'Edit']`). */
export type ToolName = string | readonly [string, string];

/** A CLI's tools by the line they show. */
export type ToolTable = Readonly<Partial<Record<ToolLine, readonly ToolName[]>>>;

/**
 * The tool names most agent CLIs share (Claude Code's set, which opencode and Qwen Code copied),
 * compared without case and underscores (`web_fetch` is `WebFetch`); a CLI's own table goes first.
 * The verb is the tool's own name.
 */
const SHARED: ToolTable = {
  shell: ['bash'],
  path: ['write', 'edit', 'multiedit', 'notebookedit', 'read', 'list'],
  pattern: ['glob', 'grep'],
  fetch: ['webfetch'],
  search: ['websearch'],
  task: ['task'],
  todos: ['todowrite'],
};

/** The input fields CLIs name a path, a pattern, a URL... with (the first one set wins). */
const FIELDS = {
  path: ['file_path', 'filePath', 'absolute_path', 'notebook_path', 'dir_path', 'path'],
  pattern: ['pattern', 'globPattern'],
  url: ['url', 'prompt'],
  query: ['query'],
  description: ['description'],
  command: ['command'],
  tool: ['toolName', 'name'],
} as const;

const first = (fields: Record<string, unknown>, keys: readonly string[]): string | undefined =>
  keys.map((key) => asString(fields[key])).find((value) => value !== undefined);

/** The line and verb the table gives a tool, if it names it. */
const lookUp = (table: ToolTable, name: string, verb: string = name): [ToolLine, string] | undefined => {
  for (const [line, names] of Object.entries(table) as [ToolLine, readonly ToolName[]][]) {
    for (const entry of names) {
      if (entry === name) return [line, verb];
      if (typeof entry !== 'string' && entry[0] === name) return [line, entry[1]];
    }
  }
  return undefined;
};

/** The line for one tool call; `label` names a tool the table does not know (default: its name). */
export const summarizeTool = (
  table: ToolTable,
  name: string,
  input: unknown,
  cwd: string | undefined,
  label: string = name,
): string => {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const found = lookUp(table, name) ?? lookUp(SHARED, name.replaceAll('_', '').toLowerCase(), name);
  if (found === undefined) return oneLine(`${label} ${compactJson(input)}`);
  const [line, verb] = found;
  const path = first(fields, FIELDS.path);
  const shown = path === undefined ? '' : relativePath(path, cwd);
  switch (line) {
    case 'shell':
      return oneLine(`$ ${first(fields, FIELDS.command) ?? ''}`);
    case 'path':
      return oneLine(`${verb} ${shown}`);
    case 'pattern':
      return oneLine(`${verb} ${first(fields, FIELDS.pattern) ?? ''}${shown === '' ? '' : ` in ${shown}`}`);
    case 'fetch':
      return oneLine(`Fetch ${first(fields, FIELDS.url) ?? ''}`);
    case 'search':
      return oneLine(`Search ${first(fields, FIELDS.query) ?? ''}`);
    case 'task':
      return oneLine(`Task ${first(fields, FIELDS.description) ?? ''}`);
    case 'paths':
      return oneLine(`Read ${compactJson(fields['paths'] ?? fields['include'])}`);
    case 'todos':
      return `Update todo list (${Array.isArray(fields['todos']) ? fields['todos'].length : 0} items)`;
    case 'mcp':
      return oneLine(
        `${first(fields, FIELDS.tool) ?? 'mcp'} ${compactJson(fields['args'] ?? fields['arguments'])}`,
      );
  }
};
