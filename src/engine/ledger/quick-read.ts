/**
 * The ledger's quick read of a finished run's record. Checking every record with its zod schemas
 * was most of a first `hydra stats` over many runs (1.4 s of CPU for 10,000), so this reads
 * meta.json, summary.json and merge.json and checks by hand what the ledger uses: meta.json whole,
 * summary.json's ids, merge and judge, and of each agent its name, status, time, usage, score,
 * reproductions and test contract, with the types the schemas give them. What the ledger never
 * reads (a check's output, a diff's size, a port) is not looked at. A record that fails any of it
 * (missing, a link, not JSON, a wrong type, another run's id, no summary yet) gets null, and the
 * careful read (records/read-run.ts) says what it is: damaged, unfinished, or whole with a damaged
 * agent; so a record that reads here gives the figures it gives there.
 */
import { constants, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Usage } from '../../core/events.js';
import {
  AGENT_ID_PATTERN,
  MAX_JSON_BYTES,
  branchName,
  fromLegacyUsage,
  mergeSchema,
} from '../records/index.js';
import type { RecordStat } from './ledger-cache.js';
import type { LedgerEntry, LedgerRun, LedgerSummary } from './tally.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const isFiniteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);
const isAgentId = (value: unknown): value is string => isString(value) && AGENT_ID_PATTERN.test(value);
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);
const orNull =
  <T>(check: (value: unknown) => value is T) =>
  (value: unknown): value is T | null =>
    value === null || check(value);
const optional = (value: unknown, check: (value: unknown) => boolean): boolean =>
  value === undefined || check(value);
/** A usage figure: a count, or null (not reported). */
const isCount = (value: unknown): value is number | null =>
  value === null || (isFiniteNumber(value) && value >= 0);

// Node takes numeric flags wherever it takes a flag string; @types/node types only the string.
type Read = { json: unknown } | 'missing' | null;

const READ_FLAGS = (constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK) as unknown as string;

/**
 * A JSON record file: its value, 'missing', or null when it does not read (a link, not a regular
 * file, too large, not JSON). Its lstat (the caller's, when it has one), then one read of the whole file (O_NOFOLLOW: a link put in
 * its place since is not followed; O_NONBLOCK: a FIFO does not wait for a writer).
 */
const readJson = (file: string, stat = lstatSync(file, { throwIfNoEntry: false })): Read => {
  if (stat === undefined) return 'missing';
  if (!stat.isFile() || stat.size > MAX_JSON_BYTES) return null;
  try {
    return { json: JSON.parse(readFileSync(file, { encoding: 'utf8', flag: READ_FLAGS })) };
  } catch {
    return null;
  }
};

/** meta.json as its schema and metaProblem check it: its own run id, each agent once, on its own branch. */
const checkMeta = (json: unknown, runId: string): { config: unknown; startedAt: number } | null => {
  if (
    !isObject(json) ||
    json['runId'] !== runId ||
    !isString(json['prompt']) ||
    !isString(json['promptSha256']) ||
    !isString(json['repoRoot']) ||
    !isString(json['baseRef']) ||
    !orNull(isString)(json['baseBranch']) ||
    !isFiniteNumber(json['startedAt']) ||
    json['startedAt'] < 0 ||
    !Number.isInteger(json['pid']) ||
    (json['pid'] as number) <= 0 ||
    !optional(json['pidStartTime'], orNull(isString)) ||
    !isString(json['hydraVersion']) ||
    !Array.isArray(json['agents'])
  )
    return null;
  const seen = new Set<string>();
  for (const agent of json['agents']) {
    if (
      !isObject(agent) ||
      !isAgentId(agent['agent']) ||
      seen.has(agent['agent']) ||
      !optional(agent['adapter'], isAgentId) ||
      agent['branch'] !== branchName(runId, agent['agent']) ||
      !isString(agent['worktree']) ||
      !orNull(isString)(agent['version']) ||
      !(agent['capabilities'] === null || isObject(agent['capabilities'])) ||
      !isStrings(agent['command'])
    )
      return null;
    seen.add(agent['agent']);
  }
  return { config: json['config'], startedAt: json['startedAt'] };
};

const USAGE_COUNTS = [
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'turns',
  'costUsd',
];
const COST_SOURCES: ReadonlySet<unknown> = new Set(['reported', 'estimated', 'unknown']);
const STATUSES: ReadonlySet<unknown> = new Set(['completed', 'failed', 'timed_out', 'cancelled', 'skipped']);
const CHECK_STATUSES: ReadonlySet<unknown> = new Set(['passed', 'failed', 'timed_out', 'error']);
const MERGE_METHODS: ReadonlySet<unknown> = new Set([
  'fast-forward',
  'merge-commit',
  'squash',
  'nothing-to-merge',
]);
const SCORE_PARTS = ['checks', 'tests', 'diff', 'scope', 'duration', 'cost'];

const checkUsage = (json: unknown): Usage | null => {
  if (!isObject(json) || !COST_SOURCES.has(json['costSource'])) return null;
  if (!USAGE_COUNTS.every((key) => isCount(json[key]))) return null;
  return fromLegacyUsage(json as unknown as Usage);
};

const isScorePart = (value: unknown): boolean => value === null || isFiniteNumber(value);

/** The score, with `verified` filled in from the checks for a record from before it existed. */
const checkScore = (json: unknown, checks: unknown): LedgerEntry['score'] | null => {
  if (!isObject(json) || !isFiniteNumber(json['total']) || !orNull(isString)(json['disqualified']))
    return null;
  const { gates, parts, flags, verified } = json;
  if (!isObject(gates) || typeof gates['passed'] !== 'boolean' || !isStrings(gates['failed'])) return null;
  if (!isObject(parts) || !SCORE_PARTS.every((key) => isScorePart(parts[key]))) return null;
  if (!optional(parts['evidence'], isScorePart) || !optional(flags, isStrings)) return null;
  if (!optional(verified, (value) => typeof value === 'boolean')) return null;
  if (!optional(checks, (value) => Array.isArray(value) && value.every(isCheck))) return null;
  const ranACheck = ((checks ?? []) as Json[]).some(
    (check) => check['status'] === 'passed' || check['status'] === 'failed',
  );
  return {
    total: json['total'],
    gates: { passed: gates['passed'], failed: gates['failed'] },
    parts: parts as NonNullable<LedgerEntry['score']>['parts'],
    disqualified: json['disqualified'],
    verified: typeof verified === 'boolean' ? verified : ranACheck,
    ...(flags === undefined ? {} : { flags: flags as string[] }),
  };
};

const isCheck = (value: unknown): boolean => isObject(value) && CHECK_STATUSES.has(value['status']);

const checkContract = (json: unknown): LedgerEntry['contract'] | null =>
  isObject(json) &&
  isStrings(json['changed']) &&
  typeof json['passesOwn'] === 'boolean' &&
  typeof json['passesBase'] === 'boolean'
    ? { changed: json['changed'], passesOwn: json['passesOwn'], passesBase: json['passesBase'] }
    : null;

/** One agent's entry, down to what the ledger reads. */
const checkEntry = (json: unknown): LedgerEntry | null => {
  if (
    !isObject(json) ||
    !isAgentId(json['agent']) ||
    !optional(json['adapter'], isAgentId) ||
    !optional(json['rerunOf'], isAgentId) ||
    !STATUSES.has(json['status']) ||
    !isFiniteNumber(json['durationMs'])
  )
    return null;
  const usage = checkUsage(json['usage']);
  const score = json['score'] === undefined ? undefined : checkScore(json['score'], json['checks']);
  const contract = json['contract'] === undefined ? undefined : checkContract(json['contract']);
  const newTests = json['newTests'];
  if (usage === null || score === null || contract === null) return null;
  if (!optional(newTests, (value) => isObject(value) && isFiniteNumber(value['reproductions']))) return null;
  return {
    agent: json['agent'],
    adapter: isString(json['adapter']) ? json['adapter'] : json['agent'],
    status: json['status'] as LedgerEntry['status'],
    durationMs: json['durationMs'],
    usage,
    ...(isString(json['rerunOf']) ? { rerunOf: json['rerunOf'] } : {}),
    ...(score === undefined ? {} : { score }),
    ...(contract === undefined ? {} : { contract }),
    ...(isObject(newTests) ? { newTests: { reproductions: newTests['reproductions'] as number } } : {}),
  };
};

const isMerged = (value: unknown): boolean =>
  value === null ||
  (isObject(value) &&
    isAgentId(value['agent']) &&
    isString(value['branch']) &&
    MERGE_METHODS.has(value['method']) &&
    optional(value['protectedFiles'], isStrings));

const checkJudge = (value: unknown): LedgerSummary['judge'] | null => {
  if (
    !isObject(value) ||
    !isAgentId(value['agent']) ||
    !Array.isArray(value['contenders']) ||
    !value['contenders'].every(isAgentId) ||
    !orNull(isString)(value['warning']) ||
    !isStrings(value['addressedJudge']) ||
    !orNull(isFiniteNumber)(value['costUsd'])
  )
    return null;
  const ranking = value['ranking'];
  if (ranking === null) return { contenders: value['contenders'], ranking: null };
  if (!Array.isArray(ranking)) return null;
  const ranked: Array<{ agent: string; reason: string }> = [];
  for (const item of ranking) {
    if (!isObject(item) || !isAgentId(item['agent']) || !isString(item['reason'])) return null;
    ranked.push({ agent: item['agent'], reason: item['reason'] });
  }
  return { contenders: value['contenders'], ranking: ranked };
};

const isErrorInfo = (value: unknown): boolean =>
  isObject(value) && isString(value['kind']) && isString(value['message']) && isString(value['hint']);

/** summary.json: its run, times, agents, merge and judge. */
const checkSummary = (json: unknown, runId: string): LedgerSummary | null => {
  if (
    !isObject(json) ||
    json['runId'] !== runId ||
    !isString(json['prompt']) ||
    !orNull(isString)(json['baseRef']) ||
    !orNull(isString)(json['baseBranch']) ||
    !isFiniteNumber(json['startedAt']) ||
    !isFiniteNumber(json['endedAt']) ||
    !Array.isArray(json['agents']) ||
    !(json['error'] === null || isErrorInfo(json['error'])) ||
    !optional(json['merged'], isMerged) ||
    !optional(json['allowTestChanges'], (value) => typeof value === 'boolean')
  )
    return null;
  const judge = json['judge'] === undefined ? undefined : checkJudge(json['judge']);
  if (judge === null) return null;
  const agents: LedgerEntry[] = [];
  for (const item of json['agents']) {
    const entry = checkEntry(item);
    if (entry === null) return null;
    agents.push(entry);
  }
  const merged = json['merged'] as LedgerSummary['merged'];
  return {
    agents,
    ...(merged === undefined ? {} : { merged }),
    ...(json['allowTestChanges'] === true ? { allowTestChanges: true } : {}),
    ...(judge === undefined ? {} : { judge }),
  };
};

/** A finished run's record as the ledger reads it, or null: then the careful read decides. */
export const quickReadRun = (
  dir: string,
  runId: string,
  stat: RecordStat,
): (LedgerRun & { startedAt: number }) | null => {
  // A run directory that is a link is damaged, which the careful read says.
  if (!stat.dir.isDirectory()) return null;
  const metaFile = readJson(path.join(dir, 'meta.json'));
  if (metaFile === null || metaFile === 'missing') return null;
  const meta = checkMeta(metaFile.json, runId);
  if (meta === null) return null;
  const summaryFile = readJson(path.join(dir, 'summary.json'), stat.summary);
  if (summaryFile === null || summaryFile === 'missing') return null;
  const summary = checkSummary(summaryFile.json, runId);
  if (summary === null) return null;
  const mergeFile = readJson(path.join(dir, 'merge.json'));
  if (mergeFile === null) return null;
  let mergedAgent: string | null = null;
  if (mergeFile !== 'missing') {
    const merge = mergeSchema.safeParse(mergeFile.json);
    if (!merge.success || merge.data.runId !== runId) return null;
    mergedAgent = merge.data.agent;
  }
  return {
    meta: { config: meta.config },
    summary,
    mergedAgent,
    damagedAgents: [],
    startedAt: meta.startedAt,
  };
};
