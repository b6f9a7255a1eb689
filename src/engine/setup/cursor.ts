/**
 * `.cursor/worktrees.json`: Cursor's setup commands for a new worktree
 * (https://cursor.com/docs/configuration/worktrees.md). Three keys: `setup-worktree-unix` (macOS and
 * Linux, over `setup-worktree`), `setup-worktree-windows` (Windows, over `setup-worktree`) and
 * `setup-worktree` (every system); each a list of shell commands run in order in the worktree, or a
 * path to a script relative to `.cursor/worktrees.json`. hydra reads it from the repository's root
 * when hydra.toml has no `[setup] run`. It is repository content that runs commands: used only once
 * `hydra trust` trusted it (the file and the script it names, together), else ignored with a warning.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SetupSettings } from './settings.js';

/** Where Cursor's file lives in a repository. */
export const CURSOR_SETUP_FILE = path.join('.cursor', 'worktrees.json');

export interface CursorSetup {
  /** The file's absolute path. */
  file: string;
  /** The commands it gives on this system (a script becomes one command running it). */
  commands: string[];
  /** The script it names (relative to the repository's root), or null for a list of commands. */
  script: string | null;
  /** What `hydra trust` hashes: the file's bytes, then the script's. */
  trustContent: Buffer;
}

/** The key this system reads first, then the fallback (Cursor's precedence). */
const keysFor = (platform: NodeJS.Platform): string[] =>
  platform === 'win32'
    ? ['setup-worktree-windows', 'setup-worktree']
    : ['setup-worktree-unix', 'setup-worktree'];

const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * The repository's `.cursor/worktrees.json` as hydra runs it; null when there is none (or it names
 * no commands for this system); `{ problem }` when it cannot be used (not JSON, a wrong shape, a
 * script outside the repository).
 */
export function readCursorSetup(
  root: string,
  platform: NodeJS.Platform = process.platform,
): CursorSetup | { problem: string } | null {
  const file = path.join(root, CURSOR_SETUP_FILE);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { problem: `${CURSOR_SETUP_FILE} is not valid JSON (${(error as Error).message})` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { problem: `${CURSOR_SETUP_FILE} must be a JSON object with a "setup-worktree" key` };
  const record = parsed as Record<string, unknown>;
  const key = keysFor(platform).find((name) => record[name] !== undefined);
  if (key === undefined) return null;
  const value = record[key];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    const commands = value.filter((item) => item.trim() !== '');
    return commands.length === 0 ? null : { file, commands, script: null, trustContent: bytes };
  }
  if (typeof value !== 'string' || value.trim() === '')
    return { problem: `${CURSOR_SETUP_FILE}: "${key}" must be a list of commands or a script path` };
  const script = path.relative(root, path.resolve(path.dirname(file), value));
  if (script.startsWith('..') || path.isAbsolute(script))
    return { problem: `${CURSOR_SETUP_FILE}: "${key}" names ${value}, outside the repository` };
  let scriptBytes: Buffer;
  try {
    scriptBytes = readFileSync(path.join(root, script));
  } catch {
    return { problem: `${CURSOR_SETUP_FILE}: "${key}" names ${value}, which does not exist` };
  }
  const posix = script.split(path.sep).join('/');
  const command = executable(path.join(root, script)) ? `./${quote(posix)}` : `sh ${quote(posix)}`;
  return { file, commands: [command], script: posix, trustContent: Buffer.concat([bytes, scriptBytes]) };
}

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export interface CursorResolution {
  /** The race's setup: `settings`, or with the Cursor commands when they apply. */
  setup: SetupSettings;
  /** What the race (and doctor) says: an untrusted or unusable file, ignored. */
  warning: string | null;
  /** The file as read, when there is one. */
  cursor: CursorSetup | null;
  /** Whether its content is trusted (`hydra trust`); null without a usable file. */
  trust: 'trusted' | 'changed' | 'untrusted' | null;
}

/**
 * The race's setup once `.cursor/worktrees.json` is considered: used when hydra.toml has no
 * `[setup] run` and the file is trusted (`trustState`: the user's trust store, config/trust.ts).
 */
export function resolveCursorSetup(
  settings: SetupSettings,
  root: string,
  trustState: (file: string, content: Buffer) => 'trusted' | 'changed' | 'untrusted',
): CursorResolution {
  const none = { setup: settings, warning: null, cursor: null, trust: null };
  if (settings.run.length > 0) return none;
  const read = readCursorSetup(root);
  if (read === null) return none;
  if ('problem' in read) return { ...none, warning: `${read.problem}; its setup commands are not run` };
  const trust = trustState(read.file, read.trustContent);
  if (trust !== 'trusted') {
    const why = trust === 'changed' ? 'changed since you trusted it' : 'not trusted';
    return {
      setup: settings,
      cursor: read,
      trust,
      warning: `${CURSOR_SETUP_FILE} is ${why}, so its setup commands are not run: review it, then run \`hydra trust\``,
    };
  }
  return {
    setup: { ...settings, run: read.commands, runSource: 'cursor' },
    cursor: read,
    trust,
    warning: null,
  };
}
