/**
 * Claude Code (`claude`): headless `-p` runs with `--output-format stream-json --verbose`.
 *
 * Permissions: a race must edit files unattended, and hydra's promise is that the user's own
 * checkout is never touched. `--permission-mode acceptEdits` lets Claude edit files inside its
 * worktree without asking while shell commands stay subject to the user's own Claude settings
 * (allow rules), the same bargain as Codex's `workspace-write` sandbox. `--unsafe` switches to
 * `bypassPermissions` (every tool, no questions) and sets IS_SANDBOX=1, without which Claude Code
 * refuses that mode when running as root.
 */
import { z } from 'zod';
import { assistantBlockEvents, partialMessageEvents, userContentEvents } from './anthropic-stream.js';
import type { AdapterError } from './errors.js';
import { addCounts, emptyUsage, ev } from '../core/events.js';
import type { AgentEvent, CompletedEvent, ErrorInfo, FailedEvent, Usage } from '../core/events.js';
import { looksLikeAuthFailure } from './finish.js';
import type { RunState } from './finish.js';
import { hasFlag, parseHelpFlags } from './help-flags.js';
import { JsonLineParser } from './json-line-parser.js';
import { checkModelName, isDefaultModel } from './model-name.js';
import { mergePrices, withEstimatedCost } from './prices.js';
import { probeError, runStep, unreadableVersion, verifiedCapabilities, versionOf } from './probe-steps.js';
import type { ProbeContext } from './probe-steps.js';
import { deliverPrompt } from './prompt-delivery.js';
import { asString, clip, compactJson, MESSAGE_CHARS, oneLine, relativePath } from '../core/text.js';
import type {
  AgentAdapter,
  BuiltCommand,
  Capabilities,
  ModelPrice,
  ParserOptions,
  PriceTable,
  ProbeResult,
  ProbeRunner,
  ProcessEnd,
  SpawnRequest,
} from './types.js';

const ID = 'claude';
const DISPLAY_NAME = 'Claude Code';
const INSTALL_HINT = 'npm install -g @anthropic-ai/claude-code';
const SIGN_IN_HINT = 'Set ANTHROPIC_API_KEY in the environment, or run `claude /login` once.';

const ROOT_WARNING =
  'running as root with --unsafe: Claude Code refuses bypassPermissions as root unless IS_SANDBOX=1, which hydra ' +
  "sets for --unsafe races, so the agent runs with root's powers. Race --unsafe as root only in a disposable " +
  'container; otherwise run hydra as a normal user';

const anthropic = (input: number, output: number): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheReadPerMTok: input * 0.1,
  cacheWritePerMTok: input * 1.25,
});

/**
 * Anthropic's prices (USD per million tokens; cache writes at the 5-minute rate). Claude reports
 * its cost in the `result` line: these only price the running total before that.
 */
export const CLAUDE_PRICES: PriceTable = {
  'claude-opus-4-6': anthropic(5, 25),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4-6': anthropic(3, 15),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
  opus: anthropic(5, 25),
  sonnet: anthropic(3, 15),
  haiku: anthropic(1, 5),
};

// ---------------------------------------------------------------------------------------------
// Probe

/** Features derived from `claude --help`. */
const claudeFeatures = (flags: readonly string[], version: string | null) => ({
  print: hasFlag(flags, '-p', '--print'),
  outputFormat: hasFlag(flags, '--output-format'),
  verbose: hasFlag(flags, '--verbose'),
  permissionMode: hasFlag(flags, '--permission-mode'),
  skipPermissions: hasFlag(flags, '--dangerously-skip-permissions'),
  allowedTools: hasFlag(flags, '--allowedTools', '--allowed-tools'),
  model: hasFlag(flags, '--model'),
  // Accepted by current versions but missing from their help: only trusted when listed.
  maxTurns: hasFlag(flags, '--max-turns'),
  partialMessages: hasFlag(flags, '--include-partial-messages'),
  // `-r, --resume [sessionId]`: a follow-up continues the session its init line named.
  resume: hasFlag(flags, '-r', '--resume'),
  versionKnown: version !== null,
});

const probe = async (binary: string, run: ProbeRunner): Promise<ProbeResult> => {
  const context: ProbeContext = {
    adapterId: ID,
    displayName: DISPLAY_NAME,
    binary,
    installHint: INSTALL_HINT,
  };
  const [versionStep, helpStep] = await Promise.all([
    runStep(context, run, ['--version']),
    runStep(context, run, ['--help']),
  ]);
  if (!versionStep.ok) return { ok: false, error: versionStep.error };
  if (!helpStep.ok) return { ok: false, error: helpStep.error };
  const version = versionOf(versionStep);
  const flags = parseHelpFlags(helpStep.text);
  const features = claudeFeatures(flags, version);
  const capabilities = verifiedCapabilities(ID, binary, version, flags, features);
  if (version === null)
    return { ok: false, capabilities, error: unreadableVersion(context, versionStep.output) };
  const missing = [!features.print && '-p/--print', !features.outputFormat && '--output-format'].filter(
    (flag): flag is string => flag !== false,
  );
  if (missing.length > 0) {
    return {
      ok: false,
      capabilities,
      error: probeError(
        context,
        'UnsupportedFlag',
        `Claude Code ${version} lacks ${missing.join(' and ')}, which hydra needs for headless JSON output`,
        `Upgrade it: ${INSTALL_HINT}`,
        ['--help'],
        helpStep.output,
      ),
    };
  }
  if (!features.permissionMode) {
    capabilities.warnings.push(
      features.allowedTools
        ? `Claude Code ${version} has no --permission-mode: edits are allowed through --allowedTools instead.`
        : `Claude Code ${version} has neither --permission-mode nor --allowedTools: it may be unable to edit files unattended. Upgrade: ${INSTALL_HINT}`,
    );
  }
  if (!features.verbose)
    capabilities.warnings.push(
      `Claude Code ${version} has no --verbose flag; stream-json is requested without it.`,
    );
  return { ok: true, capabilities };
};

// ---------------------------------------------------------------------------------------------
// Command

/** Tools granted by --allowedTools on versions without --permission-mode (edits only). */
const EDIT_TOOLS = 'Edit,Write,MultiEdit,NotebookEdit';

const permissionArgs = (unsafe: boolean, features: Record<string, boolean>): string[] => {
  if (unsafe) {
    if (features['permissionMode'] === true) return ['--permission-mode', 'bypassPermissions'];
    if (features['skipPermissions'] === true) return ['--dangerously-skip-permissions'];
    return [];
  }
  if (features['permissionMode'] === true) return ['--permission-mode', 'acceptEdits'];
  if (features['allowedTools'] === true) return ['--allowedTools', EDIT_TOOLS];
  return [];
};

const buildCommand = (request: SpawnRequest, capabilities: Capabilities): BuiltCommand => {
  const features = capabilities.features;
  const args = ['-p', '--output-format', 'stream-json'];
  if (features['verbose'] !== false) args.push('--verbose');
  args.push(...permissionArgs(request.unsafe, features));
  if (!isDefaultModel(request.model) && request.model !== undefined) args.push('--model', request.model);
  if (request.maxTurns !== undefined) args.push('--max-turns', String(request.maxTurns));
  if (request.resumeSessionId !== undefined && features['resume'] === true)
    args.push('--resume', request.resumeSessionId);
  args.push(...request.extraArgs);
  // `claude -p` reads the prompt from stdin when no prompt argument is given.
  const prompt = deliverPrompt(request.prompt, request.scratchDir, { stdinArgs: [] });
  args.push(...prompt.args);
  const env: Record<string, string> = { CLAUDECODE: '' };
  if (request.unsafe) env['IS_SANDBOX'] = '1';
  Object.assign(env, request.env);
  return {
    file: capabilities.binary,
    args,
    env,
    cwd: request.cwd,
    files: prompt.via === 'stdin' ? prompt.files : [],
    ...(prompt.via === 'stdin' ? { stdinFile: prompt.stdinFile } : {}),
  };
};

// ---------------------------------------------------------------------------------------------
// Stream schemas (loose: unknown fields pass through and are ignored)

const nullableNumber = z.number().nullish();

const UsageSchema = z.looseObject({
  input_tokens: nullableNumber,
  output_tokens: nullableNumber,
  cache_creation_input_tokens: nullableNumber,
  cache_read_input_tokens: nullableNumber,
});

const MessageSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  content: z.union([z.array(z.unknown()), z.string()]).nullish(),
  usage: UsageSchema.nullish(),
});

const SystemLine = z.looseObject({
  type: z.literal('system'),
  subtype: z.string().nullish(),
  session_id: z.string().nullish(),
  model: z.string().nullish(),
  cwd: z.string().nullish(),
  tools: z.array(z.unknown()).nullish(),
  permissionMode: z.string().nullish(),
  attempt: nullableNumber,
  max_retries: nullableNumber,
  error: z.unknown().optional(),
  error_status: nullableNumber,
  status: z.unknown().optional(),
});

const AssistantLine = z.looseObject({
  type: z.literal('assistant'),
  message: MessageSchema,
  error: z.string().nullish(),
  parent_tool_use_id: z.string().nullish(),
});

const UserLine = z.looseObject({ type: z.literal('user'), message: MessageSchema });

const ResultLine = z.looseObject({
  type: z.literal('result'),
  subtype: z.string().nullish(),
  is_error: z.boolean().nullish(),
  result: z.string().nullish(),
  num_turns: nullableNumber,
  total_cost_usd: nullableNumber,
  usage: UsageSchema.nullish(),
  api_error_status: nullableNumber,
  session_id: z.string().nullish(),
  errors: z.array(z.unknown()).nullish(),
});

const RateLimitLine = z.looseObject({
  type: z.literal('rate_limit_event'),
  rate_limit_info: z.unknown().optional(),
});

// ---------------------------------------------------------------------------------------------
// Parser

type ApiUsage = z.infer<typeof UsageSchema>;

/** A usage object Claude reported: a count it left out is 0. */
const usageFromApi = (usage: ApiUsage, turns: number): Usage => ({
  ...emptyUsage(),
  inputTokens: usage.input_tokens ?? 0,
  outputTokens: usage.output_tokens ?? 0,
  cacheReadTokens: usage.cache_read_input_tokens ?? 0,
  cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
  turns,
});

const toolSummary = (name: string, input: unknown, cwd: string | undefined): string => {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const path = asString(fields['file_path']) ?? asString(fields['notebook_path']) ?? asString(fields['path']);
  switch (name) {
    case 'Bash':
      return oneLine(`$ ${asString(fields['command']) ?? ''}`);
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
    case 'Read':
      return oneLine(`${name} ${path === undefined ? '' : relativePath(path, cwd)}`);
    case 'Glob':
    case 'Grep':
      return oneLine(
        `${name} ${asString(fields['pattern']) ?? ''}${path === undefined ? '' : ` in ${relativePath(path, cwd)}`}`,
      );
    case 'WebFetch':
      return oneLine(`Fetch ${asString(fields['url']) ?? ''}`);
    case 'WebSearch':
      return oneLine(`Search ${asString(fields['query']) ?? ''}`);
    case 'Task':
      return oneLine(`Task ${asString(fields['description']) ?? ''}`);
    case 'TodoWrite': {
      const todos = Array.isArray(fields['todos']) ? fields['todos'].length : 0;
      return `Update todo list (${todos} items)`;
    }
    default:
      return oneLine(`${name} ${compactJson(input)}`);
  }
};

/** Adds (sign 1) or removes (sign -1) one message's API usage from running totals. */
const addApiUsage = (total: Usage, usage: ApiUsage, sign: 1 | -1): void => {
  total.inputTokens = addCounts(total.inputTokens, sign * (usage.input_tokens ?? 0));
  total.outputTokens = addCounts(total.outputTokens, sign * (usage.output_tokens ?? 0));
  total.cacheReadTokens = addCounts(total.cacheReadTokens, sign * (usage.cache_read_input_tokens ?? 0));
  total.cacheWriteTokens = addCounts(total.cacheWriteTokens, sign * (usage.cache_creation_input_tokens ?? 0));
};

class ClaudeParser extends JsonLineParser {
  private readonly prices: PriceTable;
  private readonly requestedModel: string | undefined;
  private model: string | undefined;
  private cwd: string | undefined;
  private readonly usageByMessage = new Map<string, ApiUsage>();
  private readonly totals: Usage = emptyUsage();
  private readonly toolNames = new Map<string, string>();
  private authError = false;
  protected readonly state: RunState = {
    displayName: DISPLAY_NAME,
    sawJson: false,
    authHint: SIGN_IN_HINT,
  };

  constructor(options: ParserOptions) {
    super();
    this.prices = mergePrices(CLAUDE_PRICES, options.prices);
    this.requestedModel = isDefaultModel(options.model) ? undefined : options.model;
    this.cwd = options.cwd;
  }

  override finish(end: ProcessEnd): CompletedEvent | FailedEvent {
    if (this.state.terminal === undefined && this.authError) {
      this.state.pendingError = {
        kind: 'AuthMissing',
        message: `${DISPLAY_NAME} could not authenticate`,
        hint: SIGN_IN_HINT,
      };
    }
    return super.finish(end);
  }

  /** Events for a known line type, or null when the line is of an unknown type or shape. */
  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
    switch (value['type']) {
      case 'system':
        return this.system(value);
      case 'assistant':
        return this.assistant(value);
      case 'user':
        return this.user(value);
      case 'result':
        return this.result(value);
      case 'stream_event':
        return partialMessageEvents(value);
      case 'rate_limit_event':
        return RateLimitLine.safeParse(value).success
          ? [ev({ kind: 'progress', stage: 'rate_limit', detail: compactJson(value['rate_limit_info']) })]
          : null;
      default:
        return null;
    }
  }

  private system(value: Record<string, unknown>): AgentEvent[] | null {
    const line = SystemLine.safeParse(value);
    if (!line.success) return null;
    const data = line.data;
    const subtype = data.subtype ?? 'system';
    if (subtype === 'init') {
      this.cwd = data.cwd ?? this.cwd;
      this.model = data.model ?? this.model;
      const tools = data.tools?.length;
      const detail = [
        data.model,
        tools === undefined ? undefined : `${tools} tools`,
        data.permissionMode ?? undefined,
      ]
        .filter((part) => part !== undefined && part !== null)
        .join(', ');
      return [
        ev({
          kind: 'progress',
          stage: 'init',
          ...(detail === '' ? {} : { detail }),
          ...(data.session_id ? { sessionId: data.session_id } : {}),
          ...(data.model ? { model: data.model } : {}),
        }),
      ];
    }
    if (subtype === 'api_retry') {
      const attempt =
        data.attempt === undefined || data.attempt === null
          ? ''
          : `attempt ${data.attempt}${data.max_retries ? `/${data.max_retries}` : ''}`;
      const status = data.error_status ? `HTTP ${data.error_status}` : compactJson(data.error, 80);
      return [
        ev({
          kind: 'progress',
          stage: 'retry',
          detail: oneLine([attempt, status].filter((part) => part !== '').join(': ')),
        }),
      ];
    }
    const detail = typeof data.status === 'string' ? data.status : undefined;
    return [ev({ kind: 'progress', stage: subtype, ...(detail === undefined ? {} : { detail }) })];
  }

  private assistant(value: Record<string, unknown>): AgentEvent[] | null {
    const line = AssistantLine.safeParse(value);
    if (!line.success) return null;
    const { message, error } = line.data;
    const synthetic = message.model === '<synthetic>';
    if (
      error !== undefined &&
      error !== null &&
      (error === 'authentication_failed' || looksLikeAuthFailure(error))
    )
      this.authError = true;
    const events: AgentEvent[] = [];
    for (const block of Array.isArray(message.content) ? message.content : []) {
      events.push(...this.assistantBlock(block));
    }
    if (typeof message.content === 'string' && message.content !== '') {
      events.push(ev({ kind: 'message', role: 'assistant', text: clip(message.content, MESSAGE_CHARS) }));
    }
    if (error !== undefined && error !== null && events.length === 0) {
      events.push(ev({ kind: 'message', role: 'system', text: `error: ${error}` }));
    }
    if (!synthetic && message.model) this.model = message.model;
    const usage = synthetic
      ? undefined
      : this.recordUsage(message.id ?? undefined, message.usage ?? undefined);
    if (usage !== undefined) events.push(usage);
    return events;
  }

  private assistantBlock(block: unknown): AgentEvent[] {
    const { events, text } = assistantBlockEvents(
      block,
      (name, input) => toolSummary(name, input, this.cwd),
      this.toolNames,
    );
    if (text !== undefined) this.state.lastText = text;
    return events;
  }

  /** Records one assistant message's usage (de-duplicated by message id) and returns the new total. */
  private recordUsage(id: string | undefined, usage: ApiUsage | undefined): AgentEvent | undefined {
    if (usage === undefined) return undefined;
    const key = id ?? `anonymous-${this.usageByMessage.size}`;
    const previous = this.usageByMessage.get(key);
    if (previous !== undefined && JSON.stringify(previous) === JSON.stringify(usage)) return undefined;
    this.usageByMessage.set(key, usage);
    // Running totals: a message seen again replaces its earlier figures (constant work per line).
    if (previous !== undefined) addApiUsage(this.totals, previous, -1);
    addApiUsage(this.totals, usage, 1);
    this.totals.turns = this.usageByMessage.size;
    return ev({
      kind: 'usage',
      usage: withEstimatedCost({ ...this.totals }, this.model ?? this.requestedModel, this.prices),
    });
  }

  private user(value: Record<string, unknown>): AgentEvent[] | null {
    const line = UserLine.safeParse(value);
    if (!line.success) return null;
    return userContentEvents(line.data.message.content, this.toolNames);
  }

  private result(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ResultLine.safeParse(value);
    if (!line.success) return null;
    const data = line.data;
    const turns = data.num_turns ?? this.usageByMessage.size;
    // A result without a usage object keeps what the assistant messages reported (or nothing).
    const base =
      data.usage === undefined || data.usage === null
        ? { ...this.totals, turns }
        : usageFromApi(data.usage, turns);
    const usage: Usage =
      data.total_cost_usd !== undefined && data.total_cost_usd !== null
        ? { ...base, costUsd: data.total_cost_usd, costSource: 'reported' }
        : withEstimatedCost(base, this.model ?? this.requestedModel, this.prices);
    const text = data.result ?? undefined;
    if (data.is_error !== true) {
      return [
        ev({ kind: 'usage', usage }),
        ev({
          kind: 'completed',
          ...(text === undefined ? {} : { result: clip(text, MESSAGE_CHARS) }),
          usage,
        }),
      ];
    }
    return [ev({ kind: 'usage', usage }), ev({ kind: 'failed', error: this.resultError(data), usage })];
  }

  private resultError(data: z.infer<typeof ResultLine>): ErrorInfo {
    const status = data.api_error_status ?? undefined;
    const text = oneLine(
      data.result ?? (data.errors ?? []).map((entry) => compactJson(entry)).join('; '),
      240,
    );
    const detail = text === '' ? '' : `: ${text}`;
    if (status === 401 || status === 403 || this.authError || looksLikeAuthFailure(text)) {
      return {
        kind: 'AuthMissing',
        message: `${DISPLAY_NAME} could not authenticate${status ? ` (HTTP ${status})` : ''}${detail}`,
        hint: SIGN_IN_HINT,
      };
    }
    if (status !== undefined && status >= 500) {
      return {
        kind: 'AgentFailed',
        message: `${DISPLAY_NAME} hit an API server error (HTTP ${status})${detail}`,
        hint: 'The model provider failed; try again later.',
      };
    }
    if (status !== undefined) {
      return {
        kind: 'AgentFailed',
        message: `${DISPLAY_NAME} hit an API error (HTTP ${status})${detail}`,
        hint: 'See the run record for the full response.',
      };
    }
    if (data.subtype === 'error_max_turns') {
      return {
        kind: 'AgentFailed',
        message: `${DISPLAY_NAME} stopped at its turn limit${detail}`,
        hint: 'Raise --max-turns in agents.claude.extra_args in hydra.toml, or remove it.',
      };
    }
    return {
      kind: 'AgentFailed',
      message: `${DISPLAY_NAME} reported an error (${data.subtype ?? 'error'})${detail}`,
      hint: "See the run record for the agent's output.",
    };
  }
}

export const claudeAdapter: AgentAdapter = {
  id: ID,
  displayName: DISPLAY_NAME,
  tier: 'tier1',
  aliases: [],
  binaries: ['claude'],
  installHint: INSTALL_HINT,
  signInHint: SIGN_IN_HINT,
  prices: CLAUDE_PRICES,
  demo: { lineDelayMs: 1100 },
  // As root, Claude Code refuses bypassPermissions (used by --unsafe) unless IS_SANDBOX=1. hydra
  // sets it for --unsafe runs; doctor says so, because it also means the agent runs with root's powers.
  // A normal race (acceptEdits) is not affected.
  doctorWarnings: ({ isRoot, unsafe }) => (isRoot && unsafe ? [ROOT_WARNING] : []),
  probe,
  validateModel: (model): AdapterError | null => checkModelName(ID, model),
  buildCommand,
  createParser: (options = {}) => new ClaudeParser(options),
};
