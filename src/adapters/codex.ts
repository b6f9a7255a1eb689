/**
 * OpenAI Codex (`codex exec --json`). Flags drift between releases (`--full-auto` is gone in
 * newer ones), so every optional flag comes from `codex exec --help`, never from assumptions.
 * Codex reports tokens but no cost: hydra estimates it from the price table.
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { AdapterError } from './errors.js';
import { addCounts, emptyUsage, ev } from '../core/events.js';
import type { AgentEvent, ErrorInfo, Usage } from '../core/events.js';
import { looksLikeAuthFailure } from './finish.js';
import type { RunState } from './finish.js';
import { compareVersions, hasFlag, parseHelpFlags } from './help-flags.js';
import { JsonLineParser } from './json-line-parser.js';
import { checkModelName, isDefaultModel } from './model-name.js';
import { mergePrices, withEstimatedCost } from './prices.js';
import { probeError, runStep, unreadableVersion, verifiedCapabilities, versionOf } from './probe-steps.js';
import type { ProbeContext } from './probe-steps.js';
import { deliverPrompt } from './prompt-delivery.js';
import {
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
  SpawnRequest,
} from './types.js';

const ID = 'codex';
const DISPLAY_NAME = 'Codex';
const INSTALL_HINT = 'npm install -g @openai/codex';
const SIGN_IN_HINT = 'Run `codex login` once, or set OPENAI_API_KEY in the environment.';
const LAST_MESSAGE_FILE = 'last-message.txt';
/**
 * `codex exec --json` prints thread/turn/item events since 0.44 (openai/codex#4525); older
 * releases print a different, legacy event stream under the same flag.
 */
export const CODEX_MIN_JSON_VERSION = '0.44.0';

const openai = (input: number, output: number, cachedInput: number): ModelPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheReadPerMTok: cachedInput,
});

/**
 * The model Codex runs when nothing names one: gpt-5.5 for the CLI versions hydra records (0.169,
 * see scripts/vendor-cli.ts). Its stream does not name the model, so this and `model` in Codex's
 * own config.toml are what hydra prices a run with.
 */
export const CODEX_DEFAULT_MODEL = 'gpt-5.5';

/**
 * OpenAI's prices (USD per million tokens, standard tier, short context). Codex never reports a
 * cost: hydra estimates it from these.
 */
export const CODEX_PRICES: PriceTable = {
  'gpt-5.5': openai(5, 30, 0.5),
  'gpt-5.4': openai(2.5, 15, 0.25),
  'gpt-5.2-codex': openai(1.75, 14, 0.175),
  'gpt-5.2': openai(1.75, 14, 0.175),
  'gpt-5.1-codex-max': openai(1.25, 10, 0.125),
  'gpt-5.1-codex-mini': openai(0.25, 2, 0.025),
  'gpt-5.1-codex': openai(1.25, 10, 0.125),
  'gpt-5.1': openai(1.25, 10, 0.125),
  'gpt-5-codex': openai(1.25, 10, 0.125),
  'gpt-5-mini': openai(0.25, 2, 0.025),
  'gpt-5-nano': openai(0.05, 0.4, 0.005),
  'gpt-5': openai(1.25, 10, 0.125),
  'codex-mini-latest': openai(1.5, 6, 0.375),
  'gpt-4.1-mini': openai(0.4, 1.6, 0.1),
  'gpt-4.1': openai(2, 8, 0.5),
  o3: openai(2, 8, 0.5),
  'o4-mini': openai(1.1, 4.4, 0.275),
};

// ---------------------------------------------------------------------------------------------
// Probe

/** Features derived from `codex exec --help`. */
const codexFeatures = (execFlags: readonly string[], execHelp: string) => ({
  json: hasFlag(execFlags, '--json'),
  cd: hasFlag(execFlags, '-C', '--cd'),
  fullAuto: hasFlag(execFlags, '--full-auto'),
  sandbox: hasFlag(execFlags, '-s', '--sandbox'),
  bypass: hasFlag(execFlags, '--dangerously-bypass-approvals-and-sandbox'),
  skipGitRepoCheck: hasFlag(execFlags, '--skip-git-repo-check'),
  outputLastMessage: hasFlag(execFlags, '-o', '--output-last-message'),
  model: hasFlag(execFlags, '-m', '--model'),
  // "If not provided as an argument (or if `-` is used), instructions are read from stdin."
  stdinPrompt: /read from stdin/i.test(execHelp),
  // "resume  Resume a previous session by id" in exec's Commands (0.44 and later).
  resume: /^\s+resume\s+Resume\b/m.test(execHelp),
});

const probe = async (binary: string, run: ProbeRunner): Promise<ProbeResult> => {
  const context: ProbeContext = {
    adapterId: ID,
    displayName: DISPLAY_NAME,
    binary,
    installHint: INSTALL_HINT,
  };
  const [versionStep, execStep] = await Promise.all([
    runStep(context, run, ['--version']),
    runStep(context, run, ['exec', '--help']),
  ]);
  if (!versionStep.ok) return { ok: false, error: versionStep.error };
  if (!execStep.ok) {
    const error =
      execStep.error.kind === 'UnsupportedVersion'
        ? probeError(
            context,
            'UnsupportedVersion',
            `this Codex has no working \`exec\` subcommand (\`${binary} exec --help\` failed)`,
            `Upgrade it: ${INSTALL_HINT}`,
            ['exec', '--help'],
          )
        : execStep.error;
    return { ok: false, error };
  }
  const version = versionOf(versionStep);
  const flags = parseHelpFlags(execStep.text);
  const features = codexFeatures(flags, execStep.text);
  const capabilities = verifiedCapabilities(ID, binary, version, flags, features);
  if (version === null)
    return { ok: false, capabilities, error: unreadableVersion(context, versionStep.output) };
  if (compareVersions(version, CODEX_MIN_JSON_VERSION) < 0) {
    return {
      ok: false,
      capabilities,
      error: probeError(
        context,
        'UnsupportedVersion',
        `Codex ${version} prints the legacy \`exec --json\` event format; hydra reads the thread/turn/item events of Codex ${CODEX_MIN_JSON_VERSION} and later`,
        `Upgrade it: ${INSTALL_HINT}`,
        ['--version'],
        versionStep.output,
      ),
    };
  }
  if (!features.json) {
    return {
      ok: false,
      capabilities,
      error: probeError(
        context,
        'UnsupportedFlag',
        `Codex ${version} has no \`exec --json\`, which hydra needs to follow the run`,
        `Upgrade it: ${INSTALL_HINT}`,
        ['exec', '--help'],
        execStep.output,
      ),
    };
  }
  if (!features.fullAuto && !features.sandbox) {
    return {
      ok: false,
      capabilities,
      error: probeError(
        context,
        'UnsupportedFlag',
        `Codex ${version} has neither --full-auto nor --sandbox, so it cannot be allowed to edit files unattended`,
        `Upgrade it: ${INSTALL_HINT}`,
        ['exec', '--help'],
        execStep.output,
      ),
    };
  }
  if (!features.outputLastMessage)
    capabilities.warnings.push(
      `Codex ${version} has no --output-last-message: the final message comes from the stream only.`,
    );
  if (!features.cd)
    capabilities.warnings.push(`Codex ${version} has no -C/--cd: it runs in its working directory instead.`);
  if (!features.skipGitRepoCheck)
    capabilities.warnings.push(`Codex ${version} has no --skip-git-repo-check.`);
  return { ok: true, capabilities };
};

// ---------------------------------------------------------------------------------------------
// Command

const sandboxArgs = (unsafe: boolean, features: Record<string, boolean>): string[] => {
  if (unsafe && features['bypass'] === true) return ['--dangerously-bypass-approvals-and-sandbox'];
  if (unsafe && features['sandbox'] === true) return ['--sandbox', 'danger-full-access'];
  if (features['fullAuto'] === true) return ['--full-auto'];
  if (features['sandbox'] === true) return ['--sandbox', 'workspace-write'];
  return [];
};

const buildCommand = (request: SpawnRequest, capabilities: Capabilities): BuiltCommand => {
  const features = capabilities.features;
  const args = ['exec', '--json'];
  if (features['cd'] !== false) args.push('-C', request.cwd);
  args.push(...sandboxArgs(request.unsafe, features));
  if (features['skipGitRepoCheck'] === true) args.push('--skip-git-repo-check');
  let lastMessageFile: string | undefined;
  if (features['outputLastMessage'] === true) {
    lastMessageFile = join(request.scratchDir, LAST_MESSAGE_FILE);
    // The long spelling: 0.2x releases have no `-o` short form.
    args.push('--output-last-message', lastMessageFile);
  }
  if (!isDefaultModel(request.model) && request.model !== undefined) args.push('--model', request.model);
  args.push(...request.extraArgs);
  // A follow-up: `codex exec [OPTIONS] resume <thread_id> [PROMPT]`; exec's options go before the
  // subcommand (clap reads them there), the prompt after the thread id.
  if (request.resumeSessionId !== undefined && features['resume'] === true)
    args.push('resume', request.resumeSessionId);
  // A prompt of exactly "-" would mean "read stdin" as an argument, so it travels through stdin too.
  const prompt = deliverPrompt(request.prompt, request.scratchDir, {
    stdinArgs: ['-'],
    forceStdin: request.prompt.trim() === '-',
  });
  args.push(...prompt.args);
  return {
    file: capabilities.binary,
    args,
    env: { ...request.env },
    cwd: request.cwd,
    files: prompt.via === 'stdin' ? prompt.files : [],
    ...(prompt.via === 'stdin' ? { stdinFile: prompt.stdinFile } : {}),
    ...(lastMessageFile === undefined ? {} : { lastMessageFile }),
  };
};

// ---------------------------------------------------------------------------------------------
// Stream schemas (loose)

const nullableNumber = z.number().nullish();

const UsageSchema = z.looseObject({
  input_tokens: nullableNumber,
  cached_input_tokens: nullableNumber,
  output_tokens: nullableNumber,
  reasoning_output_tokens: nullableNumber,
  cache_write_input_tokens: nullableNumber,
});

const ThreadStarted = z.looseObject({ type: z.literal('thread.started'), thread_id: z.string().nullish() });
const TurnCompleted = z.looseObject({ type: z.literal('turn.completed'), usage: UsageSchema.nullish() });
const ErrorShape = z.looseObject({ message: z.string().nullish() });
const TurnFailed = z.looseObject({ type: z.literal('turn.failed'), error: ErrorShape.nullish() });
const ThreadError = z.looseObject({ type: z.literal('error'), message: z.string().nullish() });
const ItemLine = z.looseObject({
  type: z.enum(['item.started', 'item.updated', 'item.completed']),
  // Early releases of this format named the item's type `item_type`.
  item: z.looseObject({
    id: z.string().nullish(),
    type: z.string().nullish(),
    item_type: z.string().nullish(),
  }),
});

const AgentMessageItem = z.looseObject({ text: z.string().nullish() });
const CommandItem = z.looseObject({
  command: z.string().nullish(),
  aggregated_output: z.string().nullish(),
  exit_code: nullableNumber,
  status: z.string().nullish(),
});
const FileChangeItem = z.looseObject({
  changes: z.array(z.looseObject({ path: z.string(), kind: z.unknown().optional() })).nullish(),
  status: z.string().nullish(),
});
const McpItem = z.looseObject({
  server: z.string().nullish(),
  tool: z.string().nullish(),
  arguments: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
  status: z.string().nullish(),
});
const WebSearchItem = z.looseObject({ query: z.string().nullish() });
const TodoItem = z.looseObject({
  items: z.array(z.looseObject({ text: z.string().nullish(), completed: z.boolean().nullish() })).nullish(),
});
const ErrorItem = z.looseObject({ message: z.string().nullish() });

type ItemPhase = 'item.started' | 'item.updated' | 'item.completed';

// ---------------------------------------------------------------------------------------------
// Parser

const classifyError = (message: string): ErrorInfo =>
  looksLikeAuthFailure(message)
    ? {
        kind: 'AuthMissing',
        message: `${DISPLAY_NAME} could not authenticate: ${oneLine(message, 240)}`,
        hint: SIGN_IN_HINT,
      }
    : {
        kind: 'AgentFailed',
        message: `${DISPLAY_NAME} failed: ${oneLine(message, 240)}`,
        hint: "See the run record for the agent's output; retry if the provider had a transient error.",
      };

const changeKind = (kind: unknown): string => {
  if (typeof kind === 'string') return kind;
  if (typeof kind === 'object' && kind !== null && typeof (kind as { type?: unknown }).type === 'string')
    return (kind as { type: string }).type;
  return 'update';
};

class CodexParser extends JsonLineParser {
  private readonly prices: PriceTable;
  private readonly model: string | undefined;
  private readonly cwd: string | undefined;
  private readonly totals: Usage = emptyUsage();
  private readonly startedTools = new Set<string>();
  private anonymousItems = 0;
  protected readonly state: RunState = {
    displayName: DISPLAY_NAME,
    sawJson: false,
    authHint: SIGN_IN_HINT,
  };

  constructor(options: ParserOptions) {
    super();
    this.prices = mergePrices(CODEX_PRICES, options.prices);
    this.model = isDefaultModel(options.model) ? undefined : options.model;
    this.cwd = options.cwd;
  }

  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
    switch (value['type']) {
      case 'thread.started': {
        const line = ThreadStarted.safeParse(value);
        if (!line.success) return null;
        return [
          ev({
            kind: 'progress',
            stage: 'init',
            ...(line.data.thread_id ? { sessionId: line.data.thread_id } : {}),
            ...(this.model === undefined ? {} : { model: this.model }),
          }),
        ];
      }
      case 'turn.started':
        return [ev({ kind: 'progress', stage: 'turn_started' })];
      case 'turn.completed':
        return this.turnCompleted(value);
      case 'turn.failed': {
        const line = TurnFailed.safeParse(value);
        if (!line.success) return null;
        const message = line.data.error?.message ?? this.state.pendingError?.message ?? 'turn failed';
        return [
          ev({
            kind: 'failed',
            error: classifyError(message),
            ...(this.state.usage === undefined ? {} : { usage: this.state.usage }),
          }),
        ];
      }
      case 'error': {
        // Reported before turn.failed, and for transient stream errors ("Reconnecting... 1/5")
        // that the run can survive: remembered, and only fatal if the run ends without a result.
        const line = ThreadError.safeParse(value);
        if (!line.success) return null;
        const message = line.data.message ?? 'unknown error';
        this.state.pendingError = classifyError(message);
        return [ev({ kind: 'progress', stage: 'error', detail: oneLine(message) })];
      }
      case 'item.started':
      case 'item.updated':
      case 'item.completed':
        return this.item(value);
      default:
        return null;
    }
  }

  private turnCompleted(value: Record<string, unknown>): AgentEvent[] | null {
    const line = TurnCompleted.safeParse(value);
    if (!line.success) return null;
    const usage = line.data.usage;
    if (usage !== undefined && usage !== null) {
      // Per-turn counts (one turn per `codex exec`). input_tokens includes cached and cache-written
      // input; hydra's Usage keeps those apart, so inputTokens + cache reads + writes = input_tokens.
      const input = usage.input_tokens ?? 0;
      const cached = Math.min(usage.cached_input_tokens ?? 0, input);
      const written = Math.min(usage.cache_write_input_tokens ?? 0, input - cached);
      this.totals.inputTokens = addCounts(this.totals.inputTokens, input - cached - written);
      this.totals.cacheReadTokens = addCounts(this.totals.cacheReadTokens, cached);
      this.totals.cacheWriteTokens = addCounts(this.totals.cacheWriteTokens, written);
      this.totals.outputTokens = addCounts(this.totals.outputTokens, usage.output_tokens ?? 0);
    }
    this.totals.turns = addCounts(this.totals.turns, 1);
    const total = withEstimatedCost({ ...this.totals }, this.model, this.prices);
    this.state.pendingError = undefined;
    const result = this.state.lastText;
    return [
      ev({ kind: 'usage', usage: total }),
      ev({ kind: 'completed', ...(result === undefined ? {} : { result }), usage: total }),
    ];
  }

  private item(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ItemLine.safeParse(value);
    if (!line.success) return null;
    const phase: ItemPhase = line.data.type;
    const item = line.data.item as Record<string, unknown>;
    const itemType = line.data.item.type ?? line.data.item.item_type ?? 'unknown';
    const id = line.data.item.id ?? `item-${(this.anonymousItems += 1)}`;
    switch (itemType) {
      case 'agent_message':
      case 'assistant_message': {
        if (phase !== 'item.completed') return [];
        const text = AgentMessageItem.safeParse(item).data?.text ?? '';
        if (text === '') return [];
        this.state.lastText = clip(text, MESSAGE_CHARS);
        return [ev({ kind: 'message', role: 'assistant', text: clip(text, MESSAGE_CHARS) })];
      }
      case 'reasoning': {
        if (phase !== 'item.completed') return [];
        const text = AgentMessageItem.safeParse(item).data?.text ?? '';
        return text === ''
          ? []
          : [ev({ kind: 'message', role: 'assistant', text: clip(text, MESSAGE_CHARS), thinking: true })];
      }
      case 'command_execution':
        return this.command(phase, id, item);
      case 'file_change':
        return this.fileChange(phase, id, item);
      case 'mcp_tool_call':
        return this.mcp(phase, id, item);
      case 'web_search': {
        const query = WebSearchItem.safeParse(item).data?.query ?? '';
        return this.simpleTool(phase, id, 'web_search', oneLine(`Search ${query}`), item, true, query);
      }
      case 'todo_list': {
        const items = TodoItem.safeParse(item).data?.items ?? [];
        const done = items.filter((entry) => entry.completed === true).length;
        return [ev({ kind: 'progress', stage: 'todo', detail: `${done}/${items.length} done` })];
      }
      case 'error': {
        // An error item does not fail the run (an unknown model name adds one, and the run goes on).
        if (phase !== 'item.completed') return [];
        const message = ErrorItem.safeParse(item).data?.message ?? 'error';
        return [ev({ kind: 'message', role: 'system', text: `error: ${clip(message, MESSAGE_CHARS)}` })];
      }
      default:
        return [ev({ kind: 'unknown', type: `${phase}:${itemType}`, raw: value })];
    }
  }

  /** A tool_call when first seen, then a tool_result when completed. */
  private simpleTool(
    phase: ItemPhase,
    id: string,
    name: string,
    summary: string,
    input: unknown,
    ok: boolean,
    output: string,
  ): AgentEvent[] {
    const events: AgentEvent[] = [];
    if (!this.startedTools.has(id)) {
      this.startedTools.add(id);
      events.push(ev({ kind: 'tool_call', id, name, summary, input }));
    }
    if (phase === 'item.completed') {
      events.push(
        ev({
          kind: 'tool_result',
          id,
          name,
          ok,
          summary: firstLine(output) || (ok ? 'done' : 'failed'),
          output: clip(output, OUTPUT_CHARS),
        }),
      );
    }
    return events;
  }

  private command(phase: ItemPhase, id: string, item: Record<string, unknown>): AgentEvent[] {
    const data = CommandItem.safeParse(item).data ?? {};
    const command = data.command ?? '';
    const events: AgentEvent[] = [];
    if (!this.startedTools.has(id)) {
      this.startedTools.add(id);
      events.push(
        ev({
          kind: 'tool_call',
          id,
          name: 'command_execution',
          summary: oneLine(`$ ${command}`),
          input: { command },
        }),
      );
    }
    if (phase !== 'item.completed') return events;
    const exitCode = data.exit_code ?? null;
    const ok =
      data.status !== 'failed' && data.status !== 'declined' && (exitCode === null || exitCode === 0);
    const output = data.aggregated_output ?? '';
    const head = exitCode === null ? (data.status ?? 'done') : `exit ${exitCode}`;
    const first = firstLine(output, 120);
    events.push(
      ev({
        kind: 'tool_result',
        id,
        name: 'command_execution',
        ok,
        summary: first === '' ? head : `${head}: ${first}`,
        output: clip(output, OUTPUT_CHARS),
      }),
    );
    return events;
  }

  private fileChange(phase: ItemPhase, id: string, item: Record<string, unknown>): AgentEvent[] {
    const data = FileChangeItem.safeParse(item).data ?? {};
    const changes = data.changes ?? [];
    const described = changes.map(
      (change) => `${changeKind(change.kind)} ${relativePath(change.path, this.cwd)}`,
    );
    const summary = oneLine(
      described.length === 0
        ? 'Edit files'
        : described.length <= 3
          ? described.join(', ')
          : `${described.slice(0, 3).join(', ')} (+${described.length - 3} more)`,
    );
    const ok = data.status !== 'failed' && data.status !== 'declined';
    return this.simpleTool(phase, id, 'file_change', summary, { changes }, ok, described.join('\n'));
  }

  private mcp(phase: ItemPhase, id: string, item: Record<string, unknown>): AgentEvent[] {
    const data = McpItem.safeParse(item).data ?? {
      arguments: undefined,
      result: undefined,
      error: undefined,
    };
    const name = `${data.server ?? 'mcp'}.${data.tool ?? 'tool'}`;
    const failed = data.status === 'failed' || (data.error !== undefined && data.error !== null);
    const output = failed ? compactJson(data.error, OUTPUT_CHARS) : compactJson(data.result, OUTPUT_CHARS);
    return this.simpleTool(
      phase,
      id,
      name,
      oneLine(`${name} ${compactJson(data.arguments)}`),
      data.arguments,
      !failed,
      output,
    );
  }
}

export const codexAdapter: AgentAdapter = {
  id: ID,
  displayName: DISPLAY_NAME,
  tier: 'tier1',
  aliases: [],
  binaries: ['codex'],
  installHint: INSTALL_HINT,
  signInHint: SIGN_IN_HINT,
  prices: CODEX_PRICES,
  modelConfig: { homeEnv: 'CODEX_HOME', homeDir: '.codex', file: 'config.toml', key: 'model' },
  defaultModel: CODEX_DEFAULT_MODEL,
  demo: { lineDelayMs: 700 },
  probe,
  validateModel: (model): AdapterError | null => checkModelName(ID, model),
  buildCommand,
  createParser: (options = {}) => new CodexParser(options),
};
