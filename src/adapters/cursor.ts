/**
 * Cursor Agent (experimental). It cannot be installed from a registry, so this adapter follows
 * Cursor's documented headless interface (`-p --output-format stream-json --force`) and stream
 * schema, and reports its flags as inferred so the UI can warn. Its stdout can carry a banner and
 * sign-in text; the latter means it is not authenticated.
 */
import { z } from 'zod';
import type { AdapterError } from './errors.js';
import { TEXT_OUTPUT_STAGE, ev } from '../core/events.js';
import type { AgentEvent } from '../core/events.js';
import { looksLikeAuthFailure } from './finish.js';
import type { RunState } from './finish.js';
import { hasFlag, parseHelpFlags } from './help-flags.js';
import { normalizeLine } from './json-line.js';
import { JsonLineParser } from './json-line-parser.js';
import { checkModelName, isDefaultModel } from './model-name.js';
import { probeError, runStep, versionOf } from './probe-steps.js';
import type { ProbeContext } from './probe-steps.js';
import { deliverPrompt } from './prompt-delivery.js';
import {
  asNumber,
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
  ProbeResult,
  ProbeRunner,
  SpawnRequest,
} from './types.js';

const ID = 'cursor';
const DISPLAY_NAME = 'Cursor Agent';
const INSTALL_HINT = 'curl https://cursor.com/install -fsS | bash';
const SIGN_IN_HINT =
  'Set CURSOR_API_KEY in the environment (hydra.toml [agents.cursor.env]), or run `cursor-agent login` once.';
const CURSOR_INFERRED_WARNING =
  "Cursor Agent support is experimental: its flags and output format are inferred from Cursor's documentation, not verified against a recorded run.";

// ---------------------------------------------------------------------------------------------
// Probe

const cursorFeatures = (flags: readonly string[]) => ({
  print: hasFlag(flags, '-p', '--print'),
  outputFormat: hasFlag(flags, '--output-format'),
  force: hasFlag(flags, '-f', '--force'),
  model: hasFlag(flags, '-m', '--model'),
  // "Trust the workspace without prompting (headless mode only)": a fresh worktree is untrusted.
  trust: hasFlag(flags, '--trust'),
  // `--resume [chatId]`: a follow-up continues the chat its init line named.
  resume: hasFlag(flags, '--resume'),
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
  if (!helpStep.ok) return { ok: false, error: helpStep.error };
  // A binary named `agent` (or `cursor`, the editor's launcher) may be someone else's.
  if (!/cursor/i.test(helpStep.text)) {
    return {
      ok: false,
      error: probeError(
        context,
        'UnsupportedVersion',
        `${binary} does not identify itself as Cursor Agent in its --help`,
        `Install Cursor Agent (${INSTALL_HINT}) or point hydra.toml [agents.cursor] binary at it.`,
        ['--help'],
        helpStep.output,
      ),
    };
  }
  const version = versionStep.ok ? versionOf(versionStep) : null;
  const flags = parseHelpFlags(helpStep.text);
  const features = cursorFeatures(flags);
  const capabilities: Capabilities = {
    adapterId: ID,
    binary,
    version,
    flags,
    features,
    confidence: 'inferred',
    warnings: [CURSOR_INFERRED_WARNING],
  };
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
        `${binary} lacks ${missing.join(' and ')}: it is not a headless-capable Cursor Agent`,
        `Install or upgrade Cursor Agent: ${INSTALL_HINT}`,
        ['--help'],
        helpStep.output,
      ),
    };
  }
  if (!features.force)
    capabilities.warnings.push(`${binary} lists no --force flag: it may stop to ask before editing files.`);
  if (version === null)
    capabilities.warnings.push(`could not read Cursor Agent's version from \`${binary} --version\`.`);
  return { ok: true, capabilities };
};

// ---------------------------------------------------------------------------------------------
// Command

const buildCommand = (request: SpawnRequest, capabilities: Capabilities): BuiltCommand => {
  const args = ['-p', '--output-format', 'stream-json'];
  if (capabilities.features['force'] !== false) args.push('--force');
  if (capabilities.features['trust'] === true) args.push('--trust');
  if (!isDefaultModel(request.model) && request.model !== undefined) args.push('--model', request.model);
  if (request.resumeSessionId !== undefined && capabilities.features['resume'] === true)
    args.push('--resume', request.resumeSessionId);
  args.push(...request.extraArgs);
  // Inferred: with no prompt argument, print mode reads the prompt from stdin like other CLIs.
  const prompt = deliverPrompt(request.prompt, request.scratchDir, { stdinArgs: [] });
  args.push(...prompt.args);
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
// Stream schemas (loose, from Cursor's output-format documentation)

const TextContent = z.looseObject({ type: z.string(), text: z.string().nullish() });
const MessageLine = z.looseObject({
  type: z.enum(['assistant', 'user']),
  timestamp_ms: z.number().nullish(),
  model_call_id: z.string().nullish(),
  message: z.looseObject({
    role: z.string().nullish(),
    content: z.union([z.array(TextContent), z.string()]).nullish(),
  }),
});
const SystemLine = z.looseObject({
  type: z.literal('system'),
  subtype: z.string().nullish(),
  session_id: z.string().nullish(),
  model: z.string().nullish(),
  cwd: z.string().nullish(),
  permissionMode: z.string().nullish(),
});
const ThinkingLine = z.looseObject({
  type: z.literal('thinking'),
  subtype: z.string().nullish(),
  text: z.string().nullish(),
});
const ToolCallLine = z.looseObject({
  type: z.literal('tool_call'),
  subtype: z.string().nullish(),
  call_id: z.string().nullish(),
  tool_call: z.record(z.string(), z.unknown()),
});
const ResultLine = z.looseObject({
  type: z.literal('result'),
  subtype: z.string().nullish(),
  is_error: z.boolean().nullish(),
  result: z.string().nullish(),
  session_id: z.string().nullish(),
});

const SIGN_IN =
  /press any key to sign in|not (signed|logged) in|please (sign|log) ?in|cursor-agent login|authentication required/i;
const LOOKS_LIKE_JSON = /^\s*[[{]/;

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/** One terminal line for a tool call, from its `<kind>ToolCall` key and args. */
const toolSummary = (kind: string, args: Record<string, unknown>, cwd: string | undefined): string => {
  const path = asString(args['path']) ?? asString(args['filePath']) ?? asString(args['file_path']);
  const shownPath = path === undefined ? '' : relativePath(path, cwd);
  switch (kind) {
    case 'shellToolCall':
      return oneLine(`$ ${asString(args['command']) ?? ''}`);
    case 'editToolCall':
      return oneLine(`Edit ${shownPath}`);
    case 'writeToolCall':
      return oneLine(`Write ${shownPath}`);
    case 'deleteToolCall':
      return oneLine(`Delete ${shownPath}`);
    case 'readToolCall':
      return oneLine(`Read ${shownPath}`);
    case 'lsToolCall':
      return oneLine(`List ${shownPath}`);
    case 'grepToolCall':
      return oneLine(`Grep ${asString(args['pattern']) ?? ''}${shownPath === '' ? '' : ` in ${shownPath}`}`);
    case 'globToolCall':
      return oneLine(`Glob ${asString(args['globPattern']) ?? asString(args['pattern']) ?? ''}`);
    case 'updateTodosToolCall':
      return `Update todo list (${Array.isArray(args['todos']) ? args['todos'].length : 0} items)`;
    case 'mcpToolCall':
      return oneLine(
        `${asString(args['toolName']) ?? asString(args['name']) ?? 'mcp'} ${compactJson(args['args'] ?? args['arguments'])}`,
      );
    default:
      return oneLine(`${kind.replace(/ToolCall$/, '')} ${compactJson(args)}`);
  }
};

/** ok and output of a completed tool call: `result.success` or `result.error` / `rejected`. */
/** One line for a file tool's structured result: `hello.txt · 1 line`, `README.md +2 -0`. */
const fileResultSummary = (success: Record<string, unknown>, cwd: string | undefined): string | undefined => {
  const path = asString(success['path']);
  if (path === undefined) return undefined;
  const created = asNumber(success['linesCreated']);
  const added = asNumber(success['linesAdded']);
  const removed = asNumber(success['linesRemoved']);
  const detail =
    added !== undefined || removed !== undefined
      ? ` +${added ?? 0} -${removed ?? 0}`
      : created !== undefined
        ? ` · ${created} line${created === 1 ? '' : 's'}`
        : '';
  return `${relativePath(path, cwd)}${detail}`;
};

const toolOutcome = (
  result: unknown,
  cwd: string | undefined,
): { ok: boolean; output: string; summary?: string } => {
  const fields = record(result);
  if ('success' in fields) {
    const success = record(fields['success']);
    const fileSummary = fileResultSummary(success, cwd);
    if (fileSummary !== undefined && asString(success['stdout']) === undefined) {
      return { ok: true, output: compactJson(fields['success'], OUTPUT_CHARS), summary: fileSummary };
    }
    const exitCode = success['exitCode'];
    const text =
      asString(success['stdout']) ??
      asString(success['content']) ??
      asString(success['output']) ??
      compactJson(fields['success'], OUTPUT_CHARS);
    const stderr = asString(success['stderr']) ?? '';
    return {
      ok: exitCode === undefined || exitCode === 0,
      output: stderr === '' ? text : `${text}\n${stderr}`,
    };
  }
  for (const key of ['error', 'failure', 'rejected']) {
    if (key in fields) {
      const detail = record(fields[key]);
      return {
        ok: false,
        output:
          asString(detail['message']) ??
          asString(detail['error']) ??
          asString(detail['reason']) ??
          compactJson(fields[key], OUTPUT_CHARS),
      };
    }
  }
  return { ok: true, output: compactJson(result, OUTPUT_CHARS) };
};

class CursorParser extends JsonLineParser {
  private cwd: string | undefined;
  private readonly toolNames = new Map<string, string>();
  protected readonly state: RunState = {
    displayName: DISPLAY_NAME,
    sawJson: false,
    authHint: SIGN_IN_HINT,
  };

  constructor(options: ParserOptions) {
    super();
    this.cwd = options.cwd;
  }

  /** Banner and sign-in text are expected; malformed JSON is a parse error. */
  protected override nonJson(rawLine: string, raw: string, reason: string): AgentEvent[] {
    const line = normalizeLine(rawLine);
    if (SIGN_IN.test(line)) {
      const failed = ev({
        kind: 'failed',
        error: {
          kind: 'AuthMissing',
          message: `${DISPLAY_NAME} is not signed in: ${oneLine(line, 200)}`,
          hint: SIGN_IN_HINT,
        },
      });
      return this.track([failed]);
    }
    if (LOOKS_LIKE_JSON.test(line) || line.length > 2000) return [ev({ kind: 'parse_error', raw, reason })];
    return [ev({ kind: 'progress', stage: TEXT_OUTPUT_STAGE, detail: oneLine(line) })];
  }

  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
    switch (value['type']) {
      case 'system': {
        const line = SystemLine.safeParse(value);
        if (!line.success) return null;
        if (line.data.cwd) this.cwd = line.data.cwd;
        const detail = [line.data.model, line.data.permissionMode]
          .filter((part): part is string => typeof part === 'string')
          .join(', ');
        return [
          ev({
            kind: 'progress',
            stage: line.data.subtype ?? 'system',
            ...(detail === '' ? {} : { detail }),
            ...(line.data.session_id ? { sessionId: line.data.session_id } : {}),
            ...(line.data.model ? { model: line.data.model } : {}),
          }),
        ];
      }
      case 'assistant':
      case 'user': {
        const line = MessageLine.safeParse(value);
        if (!line.success) return null;
        const content = line.data.message.content;
        const text =
          typeof content === 'string' ? content : (content ?? []).map((block) => block.text ?? '').join('');
        if (text.trim() === '') return [];
        const role = line.data.type;
        // With --stream-partial-output, deltas carry timestamp_ms and no model_call_id; the
        // flushes that follow (with model_call_id, or with neither) repeat them as whole messages.
        const delta =
          role === 'assistant' && typeof line.data.timestamp_ms === 'number' && !line.data.model_call_id;
        if (delta) return [ev({ kind: 'message', role, text: clip(text, MESSAGE_CHARS), partial: true })];
        if (role === 'assistant') this.state.lastText = clip(text, MESSAGE_CHARS);
        return [ev({ kind: 'message', role, text: clip(text, MESSAGE_CHARS) })];
      }
      case 'thinking': {
        const line = ThinkingLine.safeParse(value);
        if (!line.success) return null;
        const text = line.data.text ?? '';
        return text === ''
          ? []
          : [
              ev({
                kind: 'message',
                role: 'assistant',
                text: clip(text, MESSAGE_CHARS),
                thinking: true,
                partial: line.data.subtype === 'delta',
              }),
            ];
      }
      case 'tool_call':
        return this.toolCall(value);
      case 'result': {
        const line = ResultLine.safeParse(value);
        if (!line.success) return null;
        const text = line.data.result ?? undefined;
        if (line.data.is_error !== true)
          return [
            ev({ kind: 'completed', ...(text === undefined ? {} : { result: clip(text, MESSAGE_CHARS) }) }),
          ];
        const message = oneLine(text ?? line.data.subtype ?? 'error', 240);
        const auth = looksLikeAuthFailure(message);
        return [
          ev({
            kind: 'failed',
            error: auth
              ? {
                  kind: 'AuthMissing',
                  message: `${DISPLAY_NAME} could not authenticate: ${message}`,
                  hint: SIGN_IN_HINT,
                }
              : {
                  kind: 'AgentFailed',
                  message: `${DISPLAY_NAME} reported an error: ${message}`,
                  hint: "See the run record for the agent's output.",
                },
          }),
        ];
      }
      default:
        return null;
    }
  }

  private toolCall(value: Record<string, unknown>): AgentEvent[] | null {
    const line = ToolCallLine.safeParse(value);
    if (!line.success) return null;
    const [kind, body] = Object.entries(line.data.tool_call)[0] ?? ['tool', {}];
    const fields = record(body);
    const args = record(fields['args']);
    const id = line.data.call_id ?? `${kind}-${this.toolNames.size}`;
    if (line.data.subtype === 'completed') {
      const name = this.toolNames.get(id) ?? kind;
      const { ok, output, summary } = toolOutcome(fields['result'], this.cwd);
      const events: AgentEvent[] = [];
      if (!this.toolNames.has(id))
        events.push(
          ev({ kind: 'tool_call', id, name, summary: toolSummary(kind, args, this.cwd), input: args }),
        );
      events.push(
        ev({
          kind: 'tool_result',
          id,
          name,
          ok,
          summary: summary ?? (firstLine(output) || (ok ? 'done' : 'failed')),
          output: clip(output, OUTPUT_CHARS),
        }),
      );
      return events;
    }
    this.toolNames.set(id, kind);
    return [
      ev({ kind: 'tool_call', id, name: kind, summary: toolSummary(kind, args, this.cwd), input: args }),
    ];
  }
}

export const cursorAdapter: AgentAdapter = {
  id: ID,
  displayName: DISPLAY_NAME,
  tier: 'experimental',
  aliases: ['cursor-agent'],
  // `cursor` may be the editor's launcher and `agent` anyone's: the probe checks --help says Cursor.
  binaries: ['cursor-agent', 'cursor', 'agent'],
  installHint: INSTALL_HINT,
  signInHint: SIGN_IN_HINT,
  // Cursor reports no tokens, so there is nothing to price.
  prices: {},
  demo: { lineDelayMs: 550 },
  probe,
  validateModel: (model): AdapterError | null => checkModelName(ID, model),
  buildCommand,
  createParser: (options = {}) => new CursorParser(options),
};
