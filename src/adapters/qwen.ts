/**
 * Qwen Code (`qwen`): headless runs with `--output-format stream-json`, a Gemini CLI fork whose
 * stream copies Claude Code's (system/assistant/user/result lines of Anthropic content blocks;
 * those shapes are read by anthropic-stream.ts for both). What is its own: usage counts input
 * tokens the OpenAI way (cached ones included), errors arrive as `[API Error: <status> ...]` text
 * and a `result` with `subtype: "error_during_execution"`, and no cost is reported.
 *
 * Approval: `--approval-mode auto-edit` lets it edit files in its worktree unattended while its
 * shell tool stays out of reach (Qwen Code leaves `run_shell_command` out of the tools it offers
 * the model in that mode); `--unsafe` switches to `yolo`.
 *
 * The prompt: the positional prompt is parsed by yargs, which turns "0x10" into 16 and reads a
 * leading dash as a flag, and `qwen -- "<prompt>"` ignores the prompt altogether. `--prompt=<text>`
 * (one argument, so yargs takes the rest verbatim) delivers it byte for byte; prompts too long for
 * an argument go through stdin, which Qwen Code reads as the prompt (it appends two newlines).
 */
import { z } from 'zod';
import { assistantBlockEvents, partialMessageEvents, userContentEvents } from './anthropic-stream.js';
import { CODEX_PRICES } from './codex.js';
import type { AdapterError } from './errors.js';
import { emptyUsage, ev } from '../core/events.js';
import type { AgentEvent, CompletedEvent, ErrorInfo, FailedEvent, Usage } from '../core/events.js';
import { looksLikeAuthFailure } from './finish.js';
import type { RunState } from './finish.js';
import { hasFlag, optionText, parseHelpFlags } from './help-flags.js';
import { JsonLineParser } from './json-line-parser.js';
import { checkModelName, isDefaultModel } from './model-name.js';
import { mergePrices, withEstimatedCost } from './prices.js';
import { probeError, runStep, unreadableVersion, verifiedCapabilities, versionOf } from './probe-steps.js';
import type { ProbeContext } from './probe-steps.js';
import { deliverPrompt, fitsInArgv } from './prompt-delivery.js';
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

const ID = 'qwen';
const DISPLAY_NAME = 'Qwen Code';
const INSTALL_HINT = 'npm install -g @qwen-code/qwen-code';
const SIGN_IN_HINT =
  'Run `qwen` once and choose how to sign in (/auth), or set OPENAI_API_KEY (with OPENAI_BASE_URL and OPENAI_MODEL for your provider) in the environment or in hydra.toml [agents.qwen.env].';

const qwenPrice = (input: number, output: number): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  // Model Studio bills implicit context-cache hits at 20% of the input price.
  cacheReadPerMTok: input * 0.2,
});

/**
 * Alibaba Cloud Model Studio's international list prices (USD per million tokens) for the Qwen
 * models Qwen Code is usually pointed at, at their first tier (up to 32K input tokens; longer
 * contexts cost more). Qwen Code runs any OpenAI-compatible model, so OpenAI's prices are included.
 */
export const QWEN_PRICES: PriceTable = {
  ...CODEX_PRICES,
  'qwen3-coder-plus': qwenPrice(1, 5),
  'qwen3-coder-flash': qwenPrice(0.3, 1.5),
  'qwen3-max': qwenPrice(1.2, 6),
  'qwen-max': qwenPrice(1.6, 6.4),
  'qwen-plus': qwenPrice(0.4, 1.2),
  'qwen-flash': qwenPrice(0.05, 0.4),
  'qwen-turbo': qwenPrice(0.05, 0.2),
};

// ---------------------------------------------------------------------------------------------
// Probe

/** Features derived from `qwen --help`. */
const qwenFeatures = (flags: readonly string[], help: string) => ({
  outputFormat: hasFlag(flags, '-o', '--output-format'),
  // 0.1.x offers only text and json.
  streamJson: /stream-json/.test(optionText(help, '--output-format')),
  approvalMode: hasFlag(flags, '--approval-mode'),
  autoEdit: /auto-edit/.test(optionText(help, '--approval-mode')),
  yolo: hasFlag(flags, '-y', '--yolo'),
  promptFlag: hasFlag(flags, '-p', '--prompt'),
  model: hasFlag(flags, '-m', '--model'),
  resume: hasFlag(flags, '-r', '--resume'),
  partialMessages: hasFlag(flags, '--include-partial-messages'),
  maxTurns: hasFlag(flags, '--max-session-turns'),
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
  const features = qwenFeatures(flags, helpStep.text);
  const capabilities = verifiedCapabilities(ID, binary, version, flags, features);
  if (version === null)
    return { ok: false, capabilities, error: unreadableVersion(context, versionStep.output) };
  const refuse = (message: string): ProbeResult => ({
    ok: false,
    capabilities,
    error: probeError(
      context,
      'UnsupportedFlag',
      message,
      `Upgrade it: ${INSTALL_HINT}`,
      ['--help'],
      helpStep.output,
    ),
  });
  if (!features.outputFormat || !features.streamJson)
    return refuse(
      `Qwen Code ${version} has no \`--output-format stream-json\`, which hydra needs to follow the run`,
    );
  if (!(features.approvalMode && features.autoEdit) && !features.yolo)
    return refuse(
      `Qwen Code ${version} has neither --approval-mode auto-edit nor --yolo, so it cannot edit files unattended`,
    );
  if (!features.approvalMode || !features.autoEdit)
    capabilities.warnings.push(
      `Qwen Code ${version} has no --approval-mode auto-edit: races run it with --yolo only when --unsafe is given, and otherwise it may be unable to edit files.`,
    );
  if (!features.promptFlag)
    capabilities.warnings.push(
      `Qwen Code ${version} has no --prompt flag: hydra sends every prompt through stdin.`,
    );
  return { ok: true, capabilities };
};

// ---------------------------------------------------------------------------------------------
// Command

const approvalArgs = (unsafe: boolean, features: Record<string, boolean>): string[] => {
  const mode = features['approvalMode'] === true;
  if (unsafe) return mode ? ['--approval-mode', 'yolo'] : features['yolo'] === true ? ['--yolo'] : [];
  return mode && features['autoEdit'] === true ? ['--approval-mode', 'auto-edit'] : [];
};

const buildCommand = (request: SpawnRequest, capabilities: Capabilities): BuiltCommand => {
  const features = capabilities.features;
  const args = ['--output-format', 'stream-json', ...approvalArgs(request.unsafe, features)];
  if (!isDefaultModel(request.model) && request.model !== undefined) args.push('--model', request.model);
  if (request.maxTurns !== undefined && features['maxTurns'] === true)
    args.push('--max-session-turns', String(request.maxTurns));
  if (request.resumeSessionId !== undefined && features['resume'] === true)
    args.push('--resume', request.resumeSessionId);
  args.push(...request.extraArgs);
  const env = { ...request.env };
  if (features['promptFlag'] !== false && fitsInArgv(request.prompt)) {
    // One argument: yargs takes everything after `=` as the value, a leading dash included.
    args.push(`--prompt=${request.prompt}`);
    return { file: capabilities.binary, args, env, cwd: request.cwd, files: [] };
  }
  // With no prompt argument, Qwen Code reads the prompt from stdin (a file, never a pipe).
  const prompt = deliverPrompt(request.prompt, request.scratchDir, { stdinArgs: [], forceStdin: true });
  return {
    file: capabilities.binary,
    args: [...args, ...prompt.args],
    env,
    cwd: request.cwd,
    files: prompt.via === 'stdin' ? prompt.files : [],
    ...(prompt.via === 'stdin' ? { stdinFile: prompt.stdinFile } : {}),
  };
};

// ---------------------------------------------------------------------------------------------
// Stream schemas (loose: unknown fields pass through and are ignored)

const nullableNumber = z.number().nullish();

/** `input_tokens` includes `cache_read_input_tokens` (the OpenAI convention Qwen Code keeps). */
const UsageSchema = z.looseObject({
  input_tokens: nullableNumber,
  output_tokens: nullableNumber,
  cache_read_input_tokens: nullableNumber,
  cache_creation_input_tokens: nullableNumber,
});

const SystemLine = z.looseObject({
  type: z.literal('system'),
  subtype: z.string().nullish(),
  session_id: z.string().nullish(),
  model: z.string().nullish(),
  cwd: z.string().nullish(),
  tools: z.array(z.unknown()).nullish(),
  permission_mode: z.string().nullish(),
});

const MessageSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  content: z.union([z.array(z.unknown()), z.string()]).nullish(),
  usage: UsageSchema.nullish(),
});

const AssistantLine = z.looseObject({ type: z.literal('assistant'), message: MessageSchema });
const UserLine = z.looseObject({ type: z.literal('user'), message: MessageSchema });

const ResultLine = z.looseObject({
  type: z.literal('result'),
  subtype: z.string().nullish(),
  is_error: z.boolean().nullish(),
  result: z.string().nullish(),
  num_turns: nullableNumber,
  usage: UsageSchema.nullish(),
  error: z.looseObject({ message: z.string().nullish() }).nullish(),
  session_id: z.string().nullish(),
});

// ---------------------------------------------------------------------------------------------
// Parser

type ApiUsage = z.infer<typeof UsageSchema>;

/** How Qwen Code reports a failed model call, as assistant text: `[API Error: 401 Incorrect ...]`. */
const API_ERROR = /^\s*\[API Error:\s*(?:(\d{3})\b)?/;

/**
 * What Qwen Code says when no provider is set up at all (a user who never signed in): 0.5.x
 * "Please set an Auth method in your .../settings.json ...", 0.15 on "No auth type is selected".
 */
const NOT_SIGNED_IN = /no auth type is selected|please set an auth method/i;

const statusOf = (text: string): number | undefined => {
  const status = API_ERROR.exec(text)?.[1];
  return status === undefined ? undefined : Number(status);
};

/** Token counts as hydra splits them: cached input apart from the rest. */
interface Counts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Counts from a usage object Qwen Code reported (a count it left out is 0). */
const countsFrom = (usage: ApiUsage): Counts => {
  const input = usage.input_tokens ?? 0;
  const cached = Math.min(usage.cache_read_input_tokens ?? 0, input);
  return {
    input: input - cached,
    output: usage.output_tokens ?? 0,
    cacheRead: cached,
    cacheWrite: usage.cache_creation_input_tokens ?? 0,
  };
};

const sumCounts = (all: Iterable<Counts>): Counts => {
  const total: Counts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const one of all) {
    total.input += one.input;
    total.output += one.output;
    total.cacheRead += one.cacheRead;
    total.cacheWrite += one.cacheWrite;
  }
  return total;
};

const usageOf = (counts: Counts, turns: number): Usage => ({
  ...emptyUsage(),
  inputTokens: counts.input,
  outputTokens: counts.output,
  cacheReadTokens: counts.cacheRead,
  cacheWriteTokens: counts.cacheWrite,
  turns,
});

const hasTokens = (usage: ApiUsage): boolean =>
  (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) > 0;

const toolSummary = (name: string, input: unknown, cwd: string | undefined): string => {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const path = asString(fields['file_path']) ?? asString(fields['absolute_path']) ?? asString(fields['path']);
  const shown = path === undefined ? '' : relativePath(path, cwd);
  switch (name) {
    case 'run_shell_command':
      return oneLine(`$ ${asString(fields['command']) ?? ''}`);
    case 'write_file':
    case 'edit':
    case 'read_file':
    case 'notebook_edit':
    case 'list_directory':
      return oneLine(`${name} ${shown}`);
    case 'glob':
    case 'grep_search':
      return oneLine(`${name} ${asString(fields['pattern']) ?? ''}${shown === '' ? '' : ` in ${shown}`}`);
    case 'web_fetch':
      return oneLine(`Fetch ${asString(fields['url']) ?? ''}`);
    case 'web_search':
      return oneLine(`Search ${asString(fields['query']) ?? ''}`);
    case 'task':
    case 'agent':
      return oneLine(`Task ${asString(fields['description']) ?? ''}`);
    case 'todo_write': {
      const todos = Array.isArray(fields['todos']) ? fields['todos'].length : 0;
      return `Update todo list (${todos} items)`;
    }
    default:
      return oneLine(`${name} ${compactJson(input)}`);
  }
};

class QwenParser extends JsonLineParser {
  private readonly prices: PriceTable;
  private readonly requestedModel: string | undefined;
  private model: string | undefined;
  private cwd: string | undefined;
  private readonly usageByMessage = new Map<string, ApiUsage>();
  private readonly toolNames = new Map<string, string>();
  /** The last `[API Error: ...]` text the stream carried. */
  private apiError: string | undefined;
  protected readonly state: RunState = {
    displayName: DISPLAY_NAME,
    sawJson: false,
    authHint: SIGN_IN_HINT,
  };

  constructor(options: ParserOptions) {
    super();
    this.prices = mergePrices(QWEN_PRICES, options.prices);
    this.requestedModel = isDefaultModel(options.model) ? undefined : options.model;
    this.cwd = options.cwd;
  }

  override finish(end: ProcessEnd): CompletedEvent | FailedEvent {
    if (this.state.terminal === undefined && this.apiError !== undefined)
      this.state.pendingError = this.classify(this.apiError);
    return super.finish(end);
  }

  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
    switch (value['type']) {
      case 'system':
        return this.system(value);
      case 'assistant':
        return this.assistant(value);
      case 'user': {
        const line = UserLine.safeParse(value);
        return line.success ? userContentEvents(line.data.message.content, this.toolNames) : null;
      }
      case 'stream_event':
        return partialMessageEvents(value);
      case 'result':
        return this.result(value);
      default:
        return null;
    }
  }

  private system(value: Record<string, unknown>): AgentEvent[] | null {
    const line = SystemLine.safeParse(value);
    if (!line.success) return null;
    const data = line.data;
    const subtype = data.subtype ?? 'system';
    if (subtype !== 'init') return [ev({ kind: 'progress', stage: subtype })];
    this.cwd = data.cwd ?? this.cwd;
    this.model = data.model ?? this.model;
    const tools = data.tools?.length;
    const detail = [data.model, tools === undefined ? undefined : `${tools} tools`, data.permission_mode]
      .filter((part): part is string => typeof part === 'string' && part !== '')
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

  private assistant(value: Record<string, unknown>): AgentEvent[] | null {
    const line = AssistantLine.safeParse(value);
    if (!line.success) return null;
    const { message } = line.data;
    const events: AgentEvent[] = [];
    const blocks =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks ?? []) {
      const text =
        typeof block === 'object' && block !== null
          ? asString((block as { text?: unknown }).text)
          : undefined;
      if (text !== undefined && API_ERROR.test(text)) {
        // A failed model call, reported as if the model had said it.
        this.apiError = text.trim();
        events.push(
          ev({ kind: 'message', role: 'system', text: `error: ${clip(this.apiError, MESSAGE_CHARS)}` }),
        );
        continue;
      }
      const parsed = assistantBlockEvents(
        block,
        (name, input) => toolSummary(name, input, this.cwd),
        this.toolNames,
      );
      if (parsed.text !== undefined) this.state.lastText = parsed.text;
      events.push(...parsed.events);
    }
    if (message.model) this.model = message.model;
    const usage = this.recordUsage(message.id ?? undefined, message.usage ?? undefined);
    if (usage !== undefined) events.push(usage);
    return events;
  }

  /** Records one model call's usage (by message id; text-only lines carry zeros) and returns the total. */
  private recordUsage(id: string | undefined, usage: ApiUsage | undefined): AgentEvent | undefined {
    if (usage === undefined || !hasTokens(usage)) return undefined;
    this.usageByMessage.set(id ?? `anonymous-${this.usageByMessage.size}`, usage);
    const totals = usageOf(
      sumCounts([...this.usageByMessage.values()].map(countsFrom)),
      this.usageByMessage.size,
    );
    return ev({
      kind: 'usage',
      usage: withEstimatedCost(totals, this.model ?? this.requestedModel, this.prices),
    });
  }

  private result(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ResultLine.safeParse(value);
    if (!line.success) return null;
    const data = line.data;
    const turns = data.num_turns ?? this.usageByMessage.size;
    // A result without a usage object keeps what the assistant messages reported (or nothing).
    const counts =
      data.usage !== undefined && data.usage !== null
        ? countsFrom(data.usage)
        : this.usageByMessage.size > 0
          ? sumCounts([...this.usageByMessage.values()].map(countsFrom))
          : undefined;
    const usage = withEstimatedCost(
      counts === undefined ? { ...emptyUsage(), turns } : usageOf(counts, turns),
      this.model ?? this.requestedModel,
      this.prices,
    );
    // Before 0.24 a failed model call ended in a "success" result whose text is the API error.
    const apiErrorResult = data.result !== undefined && data.result !== null && API_ERROR.test(data.result);
    if (data.is_error !== true && !apiErrorResult) {
      const text = data.result ?? undefined;
      return [
        ev({ kind: 'usage', usage }),
        ev({
          kind: 'completed',
          ...(text === undefined ? {} : { result: clip(text, MESSAGE_CHARS) }),
          usage,
        }),
      ];
    }
    const reason = data.error?.message ?? this.apiError ?? data.result ?? '';
    const error =
      data.subtype === 'error_max_turns'
        ? {
            kind: 'AgentFailed' as const,
            message: `${DISPLAY_NAME} stopped at its turn limit`,
            hint: 'Raise max_turns for qwen in hydra.toml, or drop it.',
          }
        : this.classify(reason, data.subtype ?? undefined);
    return [ev({ kind: 'usage', usage }), ev({ kind: 'failed', error, usage })];
  }

  private classify(reason: string, subtype?: string): ErrorInfo {
    const status = statusOf(reason);
    const detail = reason === '' ? '' : `: ${oneLine(reason, 240)}`;
    if (NOT_SIGNED_IN.test(reason))
      return {
        kind: 'AuthMissing',
        message: `${DISPLAY_NAME} is not signed in to any model provider${detail}`,
        hint: SIGN_IN_HINT,
      };
    if (status === 401 || status === 403 || looksLikeAuthFailure(reason))
      return {
        kind: 'AuthMissing',
        message: `${DISPLAY_NAME} could not authenticate${status === undefined ? '' : ` (HTTP ${status})`}${detail}`,
        hint: SIGN_IN_HINT,
      };
    if (status !== undefined && status >= 500)
      return {
        kind: 'AgentFailed',
        message: `${DISPLAY_NAME} hit an API server error (HTTP ${status})${detail}`,
        hint: 'The model provider failed (Qwen Code retried it for about a minute); try again later.',
      };
    return {
      kind: 'AgentFailed',
      message: `${DISPLAY_NAME} reported an error (${subtype ?? (status === undefined ? 'error' : `HTTP ${status}`)})${detail}`,
      hint: "See the run record for the agent's output.",
    };
  }
}

export const qwenAdapter: AgentAdapter = {
  id: ID,
  displayName: DISPLAY_NAME,
  tier: 'tier1',
  inDefaultRace: false,
  aliases: ['qwen-code'],
  binaries: ['qwen'],
  installHint: INSTALL_HINT,
  signInHint: SIGN_IN_HINT,
  prices: QWEN_PRICES,
  demo: { lineDelayMs: 900 },
  probe,
  validateModel: (model): AdapterError | null => checkModelName(ID, model),
  buildCommand,
  createParser: (options = {}) => new QwenParser(options),
};
