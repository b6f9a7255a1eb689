/**
 * Hydra's normalized agent events (schema version 1).
 *
 * Every adapter turns its CLI's output into these; the engine, the run records, the headless
 * NDJSON stream and the dashboard only ever see these. Adding a field is backward compatible;
 * changing the meaning of one bumps EVENT_SCHEMA_VERSION.
 */

export const EVENT_SCHEMA_VERSION = 1;

/** Where a cost figure came from. */
export type CostSource = 'reported' | 'estimated' | 'unknown';

/**
 * Token and money totals for one agent run, always cumulative ("so far"). A figure the agent has
 * not reported is null, never 0: Cursor reports no usage at all, and no agent has reported any
 * before its first usage line. Once an agent reports a usage object, a count missing from it is 0.
 */
export interface Usage {
  /** Uncached input tokens. */
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  turns: number | null;
  costUsd: number | null;
  costSource: CostSource;
}

/** Nothing reported yet. */
export const emptyUsage = (): Usage => ({
  inputTokens: null,
  outputTokens: null,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  turns: null,
  costUsd: null,
  costSource: 'unknown',
});

/** a + b, where null means "not reported": the sum is null only when neither is known. */
export const addCounts = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : a + b;

/** Whether any token count is known. */
export const hasTokenCounts = (usage: Usage): boolean =>
  usage.inputTokens !== null ||
  usage.outputTokens !== null ||
  usage.cacheReadTokens !== null ||
  usage.cacheWriteTokens !== null;

/**
 * The error taxonomy (adapter spec, section 8), plus `InvalidConfig` (hydra.toml and flags only),
 * `Refused` (hydra will not do what was asked: a merge that could conflict, a repository it cannot
 * race in, a run that does not exist), `BudgetExceeded` (hydra stopped an agent whose estimated
 * spend passed `max_cost_usd`), `GitFailed` (a git command hydra ran started and exited non-zero;
 * `SpawnFailed` is for a process, git included, that could not start), `SetupFailed` (a worktree's
 * setup commands failed, so nothing else started there) and a catch-all for a failed
 * agent run. Records and summaries written before `GitFailed` existed say `SpawnFailed` for a git
 * exit; both read (records/schema.ts takes any kind).
 */
export type ErrorKind =
  | 'BinaryMissing'
  | 'AuthMissing'
  | 'UnsupportedVersion'
  | 'UnsupportedFlag'
  | 'InvalidConfig'
  | 'Refused'
  | 'SpawnFailed'
  | 'GitFailed'
  | 'StreamParseError'
  | 'TimedOut'
  | 'Interrupted'
  | 'BudgetExceeded'
  /** The CLI could not reach its model API (connection refused, no such host, network down). */
  | 'Unreachable'
  /** A worktree's setup commands (`[setup] run`, `.cursor/worktrees.json`) failed: its agent never started. */
  | 'SetupFailed'
  | 'AgentFailed';

/** A serializable error description, as carried by `failed` events and summaries. */
export interface ErrorInfo {
  kind: ErrorKind;
  message: string;
  /** What the user can do about it, as one sentence. */
  hint: string;
}

interface EventBase {
  /** Schema version of the normalized event. */
  v: typeof EVENT_SCHEMA_VERSION;
}

export interface MessageEvent extends EventBase {
  kind: 'message';
  role: 'assistant' | 'user' | 'system';
  text: string;
  /** True for streamed fragments (partial messages); the full message follows. */
  partial?: boolean;
  /** Reasoning / thinking text rather than an answer. */
  thinking?: boolean;
}

export interface ToolCallEvent extends EventBase {
  kind: 'tool_call';
  /** Links the call to its result. */
  id: string;
  /** The tool's name as the vendor calls it (Bash, Write, command_execution, shellToolCall...). */
  name: string;
  /** One terminal line: the command run, the file edited. */
  summary: string;
  input?: unknown;
}

export interface ToolResultEvent extends EventBase {
  kind: 'tool_result';
  id: string;
  name?: string;
  ok: boolean;
  /** One terminal line. */
  summary: string;
  /** Output, possibly shortened. */
  output?: string;
}

export interface ProgressEvent extends EventBase {
  kind: 'progress';
  /** e.g. "init", "turn_started", "retry", "status", TEXT_OUTPUT_STAGE or SANDBOX_REFUSED_STAGE. */
  stage: string;
  detail?: string;
  /** Session or thread id when the CLI reports one. */
  sessionId?: string;
  model?: string;
  /** For TEXT_OUTPUT_STAGE: how many lines `detail` stands for (hydra merges runs); absent: one. */
  lines?: number;
}

/** The stage of a `progress` event that carries a line of plain text a CLI printed (a banner). */
export const TEXT_OUTPUT_STAGE = 'output';

/**
 * The stage of a `progress` event that is a warning: hydra's OS sandbox refused the agent something
 * (a write outside its worktree, a host off the allowlist); `detail` says what. Shown as a warning
 * in its pane. Adapters find them in tool output (adapters/kit/refusals.ts); the sandbox's proxy
 * reports the hosts it refused.
 */
export const SANDBOX_REFUSED_STAGE = 'sandbox_refused';

export interface UsageEvent extends EventBase {
  kind: 'usage';
  /** Cumulative totals so far (replace, never add). */
  usage: Usage;
}

export interface CompletedEvent extends EventBase {
  kind: 'completed';
  /** The agent's final message, when known. */
  result?: string;
  usage?: Usage;
  exitCode?: number | null;
}

export interface FailedEvent extends EventBase {
  kind: 'failed';
  error: ErrorInfo;
  usage?: Usage;
  exitCode?: number | null;
  signal?: string | null;
  stderrTail?: string;
}

/** A well-formed JSON line of a type the adapter does not know: kept, never dropped. */
export interface UnknownEvent extends EventBase {
  kind: 'unknown';
  /** The vendor's type tag, when it has one. */
  type?: string;
  raw: unknown;
  /** How many consecutive lines of this type the event stands for (hydra merges runs); absent: one. */
  lines?: number;
}

/** A line that is not valid JSON (or too long, or not an object). */
export interface ParseErrorEvent extends EventBase {
  kind: 'parse_error';
  /** The raw line, possibly shortened for huge lines. */
  raw: string;
  reason: string;
  /** How many consecutive unparsed lines the event stands for (hydra merges runs); absent: one. */
  lines?: number;
}

export type AgentEvent =
  | MessageEvent
  | ToolCallEvent
  | ToolResultEvent
  | ProgressEvent
  | UsageEvent
  | CompletedEvent
  | FailedEvent
  | UnknownEvent
  | ParseErrorEvent;

export type AgentEventKind = AgentEvent['kind'];

export const AGENT_EVENT_KINDS: readonly AgentEventKind[] = [
  'message',
  'tool_call',
  'tool_result',
  'progress',
  'usage',
  'completed',
  'failed',
  'unknown',
  'parse_error',
];

/** Distributive Omit, so `ev({kind: 'message', ...})` type-checks against the right member. */
type DistributiveOmit<T, K extends keyof never> = T extends unknown ? Omit<T, K> : never;

/** Stamps the schema version on an event. */
export const ev = <E extends DistributiveOmit<AgentEvent, 'v'>>(event: E): E & EventBase => ({
  v: EVENT_SCHEMA_VERSION,
  ...event,
});

export const isTerminal = (event: AgentEvent): event is CompletedEvent | FailedEvent =>
  event.kind === 'completed' || event.kind === 'failed';

/** Exhaustiveness guard for switch statements over unions. */
export const assertNever = (value: never): never => {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
};
