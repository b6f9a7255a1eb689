/**
 * Finding binaries: a command on the env's PATH or as a path, an adapter's candidates in order,
 * and a configured `binary` that must exist (never a silent fallback to another CLI on PATH).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { binaryCandidates } from '../../adapters/registry.js';
import type { AgentAdapter } from '../../adapters/types.js';

export const isPathLike = (command: string): boolean => command.includes('/') || command.includes('\\');

/**
 * Where `command` may be, in order: a path (anything with a separator) resolved against `cwd`, else
 * the name in each directory of the env's PATH (with PATHEXT on Windows).
 */
function commandCandidates(command: string, env: NodeJS.ProcessEnv, cwd: string): string[] {
  if (command === '') return [];
  if (isAbsolute(command) || isPathLike(command)) return [resolve(cwd, command)];
  const pathVariable = env['PATH'] ?? env['Path'] ?? '';
  const extensions =
    process.platform === 'win32' ? ['', ...(env['PATHEXT'] ?? '.EXE;.CMD;.BAT;.COM').split(';')] : [''];
  return pathVariable
    .split(delimiter)
    .filter((directory) => directory !== '')
    .flatMap((directory) => extensions.map((extension) => join(directory, command + extension)));
}

const isExecutableFile = async (path: string): Promise<boolean> => {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    if (process.platform === 'win32') return true;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const isExecutableFileSync = (path: string): boolean => {
  try {
    if (!statSync(path).isFile()) return false;
    if (process.platform !== 'win32') accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The absolute path of a command (see commandCandidates), or null when not found. */
export const resolveCommand = async (
  command: string,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): Promise<string | null> => {
  for (const candidate of commandCandidates(command, env, cwd))
    if (await isExecutableFile(candidate)) return candidate;
  return null;
};

/** resolveCommand, synchronously (before a race starts, to refuse a configured binary that is missing). */
export const resolveCommandSync = (
  command: string,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): string | null => commandCandidates(command, env, cwd).find(isExecutableFileSync) ?? null;

export interface DiscoveredBinary {
  /** The name or path tried (from the adapter's candidate list). */
  candidate: string;
  path: string;
}

/** Every candidate of an adapter that exists, in the adapter's order, without duplicates. */
export const discoverBinaries = async (
  adapter: AgentAdapter,
  configured: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<DiscoveredBinary[]> => {
  const found: DiscoveredBinary[] = [];
  const seen = new Set<string>();
  for (const candidate of binaryCandidates(adapter, configured)) {
    const path = await resolveCommand(candidate, env);
    if (path === null || seen.has(path)) continue;
    seen.add(path);
    found.push({ candidate, path });
  }
  return found;
};
