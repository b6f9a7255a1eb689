/**
 * One terminal line per tool call, from a CLI's tool table: each tool name says what its line
 * shows (a shell command, a path, a pattern in a path, a URL...) and with which verb. A tool the
 * table does not name shows its name and its input as compact JSON.
 */
import { asString, compactJson, oneLine, relativePath } from '../../core/text.js';

/**
 * What a tool's line shows: `shell` `$ <command>`; `path` `<verb> <path>`; `pattern`
 * `<verb> <pattern> in <path>`; `url`, `query`, `description` `<verb> <that field>`; `paths`
 * `<verb> <the paths, as JSON>`; `todos` `Update todo list (<n> items)`; `mcp` `<tool> <arguments>`.
 */
export type ToolLine =
  'shell' | 'path' | 'pattern' | 'url' | 'query' | 'description' | 'paths' | 'todos' | 'mcp';

/** A tool's line, and its verb (the tool's own name when left out). */
export type ToolSpec = ToolLine | readonly [ToolLine, string];

export type ToolTable = Readonly<Record<string, ToolSpec>>;

/** The input fields each CLI names a path, a pattern, a URL... with (the first one set wins). */
const FIELDS = {
  path: ['file_path', 'filePath', 'absolute_path', 'notebook_path', 'dir_path', 'path'],
  pattern: ['pattern', 'globPattern'],
  url: ['url', 'prompt'],
  query: ['query'],
  description: ['description'],
  command: ['command'],
  paths: ['paths', 'include'],
  tool: ['toolName', 'name'],
  arguments: ['args', 'arguments'],
} as const;

const first = (fields: Record<string, unknown>, keys: readonly string[]): string | undefined => {
  for (const key of keys) {
    const value = asString(fields[key]);
    if (value !== undefined) return value;
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
  const spec = Object.hasOwn(table, name) ? table[name] : undefined;
  if (spec === undefined) return oneLine(`${label} ${compactJson(input)}`);
  const [line, verb] = typeof spec === 'string' ? [spec, name] : spec;
  const path = first(fields, FIELDS.path);
  const shown = path === undefined ? '' : relativePath(path, cwd);
  switch (line) {
    case 'shell':
      return oneLine(`$ ${first(fields, FIELDS.command) ?? ''}`);
    case 'path':
      return oneLine(`${verb} ${shown}`);
    case 'pattern':
      return oneLine(`${verb} ${first(fields, FIELDS.pattern) ?? ''}${shown === '' ? '' : ` in ${shown}`}`);
    case 'url':
    case 'query':
    case 'description':
      return oneLine(`${verb} ${first(fields, FIELDS[line]) ?? ''}`);
    case 'paths':
      return oneLine(`${verb} ${compactJson(fields['paths'] ?? fields['include'])}`);
    case 'todos':
      return `Update todo list (${Array.isArray(fields['todos']) ? fields['todos'].length : 0} items)`;
    case 'mcp': {
      const args = fields['args'] ?? fields['arguments'];
      return oneLine(`${first(fields, FIELDS.tool) ?? 'mcp'} ${compactJson(args)}`);
    }
  }
};
