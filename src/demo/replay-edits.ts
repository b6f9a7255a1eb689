/**
 * The files a replay writes: the edits its recorded stream's tool calls made (or the scenario's),
 * applied to the working directory so a race has something to merge.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readIfExists } from './fake-io.js';
import type { FakeEdit } from './fake-scenario.js';

/** The repository path the recorded fixtures were normalized to. */
export const FIXTURE_REPO = '/tmp/hydra-fixture/repo';

const CONTENT_KEYS = ['content', 'fileText', 'contents', 'file_text'];
const PATH_KEYS = ['file_path', 'path', 'filePath'];
const QUOTED_PATH_KEYS = PATH_KEYS.map((key) => `"${key}"`);
const OLD_KEYS = ['oldString', 'old_string'];
const NEW_KEYS = ['newString', 'new_string'];

const stringKey = (record: Record<string, unknown>, keys: readonly string[]): string | undefined => {
  const key = keys.find((candidate) => typeof record[candidate] === 'string');
  return key === undefined ? undefined : (record[key] as string);
};

/**
 * Finds file writes and edits in a stream line: {path, content|fileText} objects, {path, oldString,
 * newString} edit calls, and codex file_change paths. A call repeated (started, then completed) is
 * one edit, keyed by path and what it does.
 */
const collectWrites = (value: unknown, agent: string, found: Map<string, FakeEdit>): void => {
  if (Array.isArray(value)) {
    for (const item of value) collectWrites(item, agent, found);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  const file = stringKey(record, PATH_KEYS);
  const content = stringKey(record, CONTENT_KEYS);
  const before = stringKey(record, OLD_KEYS);
  const after = stringKey(record, NEW_KEYS);
  if (file !== undefined && content !== undefined) found.set(`write\0${file}`, { path: file, content });
  if (file !== undefined && before !== undefined && after !== undefined)
    found.set(`edit\0${file}\0${before}\0${after}`, {
      path: file,
      content: '',
      replace: { old: before, new: after },
    });
  if (record.type === 'file_change' && Array.isArray(record.changes)) {
    for (const change of record.changes as Array<Record<string, unknown>>) {
      if (
        typeof change.path === 'string' &&
        change.kind !== 'delete' &&
        !found.has(`write\0${change.path}`)
      ) {
        found.set(`write\0${change.path}`, {
          path: change.path,
          content: `written by the ${agent} fake agent\n`,
        });
      }
    }
  }
  for (const child of Object.values(record)) collectWrites(child, agent, found);
};

/** The edits a recorded stream's own write and edit tool calls make. */
export const deriveEdits = (lines: string[], agent: string): FakeEdit[] => {
  const found = new Map<string, FakeEdit>();
  for (const line of lines) {
    // Every write names its file under one of the path keys: other lines are not parsed at all.
    if (!QUOTED_PATH_KEYS.some((key) => line.includes(key))) continue;
    try {
      collectWrites(JSON.parse(line) as unknown, agent, found);
    } catch {
      // Not JSON: nothing to derive.
    }
  }
  return [...found.values()];
};

/** The file's text after an edit call: the replacement, or what the edit adds when `old` is not there. */
const replaced = (current: string, replace: { old: string; new: string }): string | null => {
  if (replace.old !== '' && current.includes(replace.old)) return current.replace(replace.old, replace.new);
  if (replace.new.startsWith(replace.old)) return current + replace.new.slice(replace.old.length);
  return null;
};

/** Maps a recorded path onto the working directory; refuses anything outside it. */
const targetPath = (cwd: string, file: string): string | null => {
  let relative = file;
  if (file.startsWith(`${FIXTURE_REPO}/`)) relative = file.slice(FIXTURE_REPO.length + 1);
  else if (path.isAbsolute(file)) relative = path.basename(file);
  const target = path.resolve(cwd, relative);
  return target.startsWith(`${cwd}${path.sep}`) ? target : null;
};

/** Writes, replaces in or deletes each edit's file under `cwd`; a path outside `cwd` is skipped. */
export const applyEdits = (cwd: string, edits: FakeEdit[]): void => {
  for (const edit of edits) {
    const target = targetPath(cwd, edit.path);
    if (target === null) continue;
    if (edit.remove === true) {
      rmSync(target, { force: true });
      continue;
    }
    if (edit.replace !== undefined) {
      const next = replaced(readIfExists(target) ?? '', edit.replace);
      if (next !== null) writeFileSync(target, next);
      continue;
    }
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, edit.content);
  }
};
