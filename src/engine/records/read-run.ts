/**
 * One run's record read back and checked: whole and valid, damaged (with what is wrong), or not
 * hydra's (committed to the repository). A record is data, never authority.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { emptyUsage, type Usage } from '../../core/events.js';
import type { AgentEventRecord, AgentSummary, RaceSummary, RunRecord } from './record-types.js';
import { EngineError } from '../errors.js';
import { findRepoRoot, runGit } from '../git/index.js';
import { RUN_ID_PATTERN, branchName, recordsRoot, runRecordDir } from './paths.js';
import { MAX_EVENTS_BYTES, readChecked, readRecordFile, type Checked } from './record-files.js';
import {
  agentSummarySchema,
  describeProblem,
  eventRecordSchema,
  mergeSchema,
  metaProblem,
  metaSchema,
  summaryFrameSchema,
  type RunMeta,
} from './schema.js';

/**
 * Usage as hydra wrote it before a figure could be unknown: every figure nobody reported was 0, so
 * all-zero counts with no turns and an unknown cost mean nothing was reported (null today).
 */
export const fromLegacyUsage = (usage: Usage): Usage =>
  usage.costSource === 'unknown' &&
  usage.turns === 0 &&
  usage.inputTokens === 0 &&
  usage.outputTokens === 0 &&
  usage.cacheReadTokens === 0 &&
  usage.cacheWriteTokens === 0
    ? emptyUsage()
    : usage;

/** An agent whose entry in summary.json does not pass its check: hydra does not act on it. */
interface DamagedAgent {
  agent: string;
  problem: string;
}

type ReadSummary = { summary: RaceSummary; damaged: DamagedAgent[] };

/**
 * summary.json, its agents' entries checked one by one: a damaged entry (a record written by an
 * older hydra, or edited) stands for a failed agent that says what is wrong, and the run's other
 * agents read as usual. The usage of records from older hydra versions is read the way it is
 * written now.
 */
const readSummary = (dir: string, meta: RunMeta): Checked<ReadSummary> => {
  const checked = readChecked(dir, 'summary.json', summaryFrameSchema);
  if ('problem' in checked) return checked;
  if (checked.value === null) return { value: null };
  const damaged: DamagedAgent[] = [];
  const agents: AgentSummary[] = [];
  for (const [index, entry] of checked.value.agents.entries()) {
    const parsed = agentSummarySchema.safeParse(entry);
    if (parsed.success) {
      agents.push({ ...parsed.data, usage: fromLegacyUsage(parsed.data.usage) });
      continue;
    }
    const problem = `summary.json: agents[${index}]: ${describeProblem(parsed.error)}`;
    const name = (entry as { agent?: unknown } | null)?.agent;
    const planned = meta.agents.find((agent) => agent.agent === name);
    if (planned === undefined || agents.some((agent) => agent.agent === planned.agent)) {
      damaged.push({ agent: typeof name === 'string' ? name : `agents[${index}]`, problem });
      continue;
    }
    damaged.push({ agent: planned.agent, problem });
    agents.push(damagedStandIn(meta.runId, planned.agent, planned.adapter, problem));
  }
  return { value: { summary: { ...checked.value, agents }, damaged } };
};

/** What stands for an agent whose entry is damaged: failed, with what is wrong and what to do. */
const damagedStandIn = (runId: string, agent: string, adapter: string, problem: string): AgentSummary => ({
  agent,
  adapter,
  status: 'failed',
  exitCode: null,
  durationMs: 0,
  usage: emptyUsage(),
  diff: { filesChanged: 0, insertions: 0, deletions: 0 },
  branch: null,
  worktree: null,
  error: {
    kind: 'Refused',
    message: `Its record is damaged (${problem}), so hydra does not act on it.`,
    hint: `Look at its branch ${branchName(runId, agent)} yourself if it is still there (git log), or run \`hydra clean\` to remove the run.`,
  },
});

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

export const repoRootOrThrow = async (repoPath: string): Promise<string> => {
  const root = await findRepoRoot(path.resolve(repoPath));
  if (root === null) {
    throw new EngineError({
      kind: 'Refused',
      message: `${path.resolve(repoPath)} is not inside a git repository.`,
      hint: 'Run this inside the repository the race ran in.',
    });
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
  const read = readSummary(dir, meta.value);
  if ('problem' in read) return damaged(read.problem, meta.value);
  const summary = read.value?.summary ?? null;
  const damagedAgents = read.value?.damaged ?? [];
  if (summary !== null && summary.runId !== runId)
    return damaged(`summary.json: runId: says ${summary.runId}, but the record is in ${runId}/`, meta.value);
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
    record: {
      runId,
      dir,
      meta: meta.value,
      events,
      summary,
      merge: merge.value,
      notes: [
        ...damagedAgents.map(({ agent, problem }) => `${problem}: hydra does not act on ${agent}`),
        ...notes,
      ],
      ...(damagedAgents.length === 0 ? {} : { damagedAgents }),
    },
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
    throw new EngineError({
      kind: 'Refused',
      message: `No run ${runId} in ${recordsRoot(root)}.`,
      hint: 'Run `hydra runs` to list the recorded runs.',
    });
  }
  const loaded = loadRun(root, runId, await trackedRunIds(root));
  if (loaded.kind === 'ok') return loaded.record;
  if (loaded.kind === 'foreign') {
    throw new EngineError({
      kind: 'Refused',
      message: `Run ${runId} is not hydra's: ${loaded.problem}.`,
      hint: `Nothing to do; to drop it from the repository: git rm -r .hydra/runs/${runId}`,
    });
  }
  throw new EngineError({
    kind: 'Refused',
    message: `The record of run ${runId} is damaged: ${loaded.problem}.`,
    hint: DAMAGED_HINT,
  });
}
