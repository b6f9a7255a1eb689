/**
 * Cursor Agent (experimental). It cannot be installed from a registry, so this adapter follows
 * Cursor's documented headless interface (`-p --output-format stream-json --force`) and stream
 * schema, and reports its flags as inferred so the UI can warn. Its stdout can carry a banner and
 * sign-in text; the latter means it is not authenticated.
 */
import { probeCli, MODEL_FLAG, resumeFlag } from './kit/index.js';
import { defineAdapter, commandOf, modelArgs, resumeArgs } from './kit/index.js';
import { CliParser, rule, z, tagged, str, num, bool } from './kit/index.js';
import { ev, message, toolCall, completed } from './kit/index.js';
import { asNumber, asString, compactJson, oneLine, OUTPUT_CHARS, relativePath } from './kit/index.js';
import { normalizeLine, TEXT_OUTPUT_STAGE } from './kit/index.js';
import type { AgentEvent, BuildCommand, CliFacts, ToolTable } from './kit/index.js';

/** Its tools' lines, by the `<kind>ToolCall` key a call comes under. */
const TOOLS: ToolTable = {
  shell: ['shellToolCall'],
  path: [
    ['editToolCall', 'Edit'],
    ['writeToolCall', 'Write'],
    ['deleteToolCall', 'Delete'],
    ['readToolCall', 'Read'],
    ['lsToolCall', 'List'],
  ],
  pattern: [
    ['grepToolCall', 'Grep'],
    ['globToolCall', 'Glob'],
  ],
  todos: ['updateTodosToolCall'],
  mcp: ['mcpToolCall'],
};

const CLI: CliFacts = {
  id: 'cursor',
  displayName: 'Cursor Agent',
  installHint: 'curl https://cursor.com/install -fsS | bash',
  signInHint:
    'Set CURSOR_API_KEY in the environment (hydra.toml [agents.cursor.env]), or run `cursor-agent login` once.',
  // Cursor reports no tokens, so there is nothing to price.
  tools: TOOLS,
};

const probe = probeCli(CLI, {
  /** The flags hydra uses, as Cursor documents them (no release could be recorded). */
  flags: {
    print: { flags: ['-p', '--print'], means: 'a headless run that prints and exits' },
    outputFormat: { flags: ['--output-format'], means: 'its stream as JSON lines' },
    force: { flags: ['-f', '--force'], means: 'edits without asking' },
    model: MODEL_FLAG,
    // "Trust the workspace without prompting (headless mode only)": a fresh worktree is untrusted.
    trust: { flags: ['--trust'], means: 'a headless run in a new worktree' },
    // "Set sandbox mode: enabled or disabled": inside hydra's sandbox a nested one of its own fails.
    ownSandbox: { flags: ['--sandbox'], says: /disabled/, means: "its own sandbox off inside hydra's" },
    // `--resume [chatId]`: a follow-up continues the chat its init line named.
    resume: resumeFlag('--resume'),
  },
  requires: [['print'], ['outputFormat']],
  // A binary named `agent` (or `cursor`, the editor's launcher) may be someone else's.
  inferred: {
    identifies: /cursor/i,
    warning:
      "Cursor Agent support is experimental: its flags and output format are inferred from Cursor's documentation, not verified against a recorded run.",
  },
  lacking: {
    force: 'lists no --force flag: it may stop to ask before editing files.',
  },
});

const buildCommand: BuildCommand = (request, capabilities) => {
  const args = ['-p', '--output-format', 'stream-json'];
  if (capabilities.features['force'] !== false) args.push('--force');
  if (capabilities.features['trust'] === true) args.push('--trust');
  // --force already approves every command; in hydra's sandbox, its own sandbox stays off.
  if (request.sandboxed === true && capabilities.features['ownSandbox'] === true)
    args.push('--sandbox', 'disabled');
  args.push(...modelArgs(request), ...resumeArgs(request, capabilities, '--resume'));
  // Inferred: with no prompt argument, print mode reads the prompt from stdin like other CLIs.
  return commandOf(request, capabilities, { args });
};

// ---------------------------------------------------------------------------------------------
// Stream schemas (loose, from Cursor's output-format documentation)

const MessageLine = z.looseObject({
  type: z.enum(['assistant', 'user']),
  timestamp_ms: num,
  model_call_id: str,
  message: z.looseObject({
    role: str,
    content: z.union([z.array(z.looseObject({ type: z.string(), text: str })), z.string()]).nullish(),
  }),
});
const SystemLine = tagged('system', {
  subtype: str,
  session_id: str,
  model: str,
  cwd: str,
  permissionMode: str,
});
const ThinkingLine = tagged('thinking', { subtype: str, text: str });
const ToolCallLine = tagged('tool_call', {
  subtype: str,
  call_id: str,
  tool_call: z.record(z.string(), z.unknown()),
});
const ResultLine = tagged('result', { subtype: str, is_error: bool, result: str, session_id: str });

const SIGN_IN =
  /press any key to sign in|not (signed|logged) in|please (sign|log) ?in|cursor-agent login|authentication required/i;
const LOOKS_LIKE_JSON = /^\s*[[{]/;

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

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

/** ok and output of a completed tool call: `result.success` or `result.error` / `rejected`. */
const toolOutcome = (
  result: unknown,
  cwd: string | undefined,
): { ok: boolean; output: string; summary?: string } => {
  const fields = record(result);
  if ('success' in fields) {
    const success = record(fields['success']);
    const fileSummary = fileResultSummary(success, cwd);
    if (fileSummary !== undefined && asString(success['stdout']) === undefined)
      return { ok: true, output: compactJson(fields['success'], OUTPUT_CHARS), summary: fileSummary };
    const exitCode = success['exitCode'];
    const output =
      asString(success['stdout']) ??
      asString(success['content']) ??
      asString(success['output']) ??
      compactJson(fields['success'], OUTPUT_CHARS);
    const stderr = asString(success['stderr']) ?? '';
    return {
      ok: exitCode === undefined || exitCode === 0,
      output: stderr === '' ? output : `${output}\n${stderr}`,
    };
  }
  for (const key of ['error', 'failure', 'rejected']) {
    if (!(key in fields)) continue;
    const detail = record(fields[key]);
    const output =
      asString(detail['message']) ??
      asString(detail['error']) ??
      asString(detail['reason']) ??
      compactJson(fields[key], OUTPUT_CHARS);
    return { ok: false, output };
  }
  return { ok: true, output: compactJson(result, OUTPUT_CHARS) };
};

/** Past this many messages the result's text is kept as the CLI wrote it. */
const MAX_MESSAGES = 200;

class CursorParser extends CliParser {
  /** The whole assistant messages so far (a bounded number), to separate the result's text by. */
  private readonly messages: string[] = [];

  /** Banner and sign-in text are expected; malformed JSON is a parse error. */
  protected override nonJson(rawLine: string, raw: string, reason: string): AgentEvent[] {
    const line = normalizeLine(rawLine);
    if (SIGN_IN.test(line)) {
      const message = `${CLI.displayName} is not signed in: ${oneLine(line, 200)}`;
      return this.track([
        ev({ kind: 'failed', error: { kind: 'AuthMissing', message, hint: CLI.signInHint } }),
      ]);
    }
    if (LOOKS_LIKE_JSON.test(line) || line.length > 2000) return [ev({ kind: 'parse_error', raw, reason })];
    return [ev({ kind: 'progress', stage: TEXT_OUTPUT_STAGE, detail: oneLine(line) })];
  }

  protected override readonly lines = {
    system: rule(SystemLine, (line) => {
      const { cwd, model, permissionMode, session_id: sessionId } = line;
      if (cwd) this.cwd = cwd;
      const detail = [model, permissionMode]
        .filter((part): part is string => typeof part === 'string')
        .join(', ');
      return [{ ...this.init(sessionId, model, detail), stage: line.subtype ?? 'system' }];
    }),
    assistant: rule(MessageLine, (line) => this.message(line)),
    user: rule(MessageLine, (line) => this.message(line)),
    thinking: rule(ThinkingLine, (line) => {
      const thought = line.text ?? '';
      if (thought === '') return [];
      return [message('assistant', thought, { thinking: true, partial: line.subtype === 'delta' })];
    }),
    tool_call: rule(ToolCallLine, (line) => this.toolCall(line)),
    result: rule(ResultLine, (line) => {
      const result = this.separated(line.result ?? undefined);
      if (line.is_error !== true) return [completed(result)];
      return [ev({ kind: 'failed', error: this.classify({ text: result ?? line.subtype ?? 'error' }) })];
    }),
  };

  private message(line: z.infer<typeof MessageLine>): AgentEvent[] {
    const content = line.message.content;
    const said =
      typeof content === 'string' ? content : (content ?? []).map((block) => block.text ?? '').join('');
    if (said.trim() === '') return [];
    const role = line.type;
    // With --stream-partial-output, deltas carry timestamp_ms and no model_call_id; the
    // flushes that follow (with model_call_id, or with neither) repeat them as whole messages.
    const delta = role === 'assistant' && typeof line.timestamp_ms === 'number' && !line.model_call_id;
    if (delta) return [message(role, said, { partial: true })];
    if (role === 'assistant') {
      this.answer(said);
      if (this.messages.length < MAX_MESSAGES) this.messages.push(said);
    }
    return [message(role, said)];
  }

  /**
   * The CLI's result text is its assistant messages run together ("...first.Now I'll create..."):
   * when it is exactly that, the messages one per line instead. Any other text is kept as it is.
   */
  private separated(result: string | undefined): string | undefined {
    const { messages } = this;
    if (result === undefined || messages.length < 2 || messages.length >= MAX_MESSAGES) return result;
    return messages.join('') === result ? messages.join('\n') : result;
  }

  private toolCall(line: z.infer<typeof ToolCallLine>): AgentEvent[] {
    const [kind, body] = Object.entries(line.tool_call)[0] ?? ['tool', {}];
    const fields = record(body);
    const args = record(fields['args']);
    const id = line.call_id ?? `${kind}-${this.toolNames.size}`;
    const summary = this.summarize(kind, args, kind.replace(/ToolCall$/, ''));
    if (line.subtype !== 'completed') {
      this.toolNames.set(id, kind);
      return [toolCall(id, kind, summary, args)];
    }
    const name = this.toolNames.get(id) ?? kind;
    const outcome = toolOutcome(fields['result'], this.cwd);
    const events = this.callOnce(id, name, summary, args);
    events.push(...this.resultEvents(id, name, outcome.ok, outcome.output, outcome.summary));
    return events;
  }
}

export const cursorAdapter = defineAdapter({
  ...CLI,
  tier: 'experimental',
  aliases: ['cursor-agent'],
  // `cursor` may be the editor's launcher and `agent` anyone's: the probe checks --help says Cursor.
  binaries: ['cursor-agent', 'cursor', 'agent'],
  // No variable moves its state: an agent gets a home of its own (the user's entries linked, these copied).
  stateDirs: [
    { path: '.cursor', copy: { variable: 'HOME', to: '.cursor', skip: ['extensions', 'projects', 'chats'] } },
    { path: '.config/cursor', copy: { variable: 'HOME', to: '.config/cursor' } },
    {
      path: '.local/share/cursor-agent',
      copy: { variable: 'HOME', to: '.local/share/cursor-agent', skip: ['versions'] },
    },
  ],
  api: { hosts: ['api2.cursor.sh', 'api.cursor.com', 'cursor.com'], baseUrlEnv: [] },
  environment: { keys: ['CURSOR_API_KEY'], prefixes: ['CURSOR_'] },
  demo: { lineDelayMs: 550 },
  probe,
  buildCommand,
  createParser: (options) => new CursorParser(CLI, options),
});
