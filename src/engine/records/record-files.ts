/**
 * The files of a run record, written and read safely: `<repo>/.hydra/runs/<run-id>/` holds
 * meta.json (prompt, hash, config, adapter versions and capabilities, argv per agent, hydra's pid),
 * events.jsonl (event-log.ts), agents/<agent>.pid (the process groups, for recovery), summary.json
 * at the end and merge.json after a merge. Owner-only, never through a symbolic link, each JSON
 * file checked against its schema when read back (schema.ts).
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { AgentName } from '../agent-name.js';
import type { MergeResult, RaceSummary } from './record-types.js';
import { EngineError } from '../errors.js';
import { recordableSummary } from './recordable-summary.js';
import {
  copyRecordSchema,
  describeProblem,
  pidRecordSchema,
  type AgentPidRecord,
  type CopyRecord,
  type RunMeta,
} from './schema.js';

/** Owner-only: records hold prompts, commands and config. */
export const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * Creates a record directory owner-only, refusing when `.hydra` or anything below it on the way is
 * a symbolic link or not a directory (a committed `.hydra -> ~/somewhere` must not redirect writes).
 */
const makeRecordDir = (dir: string): void => {
  const marker = `${path.sep}.hydra${path.sep}`;
  const at = dir.lastIndexOf(marker);
  if (at === -1) {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    return;
  }
  const top = dir.slice(0, at + marker.length - 1);
  const chain = [top, ...path.relative(top, dir).split(path.sep).filter(Boolean)];
  let current = '';
  for (const [index, part] of chain.entries()) {
    current = index === 0 ? part : path.join(current, part);
    let stat = lstatSync(current, { throwIfNoEntry: false });
    if (stat === undefined) {
      // EEXIST: another hydra made it a moment ago (it is checked just below like any other).
      try {
        mkdirSync(current, { mode: DIR_MODE });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      stat = lstatSync(current);
    }
    if (!stat.isDirectory()) {
      throw new EngineError({
        kind: 'Refused',
        message: `${current} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}, so hydra will not write its run records there.`,
        hint: `Remove or rename it (hydra keeps its records in a real .hydra/runs directory), then run hydra again.`,
      });
    }
    if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) chmodSync(current, DIR_MODE);
  }
};

/** `hydra clean` may remove an empty `.hydra/runs` just as a race makes its record: then once more. */
export const ensureRecordDir = (dir: string): void => {
  try {
    makeRecordDir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    makeRecordDir(dir);
  }
};

const writeJsonAtomic = (file: string, value: unknown): void => {
  ensureRecordDir(path.dirname(file));
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: FILE_MODE });
  renameSync(temp, file);
};

/** Largest JSON record read back (a real one is a few KB). */
export const MAX_JSON_BYTES = 4 * 1024 * 1024;
/** How much of events.jsonl is read back at most (hydra show); the rest is noted, not read. */
export const MAX_EVENTS_BYTES = 32 * 1024 * 1024;

type FileRead = { text: string; size: number } | { problem: string } | null;

/** Reads up to `limit` bytes of a regular file, never through a symbolic link; null when missing. */
export const readRecordFile = (file: string, limit: number): FileRead => {
  const name = path.basename(file);
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return null;
  if (stat.isSymbolicLink()) return { problem: `${name} is a symbolic link (hydra never writes one)` };
  if (!stat.isFile()) return { problem: `${name} is not a regular file` };
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    return { problem: `${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(size, limit));
    let read = 0;
    while (read < buffer.length) {
      const got = readSync(fd, buffer, read, buffer.length - read, read);
      if (got === 0) break;
      read += got;
    }
    return { text: buffer.subarray(0, read).toString('utf8'), size };
  } finally {
    closeSync(fd);
  }
};

export type Checked<T> = { value: T | null } | { problem: string };

/** A JSON record checked against its schema: its value, null when missing, or what is wrong. */
export const readChecked = <T>(dir: string, name: string, schema: z.ZodType<T>): Checked<T> => {
  const file = readRecordFile(path.join(dir, name), MAX_JSON_BYTES + 1);
  if (file === null) return { value: null };
  if ('problem' in file) return file;
  if (file.size > MAX_JSON_BYTES) return { problem: `${name} is ${file.size} bytes, too large for a record` };
  let json: unknown;
  try {
    json = JSON.parse(file.text);
  } catch {
    return { problem: `${name} is not valid JSON` };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { value: parsed.data } : { problem: `${name}: ${describeProblem(parsed.error)}` };
};

export const writeMeta = (dir: string, meta: RunMeta): void =>
  writeJsonAtomic(path.join(dir, 'meta.json'), meta);
/**
 * Writes summary.json as it will read back: a field that fails the record's check (an agent's
 * session id of another shape, a negative token count) is never written (recordableSummary).
 */
export const writeSummary = (dir: string, summary: RaceSummary): void =>
  writeJsonAtomic(path.join(dir, 'summary.json'), recordableSummary(summary));
export const writeMergeRecord = (dir: string, merge: MergeResult): void =>
  writeJsonAtomic(path.join(dir, 'merge.json'), merge);

/** copied.json (setup/copy.ts): what the run copied into its worktrees. */
export const writeCopyRecord = (dir: string, record: CopyRecord): void =>
  writeJsonAtomic(path.join(dir, 'copied.json'), record);

/** copied.json as recorded, or null when the run copied nothing (or is older); a damaged one is a problem. */
export const readCopyRecord = (dir: string): Checked<CopyRecord> =>
  readChecked(dir, 'copied.json', copyRecordSchema);

const pidFile = (dir: string, agent: AgentName): string => path.join(dir, 'agents', `${agent}.pid`);

export const writePidRecord = (dir: string, record: AgentPidRecord): void =>
  writeJsonAtomic(pidFile(dir, record.agent), record);

export const removePidRecord = (dir: string, agent: AgentName): void =>
  rmSync(pidFile(dir, agent), { force: true });

/** The pid records that are well-formed (a damaged one is ignored: it can only name processes). */
export const readPidRecords = (dir: string): AgentPidRecord[] => {
  const agentsDir = path.join(dir, 'agents');
  const stat = lstatSync(agentsDir, { throwIfNoEntry: false });
  if (stat === undefined || !stat.isDirectory()) return [];
  const records: AgentPidRecord[] = [];
  for (const name of readdirSync(agentsDir).filter((file) => file.endsWith('.pid'))) {
    const checked = readChecked(agentsDir, name, pidRecordSchema);
    if ('value' in checked && checked.value !== null && `${checked.value.agent}.pid` === name)
      records.push(checked.value);
  }
  return records;
};
