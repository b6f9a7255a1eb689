/**
 * Run records: `<repo>/.hydra/runs/<run-id>/` holds meta.json (prompt, hash, config, adapter
 * versions and capabilities, argv per agent, hydra's pid), events.jsonl (every normalized event,
 * appended with a synchronous write as it arrives, so a crash keeps them), agents/<agent>.pid (the
 * process groups, for recovery), summary.json at the end and merge.json after a merge.
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
  writeSync,
} from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { emptyUsage, ev, type Usage } from '../../core/events.js';
import type { AgentName } from '../types.js';
import type { AgentEventRecord, MergeResult, RaceSummary, RunListEntry, RunRecord } from '../types.js';
import { EngineError } from '../errors.js';
import { eventJson } from './event-json.js';
import { RUN_ID_PATTERN, recordsRoot, runRecordDir } from './paths.js';
import {
  describeProblem,
  eventRecordSchema,
  mergeSchema,
  metaProblem,
  metaSchema,
  pidRecordSchema,
  summarySchema,
  type AgentPidRecord,
  type RunMeta,
} from './schema.js';
import { pidAlive, processInfo } from '../process/index.js';
import { findRepoRoot, runGit } from '../git/index.js';

export type { AgentPidRecord, RunMeta } from './schema.js';

/** Owner-only: records hold prompts, commands and config. */
const FILE_MODE = 0o600;
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
      throw new EngineError(
        'Refused',
        `${current} is ${stat.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}, so hydra will not write its run records there.`,
        `Remove or rename it (hydra keeps its records in a real .hydra/runs directory), then run hydra again.`,
      );
    }
    if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) chmodSync(current, DIR_MODE);
  }
};

/** `hydra clean` may remove an empty `.hydra/runs` just as a race makes its record: then once more. */
const ensureRecordDir = (dir: string): void => {
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
const MAX_JSON_BYTES = 4 * 1024 * 1024;
/** How much of events.jsonl is read back at most (hydra show); the rest is noted, not read. */
const MAX_EVENTS_BYTES = 32 * 1024 * 1024;

type FileRead = { text: string; size: number } | { problem: string } | null;

/** Reads up to `limit` bytes of a regular file, never through a symbolic link; null when missing. */
const readRecordFile = (file: string, limit: number): FileRead => {
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

type Checked<T> = { value: T | null } | { problem: string };

/** A JSON record checked against its schema: its value, null when missing, or what is wrong. */
const readChecked = <T>(dir: string, name: string, schema: z.ZodType<T>): Checked<T> => {
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

/**
 * Usage as hydra wrote it before a figure could be unknown: every figure nobody reported was 0, so
 * all-zero counts with no turns and an unknown cost mean nothing was reported (null today).
 */
const fromLegacyUsage = (usage: Usage): Usage =>
  usage.costSource === 'unknown' &&
  usage.turns === 0 &&
  usage.inputTokens === 0 &&
  usage.outputTokens === 0 &&
  usage.cacheReadTokens === 0 &&
  usage.cacheWriteTokens === 0
    ? emptyUsage()
    : usage;

/** summary.json, with the usage of records from older hydra versions read the way it is written now. */
const readSummary = (dir: string): Checked<RaceSummary> => {
  const checked = readChecked(dir, 'summary.json', summarySchema);
  if (!('value' in checked) || checked.value === null) return checked;
  const summary = checked.value;
  return {
    value: {
      ...summary,
      agents: summary.agents.map((agent) => ({ ...agent, usage: fromLegacyUsage(agent.usage) })),
    },
  };
};

export const writeMeta = (dir: string, meta: RunMeta): void =>
  writeJsonAtomic(path.join(dir, 'meta.json'), meta);
export const writeSummary = (dir: string, summary: RaceSummary): void =>
  writeJsonAtomic(path.join(dir, 'summary.json'), summary);
export const writeMergeRecord = (dir: string, merge: MergeResult): void =>
  writeJsonAtomic(path.join(dir, 'merge.json'), merge);

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

/** How much of one agent's events a record keeps from the start of its run. */
export const AGENT_LOG_HEAD_BYTES = 4 * 1024 * 1024;
/** How much of the end of an agent's events is kept once its head is full. */
export const AGENT_LOG_TAIL_BYTES = 512 * 1024;

export interface EventLogLimits {
  headBytes: number;
  tailBytes: number;
}

/** What is kept of one agent's events once its head is full: the latest lines, and what was dropped. */
interface AgentTail {
  /** The held lines are `lines[first..]`. */
  lines: Array<{ line: string; bytes: number; at: number }>;
  first: number;
  bytes: number;
  droppedEvents: number;
  droppedBytes: number;
}

const MB = 1024 * 1024;
const size = (bytes: number): string =>
  bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;

/**
 * Appends events to events.jsonl, one synchronous write per batch (`appendBatch`: the events of one
 * chunk of an agent's output), so a crash loses at most the batch being handled. Bounded
 * per agent: the first `headBytes` of an agent's events are written as they come; after that only
 * the latest `tailBytes` are held, and written (after a note saying how much was dropped) when the
 * agent's final event arrives or the log closes. An agent that floods its output cannot grow the
 * record past about head + tail.
 */
export class EventLog {
  private fd: number | null;
  private readonly written = new Map<AgentName, number>();
  private readonly tails = new Map<AgentName, AgentTail>();

  constructor(
    dir: string,
    private readonly limits: EventLogLimits = {
      headBytes: AGENT_LOG_HEAD_BYTES,
      tailBytes: AGENT_LOG_TAIL_BYTES,
    },
  ) {
    ensureRecordDir(dir);
    this.fd = openSync(
      path.join(dir, 'events.jsonl'),
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      FILE_MODE,
    );
  }

  /** Lines written by `write` since the last flush: one writeSync per batch, not per event. */
  private pending: string[] = [];

  append(record: AgentEventRecord): void {
    this.appendBatch([record]);
  }

  /** Appends the events and writes them with one system call before returning. */
  appendBatch(records: readonly AgentEventRecord[]): void {
    if (this.fd === null) return;
    try {
      for (const record of records) this.add(record);
    } finally {
      this.flush();
    }
  }

  private add(record: AgentEventRecord): void {
    // The event's JSON is shared with the headless printer (eventJson): serialized once.
    const line = `{"agent":${JSON.stringify(record.agent)},"at":${JSON.stringify(record.at)},"event":${eventJson(record.event)}}\n`;
    const bytes = Buffer.byteLength(line);
    const final = record.event.kind === 'completed' || record.event.kind === 'failed';
    const written = this.written.get(record.agent) ?? 0;
    if (!this.tails.has(record.agent) && written + bytes <= this.limits.headBytes) {
      this.write(record.agent, line, bytes);
      return;
    }
    this.keepInTail(record.agent, { line, bytes, at: record.at });
    if (final) this.flushTail(record.agent);
  }

  close(): void {
    if (this.fd === null) return;
    try {
      for (const agent of [...this.tails.keys()]) this.flushTail(agent);
      this.flush();
    } finally {
      const fd = this.fd;
      this.fd = null;
      closeSync(fd);
    }
  }

  private write(agent: AgentName, line: string, bytes = Buffer.byteLength(line)): void {
    if (this.fd === null) return;
    this.pending.push(line);
    this.written.set(agent, (this.written.get(agent) ?? 0) + bytes);
  }

  private flush(): void {
    if (this.fd === null || this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    writeSync(this.fd, text);
  }

  private keepInTail(agent: AgentName, held: { line: string; bytes: number; at: number }): void {
    const tail = this.tails.get(agent) ?? {
      lines: [],
      first: 0,
      bytes: 0,
      droppedEvents: 0,
      droppedBytes: 0,
    };
    this.tails.set(agent, tail);
    tail.lines.push(held);
    tail.bytes += held.bytes;
    while (tail.bytes > this.limits.tailBytes && tail.first < tail.lines.length - 1) {
      const dropped = tail.lines[tail.first]!;
      tail.bytes -= dropped.bytes;
      tail.droppedEvents += 1;
      tail.droppedBytes += dropped.bytes;
      tail.first += 1;
    }
    // Drops the lines left behind now and then, not on every event.
    if (tail.first > 1024 && tail.first * 2 > tail.lines.length) {
      tail.lines = tail.lines.slice(tail.first);
      tail.first = 0;
    }
  }

  /** Writes the note and the held tail of one agent; its later events start a new tail. */
  private flushTail(agent: AgentName): void {
    const tail = this.tails.get(agent);
    if (tail === undefined) return;
    this.tails.delete(agent);
    const held = tail.lines.slice(tail.first);
    if (tail.droppedEvents > 0) {
      // Dated like the first event kept after the gap, so the record stays in time order.
      const note: AgentEventRecord = {
        agent,
        at: held[0]?.at ?? Date.now(),
        event: ev({
          kind: 'progress',
          stage: 'record_truncated',
          detail:
            `${tail.droppedEvents} events (${size(tail.droppedBytes)}) were left out of this record: it keeps ` +
            `the first ${size(this.limits.headBytes)} and the last ${size(tail.bytes)} of each agent's events.`,
        }),
      };
      this.write(agent, `${JSON.stringify(note)}\n`);
    }
    for (const { line, bytes } of held) this.write(agent, line, bytes);
  }
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * Reads events.jsonl (at most MAX_EVENTS_BYTES of it), keeping the lines that are well-formed
 * events: a truncated line (a crash mid-write) or garbage is skipped and counted in the notes.
 */
const readEvents = (dir: string): { events: AgentEventRecord[]; notes: string[] } => {
  const file = readRecordFile(path.join(dir, 'events.jsonl'), MAX_EVENTS_BYTES);
  if (file === null) return { events: [], notes: [] };
  if ('problem' in file) return { events: [], notes: [`${file.problem}; its events were not read`] };
  const events: AgentEventRecord[] = [];
  let skipped = 0;
  const lines = file.text.split('\n');
  // A file read only in part ends in the middle of a line: that line is not counted as damaged.
  if (file.size > MAX_EVENTS_BYTES) lines.pop();
  for (const line of lines) {
    if (line.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      skipped += 1;
      continue;
    }
    const parsed = eventRecordSchema.safeParse(json);
    if (parsed.success) events.push(parsed.data);
    else skipped += 1;
  }
  const notes: string[] = [];
  if (skipped > 0) notes.push(`events.jsonl: ${plural(skipped, 'line')} could not be read and were left out`);
  if (file.size > MAX_EVENTS_BYTES) {
    notes.push(
      `events.jsonl is ${file.size} bytes: only the first ${MAX_EVENTS_BYTES} were read (the events after that are not shown)`,
    );
  }
  return { events, notes };
};

/** Whether the hydra process that wrote a record is still running. */
export const ownerAlive = (meta: RunMeta): boolean => {
  if (!pidAlive(meta.pid)) return false;
  if (meta.pidStartTime === undefined || meta.pidStartTime === null) return true;
  const info = processInfo(meta.pid);
  return info === null || info.startTime === meta.pidStartTime;
};

/** finished: it has a summary; running: no summary and its hydra is alive; dead: neither. */
const runState = (meta: RunMeta, summary: RaceSummary | null): 'finished' | 'running' | 'dead' => {
  if (summary !== null) return 'finished';
  return ownerAlive(meta) ? 'running' : 'dead';
};

const repoRootOrThrow = async (repoPath: string): Promise<string> => {
  const root = await findRepoRoot(path.resolve(repoPath));
  if (root === null) {
    throw new EngineError(
      'Refused',
      `${path.resolve(repoPath)} is not inside a git repository.`,
      'Run this inside the repository the race ran in.',
    );
  }
  return root;
};

/** One run's record as read back: whole and valid, damaged (with what is wrong), or not hydra's. */
export type LoadedRun =
  | { kind: 'ok'; record: RunRecord & { meta: RunMeta } }
  | { kind: 'damaged'; runId: string; dir: string; problem: string; meta: RunMeta | null }
  | { kind: 'foreign'; runId: string; dir: string; problem: string };

/** Reads and checks every record file of a run directory. */
export const readRecordDir = (dir: string, runId: string, withEvents = true): LoadedRun => {
  const damaged = (problem: string, meta: RunMeta | null = null): LoadedRun => ({
    kind: 'damaged',
    runId,
    dir,
    problem,
    meta,
  });
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (stat === undefined) return damaged('the record directory is gone');
  if (!stat.isDirectory()) return damaged('the record is a symbolic link or a file, not a directory');
  const meta = readChecked(dir, 'meta.json', metaSchema);
  if ('problem' in meta) return damaged(meta.problem);
  if (meta.value === null) return damaged('meta.json is missing');
  const wrong = metaProblem(meta.value, runId);
  if (wrong !== null) return damaged(`meta.json: ${wrong}`);
  const summary = readSummary(dir);
  if ('problem' in summary) return damaged(summary.problem, meta.value);
  if (summary.value !== null && summary.value.runId !== runId)
    return damaged(
      `summary.json: runId: says ${summary.value.runId}, but the record is in ${runId}/`,
      meta.value,
    );
  const merge = readChecked(dir, 'merge.json', mergeSchema);
  if ('problem' in merge) return damaged(merge.problem, meta.value);
  if (merge.value !== null && merge.value.runId !== runId)
    return damaged(
      `merge.json: runId: says ${merge.value.runId}, but the record is in ${runId}/`,
      meta.value,
    );
  const { events, notes } = withEvents ? readEvents(dir) : { events: [], notes: [] };
  return {
    kind: 'ok',
    record: { runId, dir, meta: meta.value, events, summary: summary.value, merge: merge.value, notes },
  };
};

/**
 * Run ids whose record is committed to the repository. Hydra keeps its records out of git (through
 * `.git/info/exclude`), so a tracked one came with the repository: it is someone else's data, and
 * hydra never acts on it.
 */
export const trackedRunIds = async (root: string): Promise<Set<string>> => {
  const { stdout } = await runGit(root, ['ls-files', '-z', '--', '.hydra/runs']);
  const ids = new Set<string>();
  for (const file of stdout.split('\0')) {
    const [, runs, runId] = file.split('/');
    if (runs === 'runs' && runId !== undefined) ids.add(runId);
  }
  return ids;
};

/** A run's record, read and checked; a committed record is foreign and not read at all. */
export const loadRun = (
  root: string,
  runId: string,
  tracked: ReadonlySet<string>,
  withEvents = true,
): LoadedRun => {
  const dir = runRecordDir(root, runId);
  if (tracked.has(runId)) {
    return {
      kind: 'foreign',
      runId,
      dir,
      problem: `its record is committed to the repository (git tracks .hydra/runs/${runId}), so it was not written by hydra here; hydra ignores it`,
    };
  }
  return readRecordDir(dir, runId, withEvents);
};

const DAMAGED_HINT =
  '`hydra clean` removes the run (its worktrees, branches and record); `hydra clean --dry-run` shows what first.';

/** The valid record of a run, or an error that says what is wrong with it. */
export async function readRun(repoPath: string, runId: string): Promise<RunRecord> {
  const root = await repoRootOrThrow(repoPath);
  const dir = runRecordDir(root, runId);
  if (!RUN_ID_PATTERN.test(runId) || lstatSync(dir, { throwIfNoEntry: false }) === undefined) {
    throw new EngineError(
      'Refused',
      `No run ${runId} in ${recordsRoot(root)}.`,
      'Run `hydra runs` to list the recorded runs.',
    );
  }
  const loaded = loadRun(root, runId, await trackedRunIds(root));
  if (loaded.kind === 'ok') return loaded.record;
  if (loaded.kind === 'foreign') {
    throw new EngineError(
      'Refused',
      `Run ${runId} is not hydra's: ${loaded.problem}.`,
      `Nothing to do; to drop it from the repository: git rm -r .hydra/runs/${runId}`,
    );
  }
  throw new EngineError('Refused', `The record of run ${runId} is damaged: ${loaded.problem}.`, DAMAGED_HINT);
}

/** Run ids with a record directory (or a symbolic link in its place), newest first. */
export const recordedRunIds = (root: string): string[] => {
  const dir = recordsRoot(root);
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (stat === undefined || !stat.isDirectory()) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && RUN_ID_PATTERN.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .reverse();
};

const totalCost = (summary: RaceSummary | null): number | null => {
  const costs = (summary?.agents ?? [])
    .map((agent) => agent.usage.costUsd)
    .filter((cost): cost is number => cost !== null);
  return costs.length === 0 ? null : costs.reduce((sum, cost) => sum + cost, 0);
};

/** The start time a run id carries (`20261123-052233-a1b2` is 2026-11-23 05:22:33 UTC). */
export const runIdTime = (runId: string): number => {
  const match = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(runId);
  if (match === null) return 0;
  const [, y, mo, d, h, mi, s] = match.map(Number);
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
};

/** A damaged or foreign run: listed, so that it is seen, with what is wrong and what to do. */
const troubledRun = (loaded: Exclude<LoadedRun, { kind: 'ok' }>): RunListEntry => ({
  runId: loaded.runId,
  prompt:
    loaded.kind === 'damaged'
      ? `(damaged record: ${loaded.problem}; \`hydra clean\` removes it)`
      : `(not hydra's: ${loaded.problem})`,
  startedAt:
    loaded.kind === 'damaged' && loaded.meta !== null ? loaded.meta.startedAt : runIdTime(loaded.runId),
  endedAt: null,
  state: loaded.kind,
  problem: loaded.problem,
  baseBranch: null,
  agentIds:
    loaded.kind === 'damaged' && loaded.meta !== null ? loaded.meta.agents.map((agent) => agent.agent) : [],
  agents: [],
  totalCostUsd: null,
  merged: null,
});

export async function listRuns(repoPath: string): Promise<RunListEntry[]> {
  const root = await repoRootOrThrow(repoPath);
  const tracked = await trackedRunIds(root);
  return recordedRunIds(root).map((runId) => {
    const loaded = loadRun(root, runId, tracked, false);
    if (loaded.kind !== 'ok') return troubledRun(loaded);
    const { meta, summary, merge } = loaded.record;
    return {
      runId,
      prompt: meta.prompt,
      startedAt: meta.startedAt,
      endedAt: summary?.endedAt ?? null,
      state: runState(meta, summary),
      problem: null,
      baseBranch: meta.baseBranch,
      agentIds: meta.agents.map((agent) => agent.agent),
      agents: summary?.agents ?? [],
      totalCostUsd: totalCost(summary),
      merged: merge === null ? null : { agent: merge.agent, commit: merge.commit },
    };
  });
}
