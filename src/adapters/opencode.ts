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
 * adds `--auto` (`--dangerously-skip-permissions` in 1.14), which approves everything not denied.
 */
import { z } from 'zod';
import { CLAUDE_PRICES } from './claude.js';
import type { AdapterError } from './errors.js';
import { emptyUsage, ev } from '../core/events.js';
import type { AgentEvent, ErrorInfo, Usage } from '../core/events.js';
import { looksLikeAuthFailure } from './finish.js';
import type { RunState } from './finish.js';
import { hasFlag, optionText, parseHelpFlags, parseVersion } from './help-flags.js';
import { JsonLineParser } from './json-line-parser.js';
import { checkModelName, isDefaultModel } from './model-name.js';
import { mergePrices, priceFor, withEstimatedCost } from './prices.js';
import { probeError, runStep, unreadableVersion, verifiedCapabilities, versionOf } from './probe-steps.js';
import type { ProbeContext, StepResult } from './probe-steps.js';
import { deliverPrompt } from './prompt-delivery.js';
import { QWEN_PRICES } from './qwen.js';
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
  ParserOptions,
  PriceTable,
  ProbeResult,
  ProbeRunner,
  SpawnRequest,
} from './types.js';

const ID = 'opencode';
const DISPLAY_NAME = 'opencode';
const INSTALL_HINT = 'npm install -g opencode-ai';
const SIGN_IN_HINT =
  "Run `opencode auth login` once, or set your provider's API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...) in the environment.";

/** What `OPENCODE_PERMISSION` is set to in normal races: edits never wait for an answer. */
export const OPENCODE_EDIT_PERMISSION = JSON.stringify({ edit: 'allow' });

/**
 * opencode runs models of many providers, named `provider/model`; prices are looked up by the full
 * name (for hydra.toml overrides) and then by the model part. Anthropic's, OpenAI's and Qwen's.
 */
const OPENCODE_PRICES: PriceTable = { ...CLAUDE_PRICES, ...QWEN_PRICES };

// ---------------------------------------------------------------------------------------------
// Probe

/** Features derived from `opencode run --help`. */
const opencodeFeatures = (flags: readonly string[], runHelp: string) => ({
  // `--format default|json` arrived in 1.0; the 0.x releases print text only.
  jsonFormat: hasFlag(flags, '--format') && /json/.test(optionText(runHelp, '--format')),
  model: hasFlag(flags, '-m', '--model'),
  resume: hasFlag(flags, '-s', '--session'),
  auto: hasFlag(flags, '--auto'),
  skipPermissions: hasFlag(flags, '--dangerously-skip-permissions'),
});

/**
 * Offline, some releases print an `ERROR <time> service=models.dev ...` log line (or a database
 * migration notice) before anything else: the version is read from the other lines.
 */
const JUNK_LINE = /^\s*(?:ERROR|WARN|INFO|DEBUG)\s+\d{4}-\d\d-\d\dT|migration/i;

const opencodeVersion = (step: Extract<StepResult, { ok: true }>): string | null => {
  const clean = (text: string): string =>
    text
      .split(/\r?\n/)
      .filter((line) => !JUNK_LINE.test(line))
      .join('\n');
  return parseVersion(clean(step.output.stdout)) ?? parseVersion(clean(step.text)) ?? versionOf(step);
};

const probe = async (binary: string, run: ProbeRunner): Promise<ProbeResult> => {
  const context: ProbeContext = {
    adapterId: ID,
    displayName: DISPLAY_NAME,
    binary,
    installHint: INSTALL_HINT,
  };
  const [versionStep, runStepResult] = await Promise.all([
    runStep(context, run, ['--version']),
    runStep(context, run, ['run', '--help']),
  ]);
  if (!versionStep.ok) return { ok: false, error: versionStep.error };
  if (!runStepResult.ok) return { ok: false, error: runStepResult.error };
  const version = opencodeVersion(versionStep);
  // Help goes to stdout in some releases and to stderr in others: runStep reads both.
  const flags = parseHelpFlags(runStepResult.text);
  const features = opencodeFeatures(flags, runStepResult.text);
  const capabilities = verifiedCapabilities(ID, binary, version, flags, features);
  if (version === null)
    return { ok: false, capabilities, error: unreadableVersion(context, versionStep.output) };
  if (!features.jsonFormat) {
    return {
      ok: false,
      capabilities,
      error: probeError(
        context,
        'UnsupportedFlag',
        `opencode ${version} has no \`run --format json\`, which hydra needs to follow the run`,
        `Upgrade it: ${INSTALL_HINT}`,
        ['run', '--help'],
        runStepResult.output,
      ),
    };
  }
  if (!features.auto && !features.skipPermissions)
    capabilities.warnings.push(
      `opencode ${version} has neither --auto nor --dangerously-skip-permissions: --unsafe races keep its permission rules.`,
    );
  return { ok: true, capabilities };
};

// ---------------------------------------------------------------------------------------------
// Command

const buildCommand = (request: SpawnRequest, capabilities: Capabilities): BuiltCommand => {
  const features = capabilities.features;
  const args = ['run', '--format', 'json'];
  const env: Record<string, string> = {};
  if (request.unsafe && features['auto'] === true) args.push('--auto');
  else if (request.unsafe && features['skipPermissions'] === true)
    args.push('--dangerously-skip-permissions');
  else env['OPENCODE_PERMISSION'] = OPENCODE_EDIT_PERMISSION;
  if (!isDefaultModel(request.model) && request.model !== undefined) args.push('--model', request.model);
  if (request.resumeSessionId !== undefined && features['resume'] === true)
    args.push('--session', request.resumeSessionId);
  args.push(...request.extraArgs);
  const prompt = deliverPrompt(request.prompt, request.scratchDir, { stdinArgs: [], forceStdin: true });
  Object.assign(env, request.env);
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
// Stream schemas (loose)

const nullableNumber = z.number().nullish();

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
    cost: nullableNumber,
    tokens: z
      .looseObject({
        input: nullableNumber,
        output: nullableNumber,
        reasoning: nullableNumber,
        cache: z.looseObject({ read: nullableNumber, write: nullableNumber }).nullish(),
      })
      .nullish(),
  }),
});

const ErrorLine = z.looseObject({
  error: z.looseObject({
    name: z.string().nullish(),
    data: z
      .looseObject({
        message: z.string().nullish(),
        statusCode: nullableNumber,
        providerID: z.string().nullish(),
        modelID: z.string().nullish(),
      })
      .nullish(),
  }),
});

// ---------------------------------------------------------------------------------------------
// Parser

const toolSummary = (name: string, input: unknown, cwd: string | undefined): string => {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const path = asString(fields['filePath']) ?? asString(fields['path']);
  const shown = path === undefined ? '' : relativePath(path, cwd);
  switch (name) {
    case 'bash':
      return oneLine(`$ ${asString(fields['command']) ?? ''}`);
    case 'write':
    case 'edit':
    case 'multiedit':
    case 'read':
    case 'list':
      return oneLine(`${name} ${shown}`);
    case 'glob':
    case 'grep':
      return oneLine(`${name} ${asString(fields['pattern']) ?? ''}${shown === '' ? '' : ` in ${shown}`}`);
    case 'webfetch':
      return oneLine(`Fetch ${asString(fields['url']) ?? ''}`);
    case 'websearch':
      return oneLine(`Search ${asString(fields['query']) ?? ''}`);
    case 'task':
      return oneLine(`Task ${asString(fields['description']) ?? ''}`);
    case 'todowrite': {
      const todos = Array.isArray(fields['todos']) ? fields['todos'].length : 0;
      return `Update todo list (${todos} items)`;
    }
    default:
      return oneLine(`${name} ${compactJson(input)}`);
  }
};

const outputText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : value === undefined || value === null
      ? ''
      : compactJson(value, OUTPUT_CHARS);

/** A rejected permission ends an opencode run (exit 0, no answer): what its tool error says. */
const REJECTED = /rejected permission|specified a rule which prevents/i;

class OpencodeParser extends JsonLineParser {
  private readonly prices: PriceTable;
  private readonly model: string | undefined;
  private readonly cwd: string | undefined;
  /** Token counts of the finished steps, and how many there were. */
  private readonly counts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, steps: 0 };
  private reportedCost = 0;
  private sessionAnnounced = false;
  private anonymousTools = 0;
  protected readonly state: RunState = {
    displayName: DISPLAY_NAME,
    sawJson: false,
    authHint: SIGN_IN_HINT,
  };

  constructor(options: ParserOptions) {
    super();
    this.prices = mergePrices(OPENCODE_PRICES, options.prices);
    this.model = isDefaultModel(options.model) ? undefined : options.model;
    this.cwd = options.cwd;
  }

  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
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
      case 'error':
        return this.error(value);
      default:
        return null;
    }
  }

  private stepStart(sessionId: string | undefined): AgentEvent[] {
    // A step after one that finished with `stop`: the run went on, so that was not its end.
    if (this.state.terminal?.kind === 'completed') this.state.terminal = undefined;
    if (this.sessionAnnounced) return [ev({ kind: 'progress', stage: 'turn_started' })];
    this.sessionAnnounced = true;
    return [
      ev({
        kind: 'progress',
        stage: 'init',
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(this.model === undefined ? {} : { model: this.model, detail: this.model }),
      }),
    ];
  }

  private text(value: Record<string, unknown>, thinking: boolean): AgentEvent[] | null {
    const line = TextPart.safeParse(value);
    if (!line.success) return null;
    const text = line.data.part.text ?? '';
    if (text.trim() === '') return [];
    const clipped = clip(text, MESSAGE_CHARS);
    if (!thinking) this.state.lastText = clipped;
    return [
      ev({ kind: 'message', role: 'assistant', text: clipped, ...(thinking ? { thinking: true } : {}) }),
    ];
  }

  /** opencode prints a tool once it has finished: the call and its result together. */
  private toolUse(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ToolPart.safeParse(value);
    if (!line.success) return null;
    const { tool, callID, id: partId, state } = line.data.part;
    const id = callID ?? partId ?? `${tool}-${(this.anonymousTools += 1)}`;
    const events: AgentEvent[] = [
      ev({
        kind: 'tool_call',
        id,
        name: tool,
        summary: toolSummary(tool, state.input, this.cwd),
        input: state.input,
      }),
    ];
    if (state.status !== 'completed' && state.status !== 'error') return events;
    const ok = state.status === 'completed';
    const output = ok ? outputText(state.output) : outputText(state.error);
    if (!ok && REJECTED.test(output)) {
      this.state.pendingError = {
        kind: 'AgentFailed',
        message: `${DISPLAY_NAME} stopped: its ${tool} call was refused by a permission rule (${oneLine(output, 160)})`,
        hint: 'opencode ends a run when a permission is refused; allow the tool in its config (permission), in hydra.toml [agents.opencode.env] OPENCODE_PERMISSION, or race with --unsafe.',
      };
    }
    events.push(
      ev({
        kind: 'tool_result',
        id,
        name: tool,
        ok,
        summary: firstLine(output) || state.title || (ok ? 'done' : 'failed'),
        output: clip(output, OUTPUT_CHARS),
      }),
    );
    return events;
  }

  private stepFinish(value: Record<string, unknown>): AgentEvent[] | null {
    const line = StepFinishPart.safeParse(value);
    if (!line.success) return null;
    const { reason, cost, tokens } = line.data.part;
    this.counts.input += tokens?.input ?? 0;
    // Reasoning tokens are billed as output.
    this.counts.output += (tokens?.output ?? 0) + (tokens?.reasoning ?? 0);
    this.counts.cacheRead += tokens?.cache?.read ?? 0;
    this.counts.cacheWrite += tokens?.cache?.write ?? 0;
    this.counts.steps += 1;
    this.reportedCost += cost ?? 0;
    const usage = this.usage();
    const events: AgentEvent[] = [ev({ kind: 'usage', usage })];
    if (reason === 'stop') {
      this.state.pendingError = undefined;
      const result = this.state.lastText;
      events.push(ev({ kind: 'completed', ...(result === undefined ? {} : { result }), usage }));
    } else if (reason !== undefined && reason !== null && reason !== 'tool-calls') {
      this.state.pendingError = {
        kind: 'AgentFailed',
        message: `${DISPLAY_NAME} stopped without an answer: the model's last step ended with "${reason}"`,
        hint:
          reason === 'length'
            ? 'The answer hit the output limit; narrow the prompt.'
            : "See the run record for the agent's output.",
      };
    }
    return events;
  }

  /** opencode prices a step itself when it knows the model; otherwise hydra's table does. */
  private usage(): Usage {
    const totals: Usage = {
      ...emptyUsage(),
      inputTokens: this.counts.input,
      outputTokens: this.counts.output,
      cacheReadTokens: this.counts.cacheRead,
      cacheWriteTokens: this.counts.cacheWrite,
      turns: this.counts.steps,
    };
    if (this.reportedCost > 0) return { ...totals, costUsd: this.reportedCost, costSource: 'reported' };
    return withEstimatedCost(totals, this.pricedModel(), this.prices);
  }

  private pricedModel(): string | undefined {
    if (this.model === undefined || priceFor(this.model, this.prices) !== undefined) return this.model;
    return this.model.split('/').at(-1);
  }

  private error(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ErrorLine.safeParse(value);
    if (!line.success) return null;
    const { name, data } = line.data.error;
    const message = data?.message ?? name ?? 'unknown error';
    const info = this.classify(name ?? undefined, message, data?.statusCode ?? undefined);
    return [ev({ kind: 'failed', error: info, ...(this.counts.steps > 0 ? { usage: this.usage() } : {}) })];
  }

  private classify(name: string | undefined, message: string, status: number | undefined): ErrorInfo {
    const detail = `: ${oneLine(message, 240)}`;
    const http = status === undefined ? '' : ` (HTTP ${status})`;
    if (status === 401 || status === 403 || name === 'ProviderAuthError' || looksLikeAuthFailure(message))
      return {
        kind: 'AuthMissing',
        message: `${DISPLAY_NAME} could not authenticate${http}${detail}`,
        hint: SIGN_IN_HINT,
      };
    if (status !== undefined && status >= 500)
      return {
        kind: 'AgentFailed',
        message: `${DISPLAY_NAME} hit an API server error${http}${detail}`,
        hint: 'The model provider failed (opencode retried it); try again later.',
      };
    if (name !== undefined && /ModelNotFound/i.test(name))
      return {
        kind: 'AgentFailed',
        message: `${DISPLAY_NAME} does not know the model${detail}`,
        hint: 'Name the model as provider/model (see `opencode models`) in hydra.toml or with --model opencode=<provider/model>.',
      };
    return {
      kind: 'AgentFailed',
      message: `${DISPLAY_NAME} reported an error (${name ?? 'error'})${http}${detail}`,
      hint: "See the run record for the agent's output.",
    };
  }
}

export const opencodeAdapter: AgentAdapter = {
  id: ID,
  displayName: DISPLAY_NAME,
  tier: 'experimental',
  aliases: ['opencode-ai'],
  binaries: ['opencode'],
  installHint: INSTALL_HINT,
  signInHint: SIGN_IN_HINT,
  prices: OPENCODE_PRICES,
  demo: { lineDelayMs: 1000 },
  probe,
  validateModel: (model): AdapterError | null => checkModelName(ID, model),
  buildCommand,
  createParser: (options = {}) => new OpencodeParser(options),
};
