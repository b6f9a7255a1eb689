/**
 * opencode (`opencode run --format json`): one JSON object per line for each finished part of the
 * session (`step_start`, `text`, `reasoning`, `tool_use`, `step_finish`) and `error` for a failed
 * model call. There is no result line: a step that finishes with reason `stop` is the end of the
 * answer, and opencode exits 1 when the session reported an error.
 *
 * The prompt always goes through stdin (a file the engine writes): `opencode run` joins its
 * positional words after wrapping any word holding a space in double quotes (so the prompt the
 * model sees is not the one typed), yargs turns "0x10" into a number it then crashes on, and 1.0.x
 * drops words after `--`. Stdin arrives byte for byte.
 *
 * Permissions: opencode's own default allows every tool, and a permission it must ask about in
 * `run` is rejected on the spot, which ends the run. Hydra sets `OPENCODE_PERMISSION` to allow
 * edits (the `auto-edit` bargain: edits inside the worktree never stop the race; editing outside it
 * still asks, so is refused) and leaves the other tools to the user's opencode config. `--unsafe`
 * and a race in hydra's OS sandbox add `--auto` (`--dangerously-skip-permissions` in 1.14), which
 * approves everything not denied: in the sandbox a write outside the worktree then reaches the
 * jail, which refuses it, instead of a permission question that would end the run.
 */
import { probeCli, MODEL_FLAG, resumeFlag } from './kit/index.js';
import { defineAdapter, commandOf, fullAutonomy, modelArgs, resumeArgs } from './kit/index.js';
import { CliParser, z } from './kit/index.js';
import { ev, message, completed, emptyUsage, addUsage } from './kit/index.js';
import { clip, compactJson, firstLine, MESSAGE_CHARS, oneLine, OUTPUT_CHARS } from './kit/index.js';
import type { AgentEvent, BuildCommand, CliFacts, Usage } from './kit/index.js';

/** What `OPENCODE_PERMISSION` is set to in normal races: edits never wait for an answer. */
export const OPENCODE_EDIT_PERMISSION = JSON.stringify({ edit: 'allow' });

const CLI: CliFacts = {
  id: 'opencode',
  displayName: 'opencode',
  installHint: 'npm install -g opencode-ai',
  signInHint:
    "Run `opencode auth login` once, or set your provider's API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...) in the environment.",
  // Alibaba's Qwen models (`alibaba/qwen3-coder-plus`) are in the price database as OpenRouter's `qwen/<model>`.
  priceListing: { provider: 'openrouter', prefix: 'qwen/' },
  failures: {
    authText: /ProviderAuthError/,
    retried: 'opencode retried it',
    named: [
      {
        label: /ModelNotFound/i,
        message: 'does not know the model',
        hint: 'Name the model as provider/model (see `opencode models`) in hydra.toml or with --model opencode=<provider/model>.',
      },
    ],
  },
};

const probe = probeCli(CLI, {
  helpArgs: ['run', '--help'],
  /** The flags hydra uses, as `opencode run --help` lists them (on stdout or stderr, by release). */
  flags: {
    // `--format default|json` arrived in 1.0; the 0.x releases print text only.
    jsonFormat: {
      flags: ['--format'],
      says: /json/,
      means: 'to follow the run',
    },
    model: MODEL_FLAG,
    resume: resumeFlag('-s', '--session'),
    auto: { flags: ['--auto'], means: '--unsafe and sandboxed races' },
    skipPermissions: {
      flags: ['--dangerously-skip-permissions'],
      means: '--unsafe and sandboxed races (1.14)',
    },
  },
  requires: [['jsonFormat']],
  warnings: [
    {
      when: (has) => !has.auto && !has.skipPermissions,
      text: 'has neither --auto nor --dangerously-skip-permissions: --unsafe and sandboxed races keep its permission rules.',
    },
  ],
});

const buildCommand: BuildCommand = (request, capabilities) => {
  const features = capabilities.features;
  const args = ['run', '--format', 'json'];
  const env: Record<string, string> = {};
  const full = fullAutonomy(request);
  if (full && features['auto'] === true) args.push('--auto');
  else if (full && features['skipPermissions'] === true) args.push('--dangerously-skip-permissions');
  else env['OPENCODE_PERMISSION'] = OPENCODE_EDIT_PERMISSION;
  args.push(...modelArgs(request), ...resumeArgs(request, capabilities, '--session'));
  return commandOf(request, capabilities, { args, env, prompt: { forceStdin: true } });
};

// ---------------------------------------------------------------------------------------------
// Stream schemas (loose)

const count = z.number().nullish();
const Envelope = z.looseObject({ type: z.string(), sessionID: z.string().nullish() });
const TextPart = z.looseObject({ part: z.looseObject({ text: z.string().nullish() }) });
const ToolPart = z.looseObject({
  part: z.looseObject({
    tool: z.string(),
    callID: z.string().nullish(),
    id: z.string().nullish(),
    state: z.looseObject({
      status: z.string().nullish(),
      input: z.unknown().optional(),
      output: z.unknown().optional(),
      error: z.unknown().optional(),
      title: z.string().nullish(),
    }),
  }),
});
const StepFinishPart = z.looseObject({
  part: z.looseObject({
    reason: z.string().nullish(),
    cost: count,
    tokens: z
      .looseObject({
        input: count,
        output: count,
        reasoning: count,
        cache: z.looseObject({ read: count, write: count }).nullish(),
      })
      .nullish(),
  }),
});
const ErrorLine = z.looseObject({
  error: z.looseObject({
    name: z.string().nullish(),
    data: z.looseObject({ message: z.string().nullish(), statusCode: count }).nullish(),
  }),
});

const outputText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : value === undefined || value === null
      ? ''
      : compactJson(value, OUTPUT_CHARS);

/** A rejected permission ends an opencode run (exit 0, no answer): what its tool error says. */
const REJECTED = /rejected permission|specified a rule which prevents/i;

class OpencodeParser extends CliParser {
  /** Token counts of the finished steps, and how many there were (turns). */
  private totals: Usage = emptyUsage();
  private reportedCost = 0;
  private sessionAnnounced = false;
  private anonymousTools = 0;

  protected override handle(value: Record<string, unknown>): AgentEvent[] | null {
    const envelope = Envelope.safeParse(value);
    if (!envelope.success) return null;
    switch (envelope.data.type) {
      case 'step_start':
        return this.stepStart(envelope.data.sessionID ?? undefined);
      case 'text':
        return this.text(value, false);
      case 'reasoning':
        return this.text(value, true);
      case 'tool_use':
        return this.toolUse(value);
      case 'step_finish':
        return this.stepFinish(value);
      case 'error': {
        const line = ErrorLine.safeParse(value);
        if (!line.success) return null;
        const { name, data } = line.data.error;
        const text = data?.message ?? name ?? 'unknown error';
        const failure = {
          text,
          ...(data?.statusCode ? { status: data.statusCode } : {}),
          ...(name ? { label: name } : {}),
        };
        const usage = this.totals.turns === null ? {} : { usage: this.usage() };
        return [ev({ kind: 'failed', error: this.classify(failure), ...usage })];
      }
      default:
        return null;
    }
  }

  private stepStart(sessionId: string | undefined): AgentEvent[] {
    // A step after one that finished with `stop`: the run went on, so that was not its end.
    if (this.state.terminal?.kind === 'completed') this.state.terminal = undefined;
    if (this.sessionAnnounced) return [ev({ kind: 'progress', stage: 'turn_started' })];
    this.sessionAnnounced = true;
    return [this.init(sessionId, this.requestedModel, this.requestedModel)];
  }

  private text(value: Record<string, unknown>, thinking: boolean): AgentEvent[] | null {
    const line = TextPart.safeParse(value);
    if (!line.success) return null;
    const said = line.data.part.text ?? '';
    if (said.trim() === '') return [];
    const clipped = clip(said, MESSAGE_CHARS);
    if (!thinking) this.answer(clipped);
    return [message('assistant', clipped, thinking ? { thinking } : {})];
  }

  /** opencode prints a tool once it has finished: the call and its result together. */
  private toolUse(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ToolPart.safeParse(value);
    if (!line.success) return null;
    const { tool, callID, id: partId, state } = line.data.part;
    const id = callID ?? partId ?? `${tool}-${(this.anonymousTools += 1)}`;
    const summary = this.summarize(tool, state.input);
    const events: AgentEvent[] = [ev({ kind: 'tool_call', id, name: tool, summary, input: state.input })];
    if (state.status !== 'completed' && state.status !== 'error') return events;
    const ok = state.status === 'completed';
    const output = ok ? outputText(state.output) : outputText(state.error);
    if (!ok && REJECTED.test(output)) {
      this.state.pendingError = {
        kind: 'AgentFailed',
        message: `${CLI.displayName} stopped: its ${tool} call was refused by a permission rule (${oneLine(output, 160)})`,
        hint: 'opencode ends a run when a permission is refused; allow the tool in its config (permission), in hydra.toml [agents.opencode.env] OPENCODE_PERMISSION, or race with --unsafe.',
      };
    }
    const resultSummary = firstLine(output) || state.title || (ok ? 'done' : 'failed');
    events.push(...this.resultEvents(id, tool, ok, output, resultSummary));
    return events;
  }

  private stepFinish(value: Record<string, unknown>): AgentEvent[] | null {
    const line = StepFinishPart.safeParse(value);
    if (!line.success) return null;
    const { reason, cost, tokens } = line.data.part;
    this.totals = addUsage(this.totals, {
      inputTokens: tokens?.input ?? 0,
      // Reasoning tokens are billed as output.
      outputTokens: (tokens?.output ?? 0) + (tokens?.reasoning ?? 0),
      cacheReadTokens: tokens?.cache?.read ?? 0,
      cacheWriteTokens: tokens?.cache?.write ?? 0,
      turns: 1,
    });
    this.reportedCost += cost ?? 0;
    const usage = this.usage();
    const events: AgentEvent[] = [ev({ kind: 'usage', usage })];
    if (reason === 'stop') {
      this.state.pendingError = undefined;
      events.push(completed(this.state.lastText, usage));
    } else if (reason !== undefined && reason !== null && reason !== 'tool-calls') {
      this.state.pendingError = {
        kind: 'AgentFailed',
        message: `${CLI.displayName} stopped without an answer: the model's last step ended with "${reason}"`,
        hint:
          reason === 'length'
            ? 'The answer hit the output limit; narrow the prompt.'
            : "The agent's output is shown by `hydra show <run>`.",
      };
    }
    return events;
  }

  /** opencode prices a step itself when it knows the model; otherwise hydra estimates it. */
  private usage(): Usage {
    if (this.reportedCost > 0) return { ...this.totals, costUsd: this.reportedCost, costSource: 'reported' };
    return this.priced(this.totals);
  }
}

export const opencodeAdapter = defineAdapter({
  ...CLI,
  tier: 'experimental',
  aliases: ['opencode-ai'],
  binaries: ['opencode'],
  stateDirs: [
    // Its config (plugins, MCP servers), data (auth.json, sessions) and state: copies of the agent's own.
    {
      path: '.config/opencode',
      env: 'XDG_CONFIG_HOME',
      under: 'opencode',
      copy: { variable: 'XDG_CONFIG_HOME', to: 'opencode' },
    },
    {
      path: '.local/share/opencode',
      env: 'XDG_DATA_HOME',
      under: 'opencode',
      copy: { variable: 'XDG_DATA_HOME', to: 'opencode', skip: ['storage', 'log', 'snapshot', 'bin'] },
    },
    {
      path: '.local/state/opencode',
      env: 'XDG_STATE_HOME',
      under: 'opencode',
      copy: { variable: 'XDG_STATE_HOME', to: 'opencode' },
    },
    // Its cache runs code too (the npm plugins and provider packages it installs there, its tools in
    // `bin/`), and it rewrites the cache's `version` at start (a read-only cache stops it): a copy.
    {
      path: '.cache/opencode',
      env: 'XDG_CACHE_HOME',
      under: 'opencode',
      copy: { variable: 'XDG_CACHE_HOME', to: 'opencode' },
    },
  ],
  // It calls whichever provider the model names; these are its own (the model catalogue, sharing).
  api: { hosts: ['models.dev', 'opencode.ai'], baseUrlEnv: [] },
  // Its providers' `options.baseURL`.
  endpointFiles: [
    { state: '.config/opencode', file: 'opencode.json' },
    { state: '.config/opencode', file: 'opencode.jsonc' },
    { state: '.config/opencode', file: 'config.json' },
  ],
  // The keys of the providers it calls out of the box (models.dev names them), its own settings.
  environment: {
    keys: [
      'ANTHROPIC_API_KEY',
      'OPENAI_API_KEY',
      'GOOGLE_GENERATIVE_AI_API_KEY',
      'GEMINI_API_KEY',
      'OPENROUTER_API_KEY',
      'MISTRAL_API_KEY',
      'DEEPSEEK_API_KEY',
      'XAI_API_KEY',
      'GROQ_API_KEY',
    ],
    prefixes: [
      'OPENCODE_',
      'ANTHROPIC_',
      'OPENAI_',
      'GOOGLE_',
      'GEMINI_',
      'OPENROUTER_',
      'MISTRAL_',
      'DEEPSEEK_',
      'XAI_',
      'GROQ_',
    ],
  },
  demo: { lineDelayMs: 1000 },
  probe,
  buildCommand,
  createParser: (options) => new OpencodeParser(CLI, options),
});
