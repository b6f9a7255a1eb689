/**
 * Claude Code's stream-json, which Qwen Code copied: `system`, `assistant` and `user` lines of
 * Anthropic content blocks (`text`, `thinking`, `tool_use`, `tool_result`), `stream_event` lines of
 * `--include-partial-messages` carrying Anthropic SSE deltas, and a `result` line. One parser reads
 * both; what differs is data the adapter passes in (AnthropicFacts): how usage counts cached input,
 * and the text a failed model call is reported as.
 */
import { z } from 'zod';
import { ev } from '../core/events.js';
import type { AgentEvent, CompletedEvent, FailedEvent, Usage } from '../core/events.js';
import { asString, compactJson, oneLine, OUTPUT_CHARS } from '../core/text.js';
import { anthropicCounts, MessageUsage, openaiCounts } from './anthropic-usage.js';
import { looksLikeAuthFailure } from './finish.js';
import { bool, completed, json, message, num, partialMessage, str, tagged, toolCall } from './kit/events.js';
import type { CliFacts } from './kit/facts.js';
import type { Failure } from './kit/failures.js';
import { CliParser, rule } from './kit/parser.js';
import type { ParserOptions, ProcessEnd } from './types.js';

// ---------------------------------------------------------------------------------------------
// Line schemas (loose: unknown fields pass through and are ignored)

const UsageSchema = z.looseObject({
  input_tokens: num,
  output_tokens: num,
  cache_creation_input_tokens: num,
  cache_read_input_tokens: num,
});

const MessageSchema = z.looseObject({
  id: str,
  model: str,
  content: z.union([z.array(z.unknown()), z.string()]).nullish(),
  usage: UsageSchema.nullish(),
});

const SystemLine = tagged('system', {
  subtype: str,
  session_id: str,
  model: str,
  cwd: str,
  tools: z.array(z.unknown()).nullish(),
  /** Claude Code spells it permissionMode, Qwen Code permission_mode. */
  permissionMode: str,
  permission_mode: str,
  attempt: num,
  max_retries: num,
  error: json,
  error_status: num,
  status: json,
});

/** `error` (Claude Code): why the call behind a synthetic message failed (`authentication_failed`). */
const AssistantLine = tagged('assistant', { message: MessageSchema, error: str });
const UserLine = tagged('user', { message: MessageSchema });

const ResultLine = tagged('result', {
  subtype: str,
  is_error: bool,
  result: str,
  num_turns: num,
  /** Claude Code only: the run's cost and, for a failed API call, its HTTP status. */
  total_cost_usd: num,
  api_error_status: num,
  errors: z.array(z.unknown()).nullish(),
  /** Qwen Code only. */
  error: z.looseObject({ message: str }).nullish(),
  usage: UsageSchema.nullish(),
});

const RateLimitLine = tagged('rate_limit_event', { rate_limit_info: json });

const TextBlock = tagged('text', { text: z.string() });
const ThinkingBlock = tagged('thinking', { thinking: z.string() });
const ToolUseBlock = tagged('tool_use', { id: z.string(), name: z.string(), input: json });
const ToolResultBlock = tagged('tool_result', { tool_use_id: z.string(), content: json, is_error: bool });

const StreamEventLine = tagged('stream_event', {
  event: z.looseObject({
    type: z.string(),
    delta: z.looseObject({ type: str, text: str, thinking: str }).nullish(),
  }),
});

/** One line for a tool call, from the tool's name and input. */
type ToolSummarizer = (name: string, input: unknown) => string;

/** The `type` of a block that is not one of the known ones, for an `unknown` event. */
const blockType = (block: unknown): string | undefined =>
  typeof block === 'object' && block !== null ? asString((block as { type?: unknown }).type) : undefined;

/** Text of a tool_result's content: a string, or an array of text blocks. */
const resultText = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? '' : compactJson(content, OUTPUT_CHARS);
  return content
    .map((block) =>
      typeof block === 'object' && block !== null && typeof (block as { text?: unknown }).text === 'string'
        ? (block as { text: string }).text
        : '',
    )
    .filter((text) => text !== '')
    .join('\n');
};

/** What one assistant content block means; `text` is set for answer text (the run's last words). */
interface AssistantBlock {
  events: AgentEvent[];
  text?: string;
}

/**
 * Events for one assistant content block. Tool calls are remembered in `toolNames` so their
 * results can name the tool.
 */
const assistantBlockEvents = (
  block: unknown,
  summarize: ToolSummarizer,
  toolNames: Map<string, string>,
): AssistantBlock => {
  const text = TextBlock.safeParse(block);
  if (text.success) {
    if (text.data.text.trim() === '') return { events: [] };
    return { events: [message('assistant', text.data.text)], text: text.data.text };
  }
  const thinking = ThinkingBlock.safeParse(block).data?.thinking;
  if (thinking !== undefined)
    return { events: thinking.trim() === '' ? [] : [message('assistant', thinking, { thinking: true })] };
  const toolUse = ToolUseBlock.safeParse(block);
  if (toolUse.success) {
    const { id, name, input } = toolUse.data;
    toolNames.set(id, name);
    return { events: [toolCall(id, name, summarize(name, input), input)] };
  }
  return { events: [ev({ kind: 'unknown', type: `assistant.${blockType(block) ?? 'block'}`, raw: block })] };
};

/** A tool's result and what follows it (CliParser.resultEvents). */
type ResultEvents = (id: string, name: string | undefined, ok: boolean, output: string) => AgentEvent[];

/** Events for a user message's content: tool results, user text, anything else kept as unknown. */
const userContentEvents = (
  content: unknown,
  toolNames: ReadonlyMap<string, string>,
  resultEvents: ResultEvents,
): AgentEvent[] => {
  if (typeof content === 'string') return content === '' ? [] : [message('user', content)];
  const events: AgentEvent[] = [];
  for (const block of Array.isArray(content) ? content : []) {
    const result = ToolResultBlock.safeParse(block);
    if (result.success) {
      const { tool_use_id: id, content: output, is_error: isError } = result.data;
      events.push(...resultEvents(id, toolNames.get(id), isError !== true, resultText(output)));
      continue;
    }
    const text = TextBlock.safeParse(block);
    if (text.success) {
      events.push(message('user', text.data.text));
      continue;
    }
    events.push(ev({ kind: 'unknown', type: `user.${blockType(block) ?? 'block'}`, raw: block }));
  }
  return events;
};

type Delta = { type?: string | null; text?: string | null; thinking?: string | null };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const nullishString = (value: unknown): boolean =>
  value === undefined || value === null || typeof value === 'string';

/**
 * The delta of a `content_block_delta` line, checked by hand: nearly every line of a streamed turn
 * is one, and zod's parse of it cost more than the JSON.parse before it. It accepts exactly what
 * StreamEventLine accepts for these lines; anything else (other SSE events, an odd shape) is
 * undefined and goes through the schema.
 */
const blockDelta = (value: Record<string, unknown>): Delta | undefined => {
  const event = value['event'];
  if (!isObject(event) || event['type'] !== 'content_block_delta') return undefined;
  const delta = event['delta'];
  if (!isObject(delta)) return undefined;
  return typeof delta['type'] === 'string' && nullishString(delta['text']) && nullishString(delta['thinking'])
    ? (delta as Delta)
    : undefined;
};

/** A text or thinking delta as a partial message; other deltas (tool-input JSON) add nothing. */
const deltaEvents = (delta: Delta): AgentEvent[] => {
  if (delta.type === 'text_delta' && delta.text) return [partialMessage(delta.text)];
  if (delta.type === 'thinking_delta' && delta.thinking) return [partialMessage(delta.thinking, true)];
  return [];
};

/**
 * A `stream_event` line: text and thinking deltas become partial messages (the complete assistant
 * line follows); other SSE events (block starts and stops, tool-input JSON fragments) add nothing.
 * Null when the line is not a stream_event of the expected shape.
 */
const partialMessageEvents = (value: Record<string, unknown>): AgentEvent[] | null => {
  const hot = blockDelta(value);
  if (hot !== undefined) return deltaEvents(hot);
  const line = StreamEventLine.safeParse(value);
  if (!line.success) return null;
  const delta = line.data.event.delta;
  if (line.data.event.type !== 'content_block_delta' || delta === undefined || delta === null) return [];
  return deltaEvents(delta);
};

// ---------------------------------------------------------------------------------------------
// Parser

/** What differs between the CLIs that speak this stream. */
export interface AnthropicStream {
  /** Whether `input_tokens` counts cached input too (Qwen Code), or leaves it out (Claude Code). */
  inputIncludesCache: boolean;
  /** How a failed model call shows up as assistant text (Qwen Code: `[API Error: 401 ...]`). */
  apiErrorText?: RegExp;
  /** The flag that sets its turn limit, for the hint when a run stops there (`error_max_turns`). */
  maxTurnsFlag: string;
}

export class AnthropicParser extends CliParser {
  private readonly usage: MessageUsage;
  private readonly apiErrorText: RegExp | undefined;
  /** What the stream said went wrong before any result line (a refused key, an API error text). */
  private streamFailure: Failure | undefined;

  constructor(cli: CliFacts, stream: AnthropicStream, options: ParserOptions) {
    const hint = `Raise ${stream.maxTurnsFlag} in agents.${cli.id}.extra_args in hydra.toml, or remove it.`;
    const maxTurns = { label: /^error_max_turns$/, message: 'stopped at its turn limit', hint };
    super(
      { ...cli, failures: { ...cli.failures, named: [maxTurns, ...(cli.failures?.named ?? [])] } },
      options,
    );
    this.usage = new MessageUsage(stream.inputIncludesCache ? openaiCounts : anthropicCounts);
    this.apiErrorText = stream.apiErrorText;
  }

  override finish(end: ProcessEnd): CompletedEvent | FailedEvent {
    if (this.state.terminal === undefined && this.streamFailure !== undefined)
      this.state.pendingError = this.classify(this.streamFailure);
    return super.finish(end);
  }

  protected override readonly lines = {
    system: rule(SystemLine, (line) => this.system(line)),
    assistant: rule(AssistantLine, (line) => this.assistant(line)),
    user: rule(UserLine, (line) =>
      userContentEvents(line.message.content, this.toolNames, (id, name, ok, output) =>
        this.resultEvents(id, name, ok, output),
      ),
    ),
    stream_event: partialMessageEvents,
    result: rule(ResultLine, (line) => this.result(line)),
    rate_limit_event: rule(RateLimitLine, (line) => [
      ev({ kind: 'progress', stage: 'rate_limit', detail: compactJson(line.rate_limit_info) }),
    ]),
  };

  private system(data: z.infer<typeof SystemLine>): AgentEvent[] {
    const subtype = data.subtype ?? 'system';
    if (subtype === 'init') {
      this.cwd = data.cwd ?? this.cwd;
      this.model = data.model ?? this.model;
      const tools = data.tools?.length;
      const detail = [
        data.model,
        tools === undefined ? undefined : `${tools} tools`,
        data.permissionMode ?? data.permission_mode,
      ]
        .filter((part): part is string => typeof part === 'string' && part !== '')
        .join(', ');
      return [this.init(data.session_id, data.model, detail)];
    }
    if (subtype === 'api_retry') {
      const attempt =
        data.attempt === undefined || data.attempt === null
          ? ''
          : `attempt ${data.attempt}${data.max_retries ? `/${data.max_retries}` : ''}`;
      const status = data.error_status ? `HTTP ${data.error_status}` : compactJson(data.error, 80);
      const detail = oneLine([attempt, status].filter((part) => part !== '').join(': '));
      return [ev({ kind: 'progress', stage: 'retry', detail })];
    }
    const detail = typeof data.status === 'string' ? data.status : undefined;
    return [ev({ kind: 'progress', stage: subtype, ...(detail === undefined ? {} : { detail }) })];
  }

  private assistant(line: z.infer<typeof AssistantLine>): AgentEvent[] {
    const { message: said, error } = line;
    const synthetic = said.model === '<synthetic>';
    if (error && (error === 'authentication_failed' || looksLikeAuthFailure(error)))
      this.streamFailure = { text: '', auth: true };
    const events: AgentEvent[] = [];
    const blocks = typeof said.content === 'string' ? [{ type: 'text', text: said.content }] : said.content;
    for (const block of blocks ?? []) events.push(...this.block(block));
    if (error && events.length === 0) events.push(message('system', `error: ${error}`));
    if (synthetic) return events;
    if (said.model) this.model = said.model;
    const totals = this.usage.record(said.id ?? undefined, said.usage ?? undefined);
    if (totals !== undefined) events.push(ev({ kind: 'usage', usage: this.priced(totals) }));
    return events;
  }

  private block(block: unknown): AgentEvent[] {
    const text =
      typeof block === 'object' && block !== null ? asString((block as { text?: unknown }).text) : undefined;
    if (text !== undefined && this.apiErrorText?.test(text) === true) {
      // A failed model call, reported as if the model had said it.
      this.streamFailure = { text: text.trim() };
      return [message('system', `error: ${text.trim()}`)];
    }
    const parsed = assistantBlockEvents(block, (name, input) => this.summarize(name, input), this.toolNames);
    if (parsed.text !== undefined) this.answer(parsed.text);
    return parsed.events;
  }

  private result(data: z.infer<typeof ResultLine>): AgentEvent[] {
    const turns = data.num_turns ?? this.usage.calls;
    // A result without a usage object keeps what the assistant messages reported (or nothing).
    const counted = data.usage ? this.usage.resultUsage(data.usage, turns) : this.usage.totals(turns);
    const usage: Usage =
      data.total_cost_usd !== undefined && data.total_cost_usd !== null
        ? { ...counted, costUsd: data.total_cost_usd, costSource: 'reported' }
        : this.priced(counted);
    // Qwen Code before 0.24 ended a failed model call with a "success" result whose text is the error.
    const errorText =
      data.result !== undefined && data.result !== null && this.apiErrorText?.test(data.result) === true;
    if (data.is_error !== true && !errorText) {
      return [ev({ kind: 'usage', usage }), completed(data.result ?? undefined, usage)];
    }
    const reason =
      data.error?.message ??
      (this.streamFailure?.auth === true ? undefined : this.streamFailure?.text) ??
      data.result ??
      (data.errors ?? []).map((entry) => compactJson(entry)).join('; ');
    const error = this.classify({
      text: reason,
      ...(data.api_error_status ? { status: data.api_error_status } : {}),
      ...(data.subtype ? { label: data.subtype } : {}),
      auth: this.streamFailure?.auth === true,
    });
    return [ev({ kind: 'usage', usage }), ev({ kind: 'failed', error, usage })];
  }
}
