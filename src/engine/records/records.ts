/**
 * Run records: `<repo>/.hydra/runs/<run-id>/` holds meta.json (prompt, hash, config, adapter
 * versions and capabilities, argv per agent, hydra's pid), events.jsonl (every normalized event,
 * appended with a synchronous write as it arrives, so a crash keeps them), agents/<agent>.pid (the
 * process groups, for recovery), summary.json at the end and merge.json after a merge.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { emptyUsage, ev, type Usage } from '../../adapters/events.js';
import type { AdapterId } from '../../adapters/types.js';
import type { AgentEventRecord, MergeResult, RaceSummary, RunListEntry, RunRecord } from '../types.js';
import { EngineError } from '../errors.js';
import { RUN_ID_PATTERN, recordsRoot, runRecordDir } from './paths.js';
import { pidAlive, processInfo } from '../process/index.js';
import { findRepoRoot } from '../git/index.js';

export type RunMeta = RunRecord['meta'] & {
  /** Kernel start time of the hydra process (guards against pid reuse when checking liveness). */
  pidStartTime?: string | null;
};

export interface AgentPidRecord {
  agent: AdapterId;
  pid: number;
  pgid: number;
  startTime: string | null;
  worktree: string;
}

const writeJsonAtomic = (file: string, value: unknown): void => {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temp, file);
};

const readJson = <T>(file: string): T | null => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
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
const readSummary = (dir: string): RaceSummary | null => {
  const summary = readJson<RaceSummary>(path.join(dir, 'summary.json'));
  if (summary === null || !Array.isArray(summary.agents)) return summary;
  return {
    ...summary,
    agents: summary.agents.map((agent) =>
      typeof agent.usage === 'object' && agent.usage !== null
        ? { ...agent, usage: fromLegacyUsage(agent.usage) }
        : agent,
    ),
  };
};

export const writeMeta = (dir: string, meta: RunMeta): void =>
  writeJsonAtomic(path.join(dir, 'meta.json'), meta);
export const writeSummary = (dir: string, summary: RaceSummary): void =>
  writeJsonAtomic(path.join(dir, 'summary.json'), summary);
export const writeMergeRecord = (dir: string, merge: MergeResult): void =>
  writeJsonAtomic(path.join(dir, 'merge.json'), merge);

const pidFile = (dir: string, agent: AdapterId): string => path.join(dir, 'agents', `${agent}.pid`);

export const writePidRecord = (dir: string, record: AgentPidRecord): void =>
  writeJsonAtomic(pidFile(dir, record.agent), record);

export const removePidRecord = (dir: string, agent: AdapterId): void =>
  rmSync(pidFile(dir, agent), { force: true });

export const readPidRecords = (dir: string): AgentPidRecord[] => {
  const agentsDir = path.join(dir, 'agents');
  if (!existsSync(agentsDir)) return [];
  return readdirSync(agentsDir)
    .filter((name) => name.endsWith('.pid'))
    .map((name) => readJson<AgentPidRecord>(path.join(agentsDir, name)))
    .filter((record): record is AgentPidRecord => record !== null && typeof record.pgid === 'number');
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
 * Appends events to events.jsonl, one synchronous write per event, so a crash keeps them. Bounded
 * per agent: the first `headBytes` of an agent's events are written as they come; after that only
 * the latest `tailBytes` are held, and written (after a note saying how much was dropped) when the
 * agent's final event arrives or the log closes. An agent that floods its output cannot grow the
 * record past about head + tail.
 */
export class EventLog {
  private fd: number | null;
  private readonly written = new Map<AdapterId, number>();
  private readonly tails = new Map<AdapterId, AgentTail>();

  constructor(
    dir: string,
    private readonly limits: EventLogLimits = {
      headBytes: AGENT_LOG_HEAD_BYTES,
      tailBytes: AGENT_LOG_TAIL_BYTES,
    },
  ) {
    mkdirSync(dir, { recursive: true });
    this.fd = openSync(path.join(dir, 'events.jsonl'), 'a');
  }

  append(record: AgentEventRecord): void {
    if (this.fd === null) return;
    const line = `${JSON.stringify(record)}\n`;
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
    for (const agent of [...this.tails.keys()]) this.flushTail(agent);
    closeSync(this.fd);
    this.fd = null;
  }

  private write(agent: AdapterId, line: string, bytes = Buffer.byteLength(line)): void {
    if (this.fd === null) return;
    writeSync(this.fd, line);
    this.written.set(agent, (this.written.get(agent) ?? 0) + bytes);
  }

  private keepInTail(agent: AdapterId, held: { line: string; bytes: number; at: number }): void {
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
  private flushTail(agent: AdapterId): void {
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

/** Reads events.jsonl, skipping a truncated or corrupt line (a crash mid-write). */
const readEvents = (dir: string): AgentEventRecord[] => {
  const file = path.join(dir, 'events.jsonl');
  if (!existsSync(file)) return [];
  const events: AgentEventRecord[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as AgentEventRecord);
    } catch {
      // truncated line: keep the rest
    }
  }
  return events;
};

/** Whether the hydra process that wrote a record is still running. */
export const ownerAlive = (meta: RunMeta): boolean => {
  if (!pidAlive(meta.pid)) return false;
  if (meta.pidStartTime === undefined || meta.pidStartTime === null) return true;
  const info = processInfo(meta.pid);
  return info === null || info.startTime === meta.pidStartTime;
};

/** finished: it has a summary; running: no summary and its hydra is alive; dead: neither. */
const runState = (meta: RunMeta, summary: RaceSummary | null): RunListEntry['state'] => {
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

export const readRecordDir = (dir: string, runId: string): RunRecord | null => {
  const meta = readJson<RunMeta>(path.join(dir, 'meta.json'));
  if (meta === null) return null;
  return {
    runId,
    dir,
    meta,
    events: readEvents(dir),
    summary: readSummary(dir),
    merge: readJson<MergeResult>(path.join(dir, 'merge.json')),
  };
};

export async function readRun(repoPath: string, runId: string): Promise<RunRecord> {
  const root = await repoRootOrThrow(repoPath);
  const dir = runRecordDir(root, runId);
  const record = RUN_ID_PATTERN.test(runId) ? readRecordDir(dir, runId) : null;
  if (record === null && RUN_ID_PATTERN.test(runId) && existsSync(dir)) {
    throw new EngineError(
      'Refused',
      `The record of run ${runId} is damaged: ${path.join(dir, 'meta.json')} is missing or unreadable.`,
      '`hydra clean` removes the run (its worktrees, branches and record); `hydra clean --dry-run` shows what first.',
    );
  }
  if (record === null) {
    throw new EngineError(
      'Refused',
      `No run ${runId} in ${recordsRoot(root)}.`,
      'Run `hydra runs` to list the recorded runs.',
    );
  }
  return record;
}

/** Run ids with a record directory, newest first. */
export const recordedRunIds = (root: string): string[] => {
  const dir = recordsRoot(root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && RUN_ID_PATTERN.test(entry.name))
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

/** A run whose meta.json is missing or damaged: listed (as dead) so that it is seen and cleaned. */
const unreadableRun = (runId: string, dir: string): RunListEntry => {
  let startedAt = 0;
  try {
    startedAt = statSync(dir).mtimeMs;
  } catch {
    // Listed with an unknown start.
  }
  return {
    runId,
    prompt: '(run record unreadable: meta.json is missing or damaged; `hydra clean` removes it)',
    startedAt,
    endedAt: null,
    state: 'dead',
    baseBranch: null,
    agentIds: [],
    agents: [],
    totalCostUsd: null,
    merged: null,
  };
};

export async function listRuns(repoPath: string): Promise<RunListEntry[]> {
  const root = await repoRootOrThrow(repoPath);
  const entries: RunListEntry[] = [];
  for (const runId of recordedRunIds(root)) {
    const dir = runRecordDir(root, runId);
    const meta = readJson<RunMeta>(path.join(dir, 'meta.json'));
    if (meta === null) {
      entries.push(unreadableRun(runId, dir));
      continue;
    }
    const summary = readSummary(dir);
    const merge = readJson<MergeResult>(path.join(dir, 'merge.json'));
    entries.push({
      runId,
      prompt: meta.prompt,
      startedAt: meta.startedAt,
      endedAt: summary?.endedAt ?? null,
      state: runState(meta, summary),
      baseBranch: meta.baseBranch,
      agentIds: Array.isArray(meta.agents) ? meta.agents.map((agent) => agent.agent) : [],
      agents: summary?.agents ?? [],
      totalCostUsd: totalCost(summary),
      merged: merge === null ? null : { agent: merge.agent, commit: merge.commit },
    });
  }
  return entries;
}
