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
 * `--unsafe` and a race in hydra's OS sandbox switch to `--approval-mode yolo`. In the sandbox,
 * GEMINI_SANDBOX=false keeps its own (docker, podman, sandbox-exec) off, whatever its settings say.
 *
 * Follow-ups: `--resume` takes the session id from the `init` line. Its help says "latest" or an
 * index, but every release that has the flag (0.15 and later) also looks the session up by id.
 */
import { probeCli, GEMINI_FAMILY_FLAGS } from './kit/index.js';
import { defineAdapter, commandOf, fullAutonomy, modelArgs, resumeArgs } from './kit/index.js';
import { CliParser, rule, z, tagged, str, num, bool, json } from './kit/index.js';
import { ev, message, partialMessage, toolCall, completed, emptyUsage, costByModel } from './kit/index.js';
import { clip, MESSAGE_CHARS, oneLine } from './kit/index.js';
import type {
  AgentEvent,
  BuildCommand,
  CliFacts,
  CompletedEvent,
  FailedEvent,
  ProcessEnd,
  ToolTable,
  Usage,
} from './kit/index.js';

/**
 * 0.11.x, the first releases with stream-json, end a run whose API call failed with a result of
 * status "success" and exit 0: a failure looks like a success. 0.12.0 reports it as an error.
 */
export const GEMINI_MIN_VERSION = '0.12.0';

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
  failures: { authText: AUTH_TEXT },
  tools: TOOLS,
};

const probe = probeCli(CLI, {
  /** The flags hydra uses, as `gemini --help` lists them. */
  flags: {
    ...GEMINI_FAMILY_FLAGS,
    approvalMode: { flags: ['--approval-mode'], says: /auto_edit/, means: 'to edit files without asking' },
    // "[deprecated: Use the positional prompt instead ...]" (0.5 to 0.2x).
    promptFlag: { ...GEMINI_FAMILY_FLAGS.promptFlag, saysNot: /deprecated/i },
    skipTrust: { flags: ['--skip-trust'], means: 'a headless run in a folder it has not trusted yet' },
  },
  requires: [['streamJson'], ['approvalMode']],
  minVersion: {
    version: GEMINI_MIN_VERSION,
    problem: 'reports a failed API call as a successful result (exit 0), so a failure cannot be told apart',
  },
  lacking: {
    promptFlag:
      'has deprecated -p/--prompt: hydra sends the prompt on stdin (the CLI appends two newlines to it).',
    resume: 'has no --resume: a follow-up starts a new session.',
  },
});

const buildCommand: BuildCommand = (request, capabilities) => {
  const features = capabilities.features;
  const mode = fullAutonomy(request) ? 'yolo' : 'auto_edit';
  const args = ['--output-format', 'stream-json', '--approval-mode', mode];
  // A new worktree is a folder Gemini CLI has never trusted; 0.40 and later refuse to run there.
  if (features['skipTrust'] === true) args.push('--skip-trust');
  // The id is the CLI's own session UUID (never dash-led), so it can be a separate argument.
  args.push(...modelArgs(request), ...resumeArgs(request, capabilities, '--resume'));
  // yargs has no `--` for an option's value: the prompt travels as one `--prompt=<prompt>` argument;
  // without a prompt argument, stdin that is not a terminal is the prompt (a headless run).
  const prompt = { forceStdin: features['promptFlag'] === false, argvFlag: '--prompt' };
  const env: Record<string, string> = request.sandboxed === true ? { GEMINI_SANDBOX: 'false' } : {};
  return commandOf(request, capabilities, { args, prompt, env });
};

/** Exit code of Gemini CLI's FatalAuthenticationError (no auth method, no key, a failed sign-in). */
const AUTH_EXIT_CODE = 41;

/** What 0.11.x printed on stderr when it called a failed API call a success. */
const API_ERROR_ON_STDERR = /Error when talking to Gemini API/;

// ---------------------------------------------------------------------------------------------
// Stream schemas (loose: unknown fields pass through and are ignored)

const TokenStats = z.looseObject({
  total_tokens: num,
  input_tokens: num,
  output_tokens: num,
  /** 0.30 and later: cached prompt tokens, and the uncached rest (`input`). */
  cached: num,
  input: num,
});
const StatsSchema = TokenStats.extend({
  tool_calls: num,
  /** 0.4x and later: the same figures per model (side calls on other models included). */
  models: z.record(z.string(), TokenStats).nullish(),
});
const ErrorShape = z.looseObject({ type: str, message: str }).nullish();
const InitLine = tagged('init', { session_id: str, model: str });
const MessageLine = tagged('message', { role: z.string(), content: str, delta: bool });
const ToolUseLine = tagged('tool_use', { tool_name: z.string(), tool_id: z.string(), parameters: json });
const ToolResultLine = tagged('tool_result', {
  tool_id: z.string(),
  status: str,
  output: str,
  error: ErrorShape,
});
const ErrorLine = tagged('error', { severity: str, message: str });
const ResultLine = tagged('result', { status: str, error: ErrorShape, stats: StatsSchema.nullish() });

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

class GeminiParser extends CliParser {
  /** The assistant text streamed since the last flush (Gemini CLI prints it in deltas only). */
  private text = '';
  /** Model responses seen so far: a response starts with its first text or call after a tool result. */
  private turns = 0;
  private inResponse = false;
  /** The last `error` line of severity error, for a result that names no error of its own. */
  private lastError: string | undefined;

  protected override readonly lines = {
    init: rule(InitLine, ({ session_id: sessionId, model }) => {
      if (model && !isAlias(model)) this.model = model;
      return [this.init(sessionId, model, model ?? undefined)];
    }),
    message: rule(MessageLine, (line) => this.messageLine(line)),
    tool_use: rule(ToolUseLine, ({ tool_id: id, tool_name: name, parameters: input }) => {
      this.startResponse();
      this.toolNames.set(id, name);
      return [...this.flush(), toolCall(id, name, this.summarize(name, input), input)];
    }),
    tool_result: rule(ToolResultLine, ({ tool_id: id, status, output, error }) => {
      this.inResponse = false;
      const name = this.toolNames.get(id);
      return [
        ...this.flush(),
        ...this.resultEvents(id, name, status === 'success', output ?? error?.message ?? ''),
      ];
    }),
    // Warnings the run survives (a loop, the turn limit); the result line follows.
    error: rule(ErrorLine, (line) => {
      const severity = line.severity ?? 'error';
      const said = line.message ?? '';
      if (severity === 'error') this.lastError = said;
      return [...this.flush(), message('system', `${severity}: ${said}`)];
    }),
    result: rule(ResultLine, (line) => this.result(line)),
  };

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

  private messageLine(line: z.infer<typeof MessageLine>): AgentEvent[] | null {
    const text = line.content ?? '';
    if (line.role === 'user') return text === '' ? [] : [message('user', text)];
    if (line.role !== 'assistant') return null;
    this.startResponse();
    if (line.delta !== true) return [...this.flush(), ...this.fullMessage(text)];
    if (text === '') return [];
    this.text = clip(this.text + text, MESSAGE_CHARS);
    return [partialMessage(text)];
  }

  private result(line: z.infer<typeof ResultLine>): AgentEvent[] {
    const events = this.flush();
    const usage = this.usage(line.stats ?? undefined);
    events.push(ev({ kind: 'usage', usage }));
    if (line.status === 'success') {
      events.push(completed(this.state.lastText, usage));
      return events;
    }
    const text = [line.error?.message ?? this.lastError ?? '', line.error?.type ?? ''].join(' ').trim();
    events.push(ev({ kind: 'failed', error: this.classify({ text }), usage }));
    return events;
  }

  /** The run's usage; priced per model when the stats split it by model (some models may be unpriced). */
  private usage(stats: z.infer<typeof StatsSchema> | undefined): Usage {
    const total = usageOf(stats ?? {}, this.turns);
    const models = Object.entries(stats?.models ?? {});
    if (models.length === 0) return this.priced(total);
    const used = models.filter(([, figures]) => (figures.total_tokens ?? 0) > 0);
    return {
      ...total,
      ...costByModel(
        used.map(([model, figures]) => [model, usageOf(figures, 0)] as const),
        this.prices,
      ),
    };
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
    this.answer(text);
    return [message('assistant', text)];
  }
}

export const geminiAdapter = defineAdapter({
  ...CLI,
  tier: 'tier1',
  inDefaultRace: false,
  aliases: ['gemini-cli'],
  binaries: ['gemini'],
  // GEMINI_CLI_HOME stands for the home directory in everything it reads and writes (0.61).
  stateDirs: [
    {
      path: '.gemini',
      env: 'GEMINI_CLI_HOME',
      under: '.gemini',
      copy: { variable: 'GEMINI_CLI_HOME', to: '.gemini', skip: ['tmp', 'history'] },
    },
  ],
  api: {
    hosts: [
      'generativelanguage.googleapis.com',
      'cloudcode-pa.googleapis.com',
      'oauth2.googleapis.com',
      'accounts.google.com',
    ],
    baseUrlEnv: ['GOOGLE_GEMINI_BASE_URL'],
  },
  // It loads ~/.gemini/.env into its environment; its settings may name a base URL too.
  endpointFiles: [
    { state: '.gemini', file: '.env' },
    { state: '.gemini', file: 'settings.json' },
  ],
  // Vertex AI too: GOOGLE_CLOUD_PROJECT, GOOGLE_GENAI_USE_VERTEXAI.
  environment: { keys: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], prefixes: ['GEMINI_', 'GOOGLE_'] },
  demo: { lineDelayMs: 700 },
  probe,
  buildCommand,
  createParser: (options) => new GeminiParser(CLI, options),
});
