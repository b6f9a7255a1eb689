/**
 * Gemini CLI (`gemini`, tier 1, raced when named): headless runs with `--output-format stream-json`.
 *
 * Everything is read from the probed help, because the flags drifted: stream-json appeared in
 * 0.11; `-p/--prompt` was deprecated in favour of a positional prompt from 0.5 to 0.2x and became
 * the headless flag again in 0.30; `--skip-trust` arrived in 0.40, whose releases refuse to run
 * headless in a folder they do not trust (every hydra worktree is new to them).
 *
 * Prompts: `--prompt=<prompt>` (one argument, so a leading dash is data), or stdin from a file for
 * long prompts and for versions whose -p is deprecated (those print the deprecation notice into
 * the stream as assistant text). Neither `-- <prompt>` nor a positional prompt works: yargs keeps
 * what follows `--` out of the positional, and 0.1x reads a dash-led positional as options.
 *
 * Permissions: `--approval-mode auto_edit` lets it edit files in its worktree without asking while
 * shell commands still need approval (which a headless run cannot give, so they are refused);
 * `--unsafe` switches to `--approval-mode yolo`.
 *
 * Follow-ups: `--resume` takes the session id from the `init` line. Its help says "latest" or an
 * index, but every release that has the flag (0.15 and later) also looks the session up by id.
 */
import { z } from 'zod';
import type { AdapterError } from './errors.js';
import { emptyUsage, ev } from '../core/events.js';
import type { AgentEvent, CompletedEvent, ErrorInfo, FailedEvent, Usage } from '../core/events.js';
import type { RunState } from './finish.js';
import { compareVersions, hasFlag, optionText, parseHelpFlags } from './help-flags.js';
import { JsonLineParser } from './json-line-parser.js';
import { checkModelName, isDefaultModel } from './model-name.js';
import { estimateCost, mergePrices, priceFor, withEstimatedCost } from './prices.js';
import { probeError, runStep, unreadableVersion, verifiedCapabilities, versionOf } from './probe-steps.js';
import type { ProbeContext } from './probe-steps.js';
import { deliverPrompt } from './prompt-delivery.js';
import {
  asString,
  clip,
  compactJson,
  firstLine,
  MESSAGE_CHARS,
  oneLine,
  OUTPUT_CHARS,
  relativePath,
} from '../core/text.js';
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

const ID = 'gemini';
const DISPLAY_NAME = 'Gemini CLI';
const INSTALL_HINT = 'npm install -g @google/gemini-cli';
const SIGN_IN_HINT =
  'Set GEMINI_API_KEY in the environment (or hydra.toml [agents.gemini.env]), or run `gemini` once and sign in with Google.';

/**
 * 0.11.x, the first releases with stream-json, end a run whose API call failed with a result of
 * status "success" and exit 0: a failure looks like a success. 0.12.0 reports it as an error.
 */
export const GEMINI_MIN_VERSION = '0.12.0';

const google = (input: number, output: number): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheReadPerMTok: input / 10,
});

/**
 * Google's paid-tier prices (USD per million tokens) for prompts up to 200k tokens; longer
 * prompts cost more on the Pro models. Gemini CLI reports tokens per model but no cost. Models
 * missing here (the CLI's newer flash and flash-lite releases, Gemma) leave the cost unknown
 * unless hydra.toml `[prices]` names them.
 */
export const GEMINI_PRICES: PriceTable = {
  'gemini-3.1-pro-preview': google(2, 12),
  'gemini-3-pro-preview': google(2, 12),
  'gemini-3-flash-preview': google(0.5, 3),
  'gemini-2.5-pro': google(1.25, 10),
  'gemini-2.5-flash': google(0.3, 2.5),
  'gemini-2.5-flash-lite': google(0.1, 0.4),
  'gemini-2.0-flash': google(0.1, 0.4),
  'gemini-2.0-flash-lite': google(0.075, 0.3),
};

// ---------------------------------------------------------------------------------------------
// Probe

/** Features derived from `gemini --help`. */
export const geminiFeatures = (flags: readonly string[], help: string, version: string | null) => {
  const prompt = hasFlag(flags, '-p', '--prompt');
  return {
    streamJson: /stream-json/.test(optionText(help, '--output-format')),
    approvalMode: /auto_edit/.test(optionText(help, '--approval-mode')),
    yolo: hasFlag(flags, '-y', '--yolo'),
    // "[deprecated: Use the positional prompt instead ...]" (0.5 to 0.2x).
    promptFlag: prompt && !/deprecated/i.test(optionText(help, '--prompt')),
    skipTrust: hasFlag(flags, '--skip-trust'),
    model: hasFlag(flags, '-m', '--model'),
    resume: hasFlag(flags, '-r', '--resume'),
    versionKnown: version !== null,
  };
};

/**
 * The line that is only a version number (`0.61.0`), so that a warning printed before it (a Node
 * deprecation naming `v20.20.2`, say) is not taken for the CLI's version.
 */
export const versionLine = (stdout: string): string | null => {
  const lines = stdout.split(/\r?\n/).map((line) => line.trim());
  const found = lines.reverse().find((line) => /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(line));
  return found === undefined ? null : found.replace(/^v/, '');
};

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
  const version = versionLine(versionStep.output.stdout) ?? versionOf(versionStep);
  const flags = parseHelpFlags(helpStep.text);
  const features = geminiFeatures(flags, helpStep.text, version);
  const capabilities = verifiedCapabilities(ID, binary, version, flags, features);
  if (version === null)
    return { ok: false, capabilities, error: unreadableVersion(context, versionStep.output) };
  const missing = [
    !features.streamJson && '--output-format stream-json',
    !features.approvalMode && '--approval-mode auto_edit',
  ].filter((flag): flag is string => flag !== false);
  if (missing.length > 0) {
    return {
      ok: false,
      capabilities,
      error: probeError(
        context,
        'UnsupportedFlag',
        `Gemini CLI ${version} lacks ${missing.join(' and ')}, which hydra needs to follow a headless run that edits files`,
        `Upgrade it: ${INSTALL_HINT}`,
        ['--help'],
        helpStep.output,
      ),
    };
  }
  if (compareVersions(version, GEMINI_MIN_VERSION) < 0) {
    return {
      ok: false,
      capabilities,
      error: probeError(
        context,
        'UnsupportedVersion',
        `Gemini CLI ${version} reports a failed API call as a successful result (exit 0); hydra needs ${GEMINI_MIN_VERSION} or later to tell them apart`,
        `Upgrade it: ${INSTALL_HINT}`,
        ['--version'],
        versionStep.output,
      ),
    };
  }
  if (!features.promptFlag)
    capabilities.warnings.push(
      `Gemini CLI ${version} has deprecated -p/--prompt: hydra sends the prompt on stdin (the CLI appends two newlines to it).`,
    );
  if (!features.resume)
    capabilities.warnings.push(`Gemini CLI ${version} has no --resume: a follow-up starts a new session.`);
  return { ok: true, capabilities };
};

// ---------------------------------------------------------------------------------------------
// Command

const buildCommand = (request: SpawnRequest, capabilities: Capabilities): BuiltCommand => {
  const features = capabilities.features;
  const args = ['--output-format', 'stream-json', '--approval-mode', request.unsafe ? 'yolo' : 'auto_edit'];
  // A new worktree is a folder Gemini CLI has never trusted; 0.40 and later refuse to run there.
  if (features['skipTrust'] === true) args.push('--skip-trust');
  if (!isDefaultModel(request.model) && request.model !== undefined) args.push('--model', request.model);
  // The id is the CLI's own session UUID (never dash-led), so it can be a separate argument.
  if (request.resumeSessionId !== undefined && features['resume'] === true)
    args.push('--resume', request.resumeSessionId);
  args.push(...request.extraArgs);
  // Without a prompt argument, stdin that is not a terminal is the prompt (a headless run).
  const prompt = deliverPrompt(request.prompt, request.scratchDir, {
    stdinArgs: [],
    forceStdin: features['promptFlag'] === false,
  });
  // yargs has no `--` for an option's value: the prompt travels as one `--prompt=<prompt>` argument.
  if (prompt.via === 'argv') args.push(`--prompt=${request.prompt}`);
  return {
    file: capabilities.binary,
    args,
    env: { ...request.env },
    cwd: request.cwd,
    files: prompt.via === 'stdin' ? prompt.files : [],
    ...(prompt.via === 'stdin' ? { stdinFile: prompt.stdinFile } : {}),
  };
};

// ---------------------------------------------------------------------------------------------
// Stream schemas (loose: unknown fields pass through and are ignored)

const count = z.number().nullish();

const TokenStats = z.looseObject({
  total_tokens: count,
  input_tokens: count,
  output_tokens: count,
  /** 0.30 and later: cached prompt tokens, and the uncached rest (`input`). */
  cached: count,
  input: count,
});

const StatsSchema = TokenStats.extend({
  tool_calls: count,
  /** 0.4x and later: the same figures per model (side calls on other models included). */
  models: z.record(z.string(), TokenStats).nullish(),
});

const InitLine = z.looseObject({
  type: z.literal('init'),
  session_id: z.string().nullish(),
  model: z.string().nullish(),
});

const MessageLine = z.looseObject({
  type: z.literal('message'),
  role: z.string(),
  content: z.string().nullish(),
  delta: z.boolean().nullish(),
});

const ToolUseLine = z.looseObject({
  type: z.literal('tool_use'),
  tool_name: z.string(),
  tool_id: z.string(),
  parameters: z.unknown().optional(),
});

const ToolResultLine = z.looseObject({
  type: z.literal('tool_result'),
  tool_id: z.string(),
  status: z.string().nullish(),
  output: z.string().nullish(),
  error: z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

const ErrorLine = z.looseObject({
  type: z.literal('error'),
  severity: z.string().nullish(),
  message: z.string().nullish(),
});

const ResultLine = z.looseObject({
  type: z.literal('result'),
  status: z.string().nullish(),
  error: z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }).nullish(),
  stats: StatsSchema.nullish(),
});

// ---------------------------------------------------------------------------------------------
// Parser

type TokenFigures = z.infer<typeof TokenStats>;

/**
 * Hydra's usage from one set of token figures. `input_tokens` counts cached tokens too;
 * `output_tokens` leaves out thinking tokens, which are billed as output and only show in
 * `total_tokens`.
 */
const usageOf = (figures: TokenFigures, turns: number): Usage => {
  const prompt = figures.input_tokens ?? 0;
  const cached = figures.cached ?? 0;
  const output = figures.output_tokens ?? 0;
  const thinking = Math.max(0, (figures.total_tokens ?? 0) - prompt - output);
  return {
    ...emptyUsage(),
    inputTokens: figures.input ?? Math.max(0, prompt - cached),
    cacheReadTokens: cached,
    // The API caches implicitly: nothing is written to a cache at a price.
    cacheWriteTokens: 0,
    outputTokens: output + thinking,
    turns,
  };
};

/** Model aliases the CLI resolves itself ("auto", "auto-gemini-3", "pro", "flash"): not priceable. */
const isAlias = (model: string): boolean => !model.startsWith('gemini-') && !model.startsWith('gemma-');

/** The sum of each model's cost, or unknown when any model that used tokens has no price. */
const costOfModels = (
  models: Record<string, TokenFigures>,
  prices: PriceTable,
): Pick<Usage, 'costUsd' | 'costSource'> => {
  const used = Object.entries(models).filter(([, figures]) => (figures.total_tokens ?? 0) > 0);
  let cost = 0;
  for (const [model, figures] of used) {
    const price = priceFor(model, prices);
    if (price === undefined) return { costUsd: null, costSource: 'unknown' };
    cost += estimateCost(usageOf(figures, 0), price);
  }
  return used.length === 0
    ? { costUsd: null, costSource: 'unknown' }
    : { costUsd: Math.round(cost * 1e6) / 1e6, costSource: 'estimated' };
};

/** One terminal line for a tool call, by Gemini CLI's tool names. */
const toolSummary = (name: string, input: unknown, cwd: string | undefined): string => {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const path =
    asString(fields['file_path']) ??
    asString(fields['absolute_path']) ??
    asString(fields['dir_path']) ??
    asString(fields['path']);
  const shown = path === undefined ? '' : relativePath(path, cwd);
  switch (name) {
    case 'write_file':
      return oneLine(`Write ${shown}`);
    case 'replace':
      return oneLine(`Edit ${shown}`);
    case 'read_file':
      return oneLine(`Read ${shown}`);
    case 'read_many_files':
      return oneLine(`Read ${compactJson(fields['paths'] ?? fields['include'])}`);
    case 'list_directory':
      return oneLine(`List ${shown}`);
    case 'run_shell_command':
      return oneLine(`$ ${asString(fields['command']) ?? ''}`);
    case 'glob':
      return oneLine(`Glob ${asString(fields['pattern']) ?? ''}${shown === '' ? '' : ` in ${shown}`}`);
    case 'search_file_content':
    case 'grep_search':
      return oneLine(`Grep ${asString(fields['pattern']) ?? ''}${shown === '' ? '' : ` in ${shown}`}`);
    case 'web_fetch':
      return oneLine(`Fetch ${asString(fields['url']) ?? asString(fields['prompt']) ?? ''}`);
    case 'google_web_search':
      return oneLine(`Search ${asString(fields['query']) ?? ''}`);
    case 'write_todos': {
      const todos = Array.isArray(fields['todos']) ? fields['todos'].length : 0;
      return `Update todo list (${todos} items)`;
    }
    default:
      return oneLine(`${name} ${compactJson(input)}`);
  }
};

/** `[API Error: {"error":{"code":400,...}}]` → 400. */
const httpStatusIn = (text: string): number | undefined => {
  const match = /"code":\s*(\d{3})\b/.exec(text) ?? /\b(?:status|HTTP)[: ]+(\d{3})\b/i.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
};

/** A rejected or missing credential, in the words of the API and of the CLI. */
const AUTH_TEXT =
  /API_KEY_INVALID|API key not valid|UNAUTHENTICATED|PERMISSION_DENIED|invalid authentication credentials|Please set an Auth method|must specify the GEMINI_API_KEY|Invalid auth method|FatalAuthenticationError/i;

/** Exit code of Gemini CLI's FatalAuthenticationError (no auth method, no key, a failed sign-in). */
const AUTH_EXIT_CODE = 41;

/** What a failed result or a failed end means: sign-in, a server error, another API error. */
const classify = (text: string): ErrorInfo => {
  const status = httpStatusIn(text);
  const detail = oneLine(text, 240);
  if (status === 401 || status === 403 || AUTH_TEXT.test(text)) {
    return {
      kind: 'AuthMissing',
      message: `${DISPLAY_NAME} could not authenticate${status === undefined ? '' : ` (HTTP ${status})`}: ${detail}`,
      hint: SIGN_IN_HINT,
    };
  }
  if (status !== undefined && status >= 500) {
    return {
      kind: 'AgentFailed',
      message: `${DISPLAY_NAME} hit an API server error (HTTP ${status}): ${detail}`,
      hint: 'The model provider failed; try again later.',
    };
  }
  if (status !== undefined) {
    return {
      kind: 'AgentFailed',
      message: `${DISPLAY_NAME} hit an API error (HTTP ${status}): ${detail}`,
      hint: 'See the run record for the full response.',
    };
  }
  return {
    kind: 'AgentFailed',
    message: `${DISPLAY_NAME} reported an error${detail === '' ? '' : `: ${detail}`}`,
    hint: "See the run record for the agent's output.",
  };
};

const API_ERROR_ON_STDERR = /Error when talking to Gemini API/;

class GeminiParser extends JsonLineParser {
  private readonly prices: PriceTable;
  private readonly requestedModel: string | undefined;
  private model: string | undefined;
  private cwd: string | undefined;
  private readonly toolNames = new Map<string, string>();
  /** The assistant text streamed since the last flush (Gemini CLI prints it in deltas only). */
  private text = '';
  /** Model responses seen so far: a response starts with its first text or call after a tool result. */
  private turns = 0;
  private inResponse = false;
  /** The last `error` line of severity error, for a result that names no error of its own. */
  private lastError: string | undefined;
  protected readonly state: RunState = {
    displayName: DISPLAY_NAME,
    sawJson: false,
    authHint: SIGN_IN_HINT,
  };

  constructor(options: ParserOptions) {
    super();
    this.prices = mergePrices(GEMINI_PRICES, options.prices);
    this.requestedModel = isDefaultModel(options.model) ? undefined : options.model;
    this.cwd = options.cwd;
  }

  override finish(end: ProcessEnd): CompletedEvent | FailedEvent {
    const terminal = this.state.terminal;
    // 0.11.x (refused by the probe) says "success" after a failed API call; its stderr tells.
    if (terminal?.kind === 'completed' && this.turns === 0 && API_ERROR_ON_STDERR.test(end.stderrTail)) {
      this.state.terminal = ev({
        kind: 'failed',
        error: {
          kind: 'AgentFailed',
          message: `${DISPLAY_NAME} reported success but the model never answered: ${oneLine(end.stderrTail, 200)}`,
          hint: `Upgrade it (${INSTALL_HINT}); its stderr is shown by \`hydra show ${end.runId}\`.`,
        },
      });
    }
    // No auth method or no key: exit 41 with one sentence on stderr and nothing on stdout.
    if (terminal === undefined && (end.exitCode === AUTH_EXIT_CODE || AUTH_TEXT.test(end.stderrTail))) {
      const said = end.stderrTail
        .split(/\r?\n/)
        .filter((line) => line.trim() !== '')
        .find((line) => AUTH_TEXT.test(line));
      this.state.pendingError = {
        kind: 'AuthMissing',
        message: `${DISPLAY_NAME} is not signed in${said === undefined ? '' : `: ${oneLine(said, 200)}`}`,
        hint: SIGN_IN_HINT,
      };
    }
    return super.finish(end);
  }

  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
    switch (value['type']) {
      case 'init':
        return this.init(value);
      case 'message':
        return this.message(value);
      case 'tool_use':
        return this.toolUse(value);
      case 'tool_result':
        return this.toolResult(value);
      case 'error':
        return this.error(value);
      case 'result':
        return this.result(value);
      default:
        return null;
    }
  }

  private init(value: Record<string, unknown>): AgentEvent[] | null {
    const line = InitLine.safeParse(value);
    if (!line.success) return null;
    const { session_id: sessionId, model } = line.data;
    if (model && !isAlias(model)) this.model = model;
    return [
      ev({
        kind: 'progress',
        stage: 'init',
        ...(model ? { detail: model, model } : {}),
        ...(sessionId ? { sessionId } : {}),
      }),
    ];
  }

  private message(value: Record<string, unknown>): AgentEvent[] | null {
    const line = MessageLine.safeParse(value);
    if (!line.success) return null;
    const text = line.data.content ?? '';
    if (line.data.role === 'user') {
      return text === '' ? [] : [ev({ kind: 'message', role: 'user', text: clip(text, MESSAGE_CHARS) })];
    }
    if (line.data.role !== 'assistant') return null;
    this.startResponse();
    if (line.data.delta !== true) return [...this.flush(), ...this.fullMessage(text)];
    if (text === '') return [];
    this.text = clip(this.text + text, MESSAGE_CHARS);
    return [ev({ kind: 'message', role: 'assistant', text: clip(text, MESSAGE_CHARS), partial: true })];
  }

  private toolUse(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ToolUseLine.safeParse(value);
    if (!line.success) return null;
    const { tool_id: id, tool_name: name, parameters: input } = line.data;
    this.startResponse();
    this.toolNames.set(id, name);
    return [
      ...this.flush(),
      ev({ kind: 'tool_call', id, name, summary: toolSummary(name, input, this.cwd), input }),
    ];
  }

  private toolResult(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ToolResultLine.safeParse(value);
    if (!line.success) return null;
    const { tool_id: id, status, output, error } = line.data;
    this.inResponse = false;
    const ok = status === 'success';
    const text = output ?? error?.message ?? '';
    const name = this.toolNames.get(id);
    return [
      ...this.flush(),
      ev({
        kind: 'tool_result',
        id,
        ...(name === undefined ? {} : { name }),
        ok,
        summary: firstLine(text) || (ok ? 'done' : 'failed'),
        ...(text === '' ? {} : { output: clip(text, OUTPUT_CHARS) }),
      }),
    ];
  }

  /** `error` lines are warnings the run survives (a loop, the turn limit); the result line follows. */
  private error(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ErrorLine.safeParse(value);
    if (!line.success) return null;
    const severity = line.data.severity ?? 'error';
    const message = line.data.message ?? '';
    if (severity === 'error') this.lastError = message;
    return [
      ...this.flush(),
      ev({ kind: 'message', role: 'system', text: clip(`${severity}: ${message}`, MESSAGE_CHARS) }),
    ];
  }

  private result(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ResultLine.safeParse(value);
    if (!line.success) return null;
    const events = this.flush();
    const usage = this.usage(line.data.stats ?? undefined);
    events.push(ev({ kind: 'usage', usage }));
    if (line.data.status === 'success') {
      const result = this.state.lastText;
      events.push(ev({ kind: 'completed', ...(result === undefined ? {} : { result }), usage }));
      return events;
    }
    const error = line.data.error;
    const text = [error?.message ?? this.lastError ?? '', error?.type ?? ''].join(' ').trim();
    events.push(ev({ kind: 'failed', error: classify(text), usage }));
    return events;
  }

  private usage(stats: z.infer<typeof StatsSchema> | undefined): Usage {
    const total = usageOf(stats ?? {}, this.turns);
    const models = stats?.models;
    if (models !== undefined && models !== null && Object.keys(models).length > 0)
      return { ...total, ...costOfModels(models, this.prices) };
    return withEstimatedCost(total, this.model ?? this.requestedModel, this.prices);
  }

  private startResponse(): void {
    if (this.inResponse) return;
    this.inResponse = true;
    this.turns += 1;
  }

  /** The assistant text streamed so far as one whole message, when there is any. */
  private flush(): AgentEvent[] {
    const text = this.text;
    this.text = '';
    return this.fullMessage(text);
  }

  private fullMessage(text: string): AgentEvent[] {
    if (text.trim() === '') return [];
    this.state.lastText = clip(text, MESSAGE_CHARS);
    return [ev({ kind: 'message', role: 'assistant', text: this.state.lastText })];
  }
}

export const geminiAdapter: AgentAdapter = {
  id: ID,
  displayName: DISPLAY_NAME,
  tier: 'tier1',
  inDefaultRace: false,
  aliases: ['gemini-cli'],
  binaries: ['gemini'],
  installHint: INSTALL_HINT,
  signInHint: SIGN_IN_HINT,
  prices: GEMINI_PRICES,
  demo: { lineDelayMs: 700 },
  probe,
  validateModel: (model): AdapterError | null => checkModelName(ID, model),
  buildCommand,
  createParser: (options = {}) => new GeminiParser(options),
};
