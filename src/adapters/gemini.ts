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
import {
  message,
  toolResult,
  CliParser,
  commandOf,
  defineAdapter,
  estimateCost,
  modelArgs,
  priceFor,
  probeCli,
  resumeArgs,
} from './kit/index.js';
import { MODEL_FLAG, resumeFlag, clip, emptyUsage, ev, MESSAGE_CHARS, oneLine, z } from './kit/index.js';
import type {
  AgentEvent,
  BuildCommand,
  CliFacts,
  CompletedEvent,
  FailedEvent,
  ModelPrice,
  PriceTable,
  ProcessEnd,
  ToolTable,
  Usage,
} from './kit/index.js';

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

/** A rejected or missing credential, in the words of the API and of the CLI. */
const AUTH_TEXT =
  /API_KEY_INVALID|API key not valid|UNAUTHENTICATED|PERMISSION_DENIED|invalid authentication credentials|Please set an Auth method|must specify the GEMINI_API_KEY|Invalid auth method|FatalAuthenticationError/i;

/** Its tools' lines (what the dashboard shows for a call). */
const TOOLS: ToolTable = {
  shell: ['run_shell_command'],
  path: [
    ['write_file', 'Write'],
    ['replace', 'Edit'],
    ['read_file', 'Read'],
    ['list_directory', 'List'],
  ],
  pattern: [
    ['glob', 'Glob'],
    ['search_file_content', 'Grep'],
    ['grep_search', 'Grep'],
  ],
  paths: ['read_many_files'],
  fetch: ['web_fetch'],
  search: ['google_web_search'],
  todos: ['write_todos'],
};

const CLI: CliFacts = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  installHint: 'npm install -g @google/gemini-cli',
  signInHint:
    'Set GEMINI_API_KEY in the environment (or hydra.toml [agents.gemini.env]), or run `gemini` once and sign in with Google.',
  prices: GEMINI_PRICES,
  failures: { authText: AUTH_TEXT },
  tools: TOOLS,
};

const probe = probeCli(CLI, {
  /** The flags hydra uses, as `gemini --help` lists them. */
  flags: {
    streamJson: {
      flags: ['-o', '--output-format'],
      says: /stream-json/,
      means: 'to follow the run',
    },
    approvalMode: {
      flags: ['--approval-mode'],
      says: /auto_edit/,
      means: 'to edit files without asking',
    },
    yolo: { flags: ['-y', '--yolo'], means: 'approve everything' },
    // "[deprecated: Use the positional prompt instead ...]" (0.5 to 0.2x).
    promptFlag: {
      flags: ['-p', '--prompt'],
      saysNot: /deprecated/i,
      means: 'the prompt as one `--prompt=` argument',
    },
    skipTrust: { flags: ['--skip-trust'], means: 'a headless run in a folder it has not trusted yet' },
    model: MODEL_FLAG,
    resume: resumeFlag('-r', '--resume'),
  },
  requires: [['streamJson'], ['approvalMode']],
  minVersion: {
    version: GEMINI_MIN_VERSION,
    problem: 'reports a failed API call as a successful result (exit 0), so a failure cannot be told apart',
  },
  warnings: [
    {
      when: (has) => !has.promptFlag,
      text: 'has deprecated -p/--prompt: hydra sends the prompt on stdin (the CLI appends two newlines to it).',
    },
    { when: (has) => !has.resume, text: 'has no --resume: a follow-up starts a new session.' },
  ],
});

const buildCommand: BuildCommand = (request, capabilities) => {
  const features = capabilities.features;
  const args = ['--output-format', 'stream-json', '--approval-mode', request.unsafe ? 'yolo' : 'auto_edit'];
  // A new worktree is a folder Gemini CLI has never trusted; 0.40 and later refuse to run there.
  if (features['skipTrust'] === true) args.push('--skip-trust');
  // The id is the CLI's own session UUID (never dash-led), so it can be a separate argument.
  args.push(...modelArgs(request), ...resumeArgs(request, capabilities, '--resume'));
  // yargs has no `--` for an option's value: the prompt travels as one `--prompt=<prompt>` argument;
  // without a prompt argument, stdin that is not a terminal is the prompt (a headless run).
  const prompt = { forceStdin: features['promptFlag'] === false, argvFlag: '--prompt' };
  return commandOf(request, capabilities, { args, prompt });
};

/** Exit code of Gemini CLI's FatalAuthenticationError (no auth method, no key, a failed sign-in). */
const AUTH_EXIT_CODE = 41;

/** What 0.11.x printed on stderr when it called a failed API call a success. */
const API_ERROR_ON_STDERR = /Error when talking to Gemini API/;

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
const ErrorShape = z.looseObject({ type: z.string().nullish(), message: z.string().nullish() }).nullish();
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
  error: ErrorShape,
});
const ErrorLine = z.looseObject({
  type: z.literal('error'),
  severity: z.string().nullish(),
  message: z.string().nullish(),
});
const ResultLine = z.looseObject({
  type: z.literal('result'),
  status: z.string().nullish(),
  error: ErrorShape,
  stats: StatsSchema.nullish(),
});

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

class GeminiParser extends CliParser {
  /** The assistant text streamed since the last flush (Gemini CLI prints it in deltas only). */
  private text = '';
  /** Model responses seen so far: a response starts with its first text or call after a tool result. */
  private turns = 0;
  private inResponse = false;
  /** The last `error` line of severity error, for a result that names no error of its own. */
  private lastError: string | undefined;

  override finish(end: ProcessEnd): CompletedEvent | FailedEvent {
    const terminal = this.state.terminal;
    // 0.11.x (refused by the probe) says "success" after a failed API call; its stderr tells.
    if (terminal?.kind === 'completed' && this.turns === 0 && API_ERROR_ON_STDERR.test(end.stderrTail)) {
      const message = `${CLI.displayName} reported success but the model never answered: ${oneLine(end.stderrTail, 200)}`;
      const hint = `Upgrade it (${CLI.installHint}); its stderr is shown by \`hydra show ${end.runId}\`.`;
      this.state.terminal = ev({ kind: 'failed', error: { kind: 'AgentFailed', message, hint } });
    }
    // No auth method or no key: exit 41 with one sentence on stderr and nothing on stdout.
    if (terminal === undefined && (end.exitCode === AUTH_EXIT_CODE || AUTH_TEXT.test(end.stderrTail))) {
      const said = end.stderrTail.split(/\r?\n/).find((line) => line.trim() !== '' && AUTH_TEXT.test(line));
      const message = `${CLI.displayName} is not signed in${said === undefined ? '' : `: ${oneLine(said, 200)}`}`;
      this.state.pendingError = { kind: 'AuthMissing', message, hint: CLI.signInHint };
    }
    return super.finish(end);
  }

  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
    switch (value['type']) {
      case 'init': {
        const line = InitLine.safeParse(value);
        if (!line.success) return null;
        const { session_id: sessionId, model } = line.data;
        if (model && !isAlias(model)) this.model = model;
        return [this.init(sessionId, model, model ?? undefined)];
      }
      case 'message':
        return this.messageLine(value);
      case 'tool_use':
        return this.toolUse(value);
      case 'tool_result':
        return this.toolResult(value);
      case 'error': {
        // Warnings the run survives (a loop, the turn limit); the result line follows.
        const line = ErrorLine.safeParse(value);
        if (!line.success) return null;
        const severity = line.data.severity ?? 'error';
        const said = line.data.message ?? '';
        if (severity === 'error') this.lastError = said;
        return [...this.flush(), message('system', `${severity}: ${said}`)];
      }
      case 'result':
        return this.result(value);
      default:
        return null;
    }
  }

  private messageLine(value: Record<string, unknown>): AgentEvent[] | null {
    const line = MessageLine.safeParse(value);
    if (!line.success) return null;
    const text = line.data.content ?? '';
    if (line.data.role === 'user') return text === '' ? [] : [message('user', text)];
    if (line.data.role !== 'assistant') return null;
    this.startResponse();
    if (line.data.delta !== true) return [...this.flush(), ...this.fullMessage(text)];
    if (text === '') return [];
    this.text = clip(this.text + text, MESSAGE_CHARS);
    return [message('assistant', text, { partial: true })];
  }

  private toolUse(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ToolUseLine.safeParse(value);
    if (!line.success) return null;
    const { tool_id: id, tool_name: name, parameters: input } = line.data;
    this.startResponse();
    this.toolNames.set(id, name);
    return [
      ...this.flush(),
      ev({ kind: 'tool_call', id, name, summary: this.summarize(name, input), input }),
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
    return [...this.flush(), toolResult(id, name, ok, text)];
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
    events.push(ev({ kind: 'failed', error: this.classify({ text }), usage }));
    return events;
  }

  private usage(stats: z.infer<typeof StatsSchema> | undefined): Usage {
    const total = usageOf(stats ?? {}, this.turns);
    const models = stats?.models;
    if (models !== undefined && models !== null && Object.keys(models).length > 0)
      return { ...total, ...costOfModels(models, this.prices) };
    return this.priced(total);
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
    this.answer(clip(text, MESSAGE_CHARS));
    return [message('assistant', text)];
  }
}

export const geminiAdapter = defineAdapter({
  ...CLI,
  tier: 'tier1',
  inDefaultRace: false,
  aliases: ['gemini-cli'],
  binaries: ['gemini'],
  stateDirs: [{ path: '.gemini' }],
  api: {
    hosts: [
      'generativelanguage.googleapis.com',
      'cloudcode-pa.googleapis.com',
      'oauth2.googleapis.com',
      'accounts.google.com',
    ],
    baseUrlEnv: ['GOOGLE_GEMINI_BASE_URL'],
  },
  demo: { lineDelayMs: 700 },
  probe,
  buildCommand,
  createParser: (options) => new GeminiParser(CLI, options),
});
