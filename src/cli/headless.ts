/**
 * Headless mode: stdout carries NDJSON only (the three record types below, in this order: one
 * `race`, every `agent_event` as it happens, one `summary`); human messages go to stderr.
 */
import type { EarlyStop } from './stopped-early.js';
import type { AgentEvent } from '../core/events.js';
import type { AdapterId } from '../adapters/types.js';
import type {
  AgentEventRecord,
  AgentName,
  AgentSummary,
  CheckSummary,
  RaceSnapshot,
  RaceSummary,
  ScoreSummary,
} from '../engine/index.js';
import { eventJson } from '../engine/index.js';
import { terminalSafeJson } from '../ui/index.js';

export interface RaceRecordLine {
  type: 'race';
  runId: string;
  baseRef: string | null;
  /** The agents' names. */
  agents: AgentName[];
  /** What the race warned about before it started (e.g. ignored keys of an untrusted hydra.toml); absent when none. */
  warnings?: string[];
}

export interface AgentEventLine {
  type: 'agent_event';
  /** The agent's name (`claude`, `opus`, `claude-2`). */
  agent: AgentName;
  /** The CLI it runs (`claude`). */
  adapter: AdapterId;
  event: AgentEvent;
}

export interface SummaryAgentLine {
  agent: AgentName;
  adapter: AdapterId;
  status: AgentSummary['status'];
  exitCode: number | null;
  durationMs: number;
  usage: AgentSummary['usage'];
  diff: AgentSummary['diff'];
  branch: string | null;
  worktree: string | null;
  error?: AgentSummary['error'];
  warnings?: string[];
  /** Only when the race has checks. */
  checks?: CheckLine[];
  /** Only when the race has launched agents (it was scored). */
  score?: Pick<ScoreSummary, 'total' | 'gates' | 'parts' | 'verified'>;
  /** The tests it added or changed, cross-tested on the base and the others' results (only when it added some). */
  newTests?: AgentSummary['newTests'];
  /** What it changed of the base's tests, and whether it passes with its own and with the base's (only when it changed some). */
  contract?: AgentSummary['contract'];
  /** What sandboxed it (`bubblewrap`, `sandbox-exec`), or null when it ran unsandboxed; absent when not launched. */
  sandbox?: string | null;
  /** The first port of its block (HYDRA_PORT), or null; absent when not launched. */
  port?: number | null;
  /** Its worktree's setup commands (`warm`: kept from the pool), null when none ran (docs/setup-run.md). */
  setup?: AgentSummary['setup'];
  /** Where it ran (`local`, `container`) and the container engine's host; absent when not launched. */
  runner?: AgentSummary['runner'];
  host?: string;
}

/** One check's result in the summary line. */
export interface CheckLine {
  name: string;
  status: CheckSummary['status'];
  exitCode: number | null;
  durationMs: number;
  tests: CheckSummary['tests'];
  /** Where it ran (`host`: this machine; `container`: in the agent's image on `engine`). */
  where?: CheckSummary['where'];
  engine?: string;
  /** When the result changed the base's tests: this line is the run with the base's, `own` the run with its own. */
  own?: { status: CheckSummary['status']; tests: CheckSummary['tests'] };
}

export interface SummaryLine {
  type: 'summary';
  runId: string;
  agents: SummaryAgentLine[];
  /** The checks on the base commit (only when the race has checks). */
  baseline?: { status?: NonNullable<RaceSummary['baseline']>['status']; error?: string; checks: CheckLine[] };
  /** What was merged, or null with `mergeReason`. */
  merged?: RaceSummary['merged'];
  mergeReason?: string;
  /** The judge's verdict on a tie (`--judge`), when it was asked. */
  judge?: RaceSummary['judge'];
  /** `--stop first-verified`: who was verified first, who was stopped, what that saved (USD, or null). */
  stoppedEarly?: EarlyStop;
  /** Only when the race itself failed (e.g. no usable agent, not a git repository). */
  error?: NonNullable<RaceSummary['error']>;
}

export type HeadlessLine = RaceRecordLine | AgentEventLine | SummaryLine;

export function raceLine(snapshot: RaceSnapshot): RaceRecordLine {
  const racing = snapshot.agents.filter((agent) => agent.status !== 'skipped').map((agent) => agent.agent);
  const line: RaceRecordLine = {
    type: 'race',
    runId: snapshot.runId,
    baseRef: snapshot.baseRef,
    agents: racing,
  };
  if (snapshot.warnings.length > 0) line.warnings = [...snapshot.warnings];
  return line;
}

/** An event line; `adapter` is the agent's CLI (from the race's snapshot). */
export function eventLine(record: AgentEventRecord, adapter: AdapterId): AgentEventLine {
  return { type: 'agent_event', agent: record.agent, adapter, event: record.event };
}

/**
 * The text of `eventLine(record, adapter)` as terminalSafeJson writes it, around the event's JSON
 * the run record already made (eventJson): each event is serialized once, not once per use.
 */
export function eventLineJson(record: AgentEventRecord, adapter: AdapterId): string {
  return `{"type":"agent_event","agent":${terminalSafeJson(record.agent)},"adapter":${terminalSafeJson(adapter)},"event":${eventJson(record.event)}}`;
}

/** Each agent's CLI, by name, as the snapshot says. */
export const adaptersOf = (snapshot: RaceSnapshot): Map<AgentName, AdapterId> =>
  new Map(snapshot.agents.map((agent) => [agent.agent, agent.adapter]));

export function summaryLine(summary: RaceSummary, stopped: EarlyStop | null = null): SummaryLine {
  const agents = summary.agents.map((agent): SummaryAgentLine => {
    const line: SummaryAgentLine = {
      agent: agent.agent,
      adapter: agent.adapter,
      status: agent.status,
      exitCode: agent.exitCode,
      durationMs: agent.durationMs,
      usage: {
        inputTokens: agent.usage.inputTokens,
        outputTokens: agent.usage.outputTokens,
        cacheReadTokens: agent.usage.cacheReadTokens,
        cacheWriteTokens: agent.usage.cacheWriteTokens,
        turns: agent.usage.turns,
        costUsd: agent.usage.costUsd,
        costSource: agent.usage.costSource,
      },
      diff: {
        filesChanged: agent.diff.filesChanged,
        insertions: agent.diff.insertions,
        deletions: agent.diff.deletions,
      },
      branch: agent.branch,
      worktree: agent.worktree,
    };
    if (agent.status !== 'completed' && agent.error) line.error = agent.error;
    if (agent.warnings !== undefined && agent.warnings.length > 0) line.warnings = agent.warnings;
    if (agent.checks !== undefined) line.checks = agent.checks.map(checkLine);
    if (agent.score !== undefined)
      line.score = {
        total: agent.score.total,
        gates: agent.score.gates,
        parts: agent.score.parts,
        verified: agent.score.verified,
      };
    if (agent.newTests !== undefined) line.newTests = agent.newTests;
    if (agent.contract !== undefined) line.contract = agent.contract;
    if (agent.sandbox !== undefined) line.sandbox = agent.sandbox;
    if (agent.port !== undefined) line.port = agent.port;
    if (agent.setup !== undefined) line.setup = agent.setup;
    if (agent.runner !== undefined) line.runner = agent.runner;
    if (agent.host !== undefined) line.host = agent.host;
    return line;
  });
  const line: SummaryLine = { type: 'summary', runId: summary.runId, agents };
  if (summary.baseline !== undefined)
    line.baseline = {
      ...(summary.baseline.status === undefined ? {} : { status: summary.baseline.status }),
      ...(summary.baseline.error === undefined ? {} : { error: summary.baseline.error }),
      checks: summary.baseline.checks.map(checkLine),
    };
  if (summary.merged !== undefined) line.merged = summary.merged;
  if (summary.mergeReason !== undefined) line.mergeReason = summary.mergeReason;
  if (summary.judge !== undefined) line.judge = summary.judge;
  if (stopped !== null) line.stoppedEarly = stopped;
  if (summary.error) line.error = summary.error;
  return line;
}

const checkLine = (check: CheckSummary): CheckLine => ({
  name: check.name,
  status: check.status,
  exitCode: check.exitCode,
  durationMs: check.durationMs,
  tests: check.tests,
  ...(check.where === undefined ? {} : { where: check.where }),
  ...(check.engine === undefined ? {} : { engine: check.engine }),
  ...(check.own === undefined ? {} : { own: { status: check.own.status, tests: check.own.tests } }),
});

/** Phases at which the race's base commit and agent set are known. */
export const raceIsUnderway = (phase: RaceSnapshot['phase']): boolean =>
  phase !== 'checking_repo' && phase !== 'probing';
