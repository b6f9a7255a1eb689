/**
 * OpenAI Codex (`codex exec --json`). Flags drift between releases (`--full-auto` is gone in
 * newer ones), so every optional flag comes from `codex exec --help`, never from assumptions.
 * Codex reports tokens but no cost: hydra estimates it from the price table.
 *
 * Its stream is thread/turn/item events; an item (a message, a command, a file change, an MCP
 * call...) is announced, updated and completed under one id, and becomes a tool call when first
 * seen and a tool result when completed.
 */
import { join } from 'node:path';
import { probeCli, MODEL_FLAG } from './kit/index.js';
import { defineAdapter, commandOf, fullAutonomy, modelArgs } from './kit/index.js';
import { CliParser, rule, z, tagged, str, num, bool, json } from './kit/index.js';
import { ev, message, completed, emptyUsage, addUsage } from './kit/index.js';
import { asString, compactJson, firstLine, oneLine, OUTPUT_CHARS, relativePath } from './kit/index.js';
import type { AgentEvent, BuildCommand, CliFacts, Usage, UsageCounts } from './kit/index.js';

const LAST_MESSAGE_FILE = 'last-message.txt';

/**
 * `codex exec --json` prints thread/turn/item events since 0.44 (openai/codex#4525); older
 * releases print a different, legacy event stream under the same flag.
 */
export const CODEX_MIN_JSON_VERSION = '0.44.0';

/**
 * The model Codex runs when nothing names one: gpt-5.5 for the CLI versions hydra records (0.169,
 * see scripts/vendor-cli.ts). Its stream does not name the model, so this and `model` in Codex's
 * own config.toml are what hydra prices a run with.
 */
const CODEX_DEFAULT_MODEL = 'gpt-5.5';

const CLI: CliFacts = {
  id: 'codex',
  displayName: 'Codex',
  installHint: 'npm install -g @openai/codex',
  signInHint: 'Run `codex login` once, or set OPENAI_API_KEY in the environment.',
};

const probe = probeCli(CLI, {
  helpArgs: ['exec', '--help'],
  /** The flags hydra uses, as `codex exec --help` lists them. */
  flags: {
    json: { flags: ['--json'], means: 'to follow the run' },
    cd: { flags: ['-C', '--cd'], means: 'the worktree as its working root' },
    fullAuto: { flags: ['--full-auto'], means: 'to edit files unattended (older releases)' },
    sandbox: { flags: ['-s', '--sandbox'], means: 'to edit files unattended (workspace-write)' },
    bypass: {
      flags: ['--dangerously-bypass-approvals-and-sandbox'],
      means: '--unsafe and sandboxed races (no approvals, no sandbox of its own)',
    },
    skipGitRepoCheck: { flags: ['--skip-git-repo-check'], means: 'a run in a linked worktree' },
    outputLastMessage: { flags: ['-o', '--output-last-message'], means: 'the final message in a file' },
    model: MODEL_FLAG,
    // "If not provided as an argument (or if `-` is used), instructions are read from stdin."
    stdinPrompt: { help: /read from stdin/i, means: 'a long prompt on stdin' },
    // "resume  Resume a previous session by id" in exec's Commands (0.44 and later).
    resume: { help: /^\s+resume\s+Resume\b/m, means: 'follow-up rounds in the same thread' },
  },
  requires: [['json'], ['fullAuto', 'sandbox']],
  minVersion: {
    version: CODEX_MIN_JSON_VERSION,
    problem: 'prints the legacy `exec --json` event format, not the thread/turn/item events hydra reads',
  },
  warnings: [
    {
      // Its own sandbox inside hydra's fails every command (nested bubblewrap), and Codex exits 0.
      when: (has) => !has.bypass && !has.sandbox,
      text: "has neither --dangerously-bypass-approvals-and-sandbox nor --sandbox: in hydra's sandbox it starts its own (--full-auto), whose commands may all fail.",
    },
  ],
  lacking: {
    outputLastMessage: 'has no --output-last-message: the final message comes from the stream only.',
    cd: 'has no -C/--cd: it runs in its working directory instead.',
    skipGitRepoCheck: 'has no --skip-git-repo-check.',
  },
});

/**
 * Its approval and sandbox flags. Full autonomy (--unsafe, or hydra's sandbox around it) starts no
 * sandbox of its own: with a system bubblewrap, Codex's workspace-write sandbox fails every command
 * inside another and still exits 0.
 */
const sandboxArgs = (full: boolean, features: Record<string, boolean>): string[] => {
  if (full && features['bypass'] === true) return ['--dangerously-bypass-approvals-and-sandbox'];
  if (full && features['sandbox'] === true) return ['--sandbox', 'danger-full-access'];
  if (features['fullAuto'] === true) return ['--full-auto'];
  if (features['sandbox'] === true) return ['--sandbox', 'workspace-write'];
  return [];
};

const buildCommand: BuildCommand = (request, capabilities) => {
  const features = capabilities.features;
  const args = ['exec', '--json'];
  if (features['cd'] !== false) args.push('-C', request.cwd);
  // Read-only (a judge): Codex's read-only sandbox.
  const readOnly = request.readOnly === true && features['sandbox'] === true;
  args.push(...(readOnly ? ['--sandbox', 'read-only'] : sandboxArgs(fullAutonomy(request), features)));
  if (features['skipGitRepoCheck'] === true) args.push('--skip-git-repo-check');
  // The long spelling: 0.2x releases have no `-o` short form.
  const lastMessageFile =
    features['outputLastMessage'] === true ? join(request.scratchDir, LAST_MESSAGE_FILE) : undefined;
  if (lastMessageFile !== undefined) args.push('--output-last-message', lastMessageFile);
  args.push(...modelArgs(request));
  // A follow-up: `codex exec [OPTIONS] resume <thread_id> [PROMPT]`; exec's options go before the
  // subcommand (clap reads them there), the prompt after the thread id.
  const resumed = request.resumeSessionId !== undefined && features['resume'] === true;
  const tail = resumed ? ['resume', request.resumeSessionId ?? ''] : [];
  // A prompt of exactly "-" would mean "read stdin" as an argument, so it travels through stdin too.
  const prompt = { stdinArgs: ['-'], forceStdin: request.prompt.trim() === '-' };
  return commandOf(request, capabilities, {
    args,
    tail,
    prompt,
    ...(lastMessageFile ? { lastMessageFile } : {}),
    readOnly,
  });
};

// ---------------------------------------------------------------------------------------------
// Stream schemas (loose)

const UsageSchema = z.looseObject({
  input_tokens: num,
  cached_input_tokens: num,
  output_tokens: num,
  reasoning_output_tokens: num,
  cache_write_input_tokens: num,
});
const ThreadStarted = tagged('thread.started', { thread_id: str });
const TurnCompleted = tagged('turn.completed', { usage: UsageSchema.nullish() });
const TurnFailed = tagged('turn.failed', { error: z.looseObject({ message: str }).nullish() });
const ThreadError = tagged('error', { message: str });
const ItemLine = z.looseObject({
  type: z.enum(['item.started', 'item.updated', 'item.completed']),
  // Early releases of this format named the item's type `item_type`.
  item: z.looseObject({ id: str, type: str, item_type: str }),
});

/** The item types, one shape each (openai/codex's exec_events.rs `ThreadItemDetails`). */
const Items = {
  text: z.looseObject({ text: str }),
  command: z.looseObject({ command: str, aggregated_output: str, exit_code: num, status: str }),
  fileChange: z.looseObject({
    changes: z.array(z.looseObject({ path: z.string(), kind: json })).nullish(),
    status: str,
  }),
  mcp: z.looseObject({ server: str, tool: str, arguments: json, result: json, error: json, status: str }),
  webSearch: z.looseObject({ query: str }),
  todo: z.looseObject({ items: z.array(z.looseObject({ text: str, completed: bool })).nullish() }),
};

type ItemPhase = z.infer<typeof ItemLine>['type'];

/**
 * A turn's counts in hydra's terms. input_tokens includes cached and cache-written input; hydra's
 * Usage keeps those apart, so inputTokens + cache reads + writes = input_tokens.
 */
const turnCounts = (usage: z.infer<typeof UsageSchema>): UsageCounts => {
  const input = usage.input_tokens ?? 0;
  const cached = Math.min(usage.cached_input_tokens ?? 0, input);
  const written = Math.min(usage.cache_write_input_tokens ?? 0, input - cached);
  return {
    inputTokens: input - cached - written,
    cacheReadTokens: cached,
    cacheWriteTokens: written,
    outputTokens: usage.output_tokens ?? 0,
  };
};

/** What a tool-like item says about itself: the call's line and input, and once done, its result. */
interface ToolItem {
  name: string;
  summary: string;
  input: unknown;
  ok: boolean;
  output: string;
  /** The result's line, when not the output's first line. */
  resultSummary?: string;
}

const changeKind = (kind: unknown): string => {
  if (typeof kind === 'string') return kind;
  if (typeof kind === 'object' && kind !== null && typeof (kind as { type?: unknown }).type === 'string')
    return (kind as { type: string }).type;
  return 'update';
};

class CodexParser extends CliParser {
  private totals: Usage = emptyUsage();
  private anonymousItems = 0;

  private readonly itemLine = (value: Record<string, unknown>): AgentEvent[] | null => this.item(value);

  protected override readonly lines = {
    'thread.started': rule(ThreadStarted, (line) => [this.init(line.thread_id, this.requestedModel)]),
    'turn.started': () => [ev({ kind: 'progress', stage: 'turn_started' })],
    // Per-turn counts (one turn per `codex exec`).
    'turn.completed': rule(TurnCompleted, ({ usage }) => {
      this.totals = addUsage(this.totals, { ...(usage ? turnCounts(usage) : {}), turns: 1 });
      const total = this.priced(this.totals);
      this.state.pendingError = undefined;
      return [ev({ kind: 'usage', usage: total }), completed(this.state.lastText, total)];
    }),
    'turn.failed': rule(TurnFailed, (line) => {
      const message = line.error?.message ?? this.state.pendingError?.message ?? 'turn failed';
      const usage = this.state.usage === undefined ? {} : { usage: this.state.usage };
      return [ev({ kind: 'failed', error: this.classify({ text: message }), ...usage })];
    }),
    // Reported before turn.failed, and for transient stream errors ("Reconnecting... 1/5") that the
    // run can survive: remembered, and only fatal if the run ends without a result.
    error: rule(ThreadError, (line) => {
      const message = line.message ?? 'unknown error';
      this.state.pendingError = this.classify({ text: message });
      return [ev({ kind: 'progress', stage: 'error', detail: oneLine(message) })];
    }),
    'item.started': this.itemLine,
    'item.updated': this.itemLine,
    'item.completed': this.itemLine,
  };

  private item(value: Record<string, unknown>): AgentEvent[] | null {
    const parsed = ItemLine.safeParse(value);
    if (!parsed.success) return null;
    const line = parsed.data;
    const phase = line.type;
    const item = line.item as Record<string, unknown>;
    const itemType = line.item.type ?? line.item.item_type ?? 'unknown';
    const id = line.item.id ?? `item-${(this.anonymousItems += 1)}`;
    const done = phase === 'item.completed';
    switch (itemType) {
      case 'agent_message':
      case 'assistant_message':
      case 'reasoning': {
        const said = done ? (Items.text.safeParse(item).data?.text ?? '') : '';
        if (said === '') return [];
        const thinking = itemType === 'reasoning';
        if (!thinking) this.answer(said);
        return [message('assistant', said, thinking ? { thinking } : {})];
      }
      case 'command_execution':
      case 'file_change':
      case 'mcp_tool_call':
      case 'web_search':
        return this.tool(phase, id, this.toolItem(itemType, item));
      case 'todo_list': {
        const items = Items.todo.safeParse(item).data?.items ?? [];
        const finished = items.filter((entry) => entry.completed === true).length;
        return [ev({ kind: 'progress', stage: 'todo', detail: `${finished}/${items.length} done` })];
      }
      case 'error':
        // An error item does not fail the run (an unknown model name adds one, and the run goes on).
        return done ? [message('system', `error: ${asString(item['message']) ?? 'error'}`)] : [];
      default:
        return [ev({ kind: 'unknown', type: `${phase}:${itemType}`, raw: value })];
    }
  }

  private toolItem(itemType: string, item: Record<string, unknown>): ToolItem {
    switch (itemType) {
      case 'command_execution': {
        const data = Items.command.safeParse(item).data ?? {};
        const command = data.command ?? '';
        const exitCode = data.exit_code ?? null;
        const output = data.aggregated_output ?? '';
        const head = exitCode === null ? (data.status ?? 'done') : `exit ${exitCode}`;
        const first = firstLine(output, 120);
        const failed =
          data.status === 'failed' || data.status === 'declined' || (exitCode !== null && exitCode !== 0);
        const resultSummary = first === '' ? head : `${head}: ${first}`;
        return {
          name: itemType,
          summary: oneLine(`$ ${command}`),
          input: { command },
          ok: !failed,
          output,
          resultSummary,
        };
      }
      case 'file_change': {
        const data = Items.fileChange.safeParse(item).data ?? {};
        const changes = data.changes ?? [];
        const described = changes.map(
          (change) => `${changeKind(change.kind)} ${relativePath(change.path, this.cwd)}`,
        );
        const shown =
          described.length <= 3
            ? described.join(', ')
            : `${described.slice(0, 3).join(', ')} (+${described.length - 3} more)`;
        const ok = data.status !== 'failed' && data.status !== 'declined';
        return {
          name: itemType,
          summary: oneLine(shown || 'Edit files'),
          input: { changes },
          ok,
          output: described.join('\n'),
        };
      }
      case 'mcp_tool_call': {
        const data = Items.mcp.safeParse(item).data ?? {};
        const name = `${data.server ?? 'mcp'}.${data.tool ?? 'tool'}`;
        const failed = data.status === 'failed' || (data.error !== undefined && data.error !== null);
        const output = compactJson(failed ? data.error : data.result, OUTPUT_CHARS);
        return {
          name,
          summary: oneLine(`${name} ${compactJson(data.arguments)}`),
          input: data.arguments,
          ok: !failed,
          output,
        };
      }
      default: {
        const query = Items.webSearch.safeParse(item).data?.query ?? '';
        return {
          name: 'web_search',
          summary: oneLine(`Search ${query}`),
          input: item,
          ok: true,
          output: query,
        };
      }
    }
  }

  /** A tool_call when the item is first seen, then a tool_result when it is completed. */
  private tool(phase: ItemPhase, id: string, tool: ToolItem): AgentEvent[] {
    const events = this.callOnce(id, tool.name, tool.summary, tool.input);
    if (phase === 'item.completed')
      events.push(...this.resultEvents(id, tool.name, tool.ok, tool.output, tool.resultSummary));
    return events;
  }
}

export const codexAdapter = defineAdapter({
  ...CLI,
  tier: 'tier1',
  aliases: [],
  binaries: ['codex'],
  modelConfig: { homeEnv: 'CODEX_HOME', homeDir: '.codex', file: 'config.toml', key: 'model' },
  defaultModel: CODEX_DEFAULT_MODEL,
  stateDirs: [
    {
      path: '.codex',
      env: 'CODEX_HOME',
      // Its config.toml (mcp_servers, notify) runs code: an agent gets a copy, without past sessions and logs.
      copy: {
        variable: 'CODEX_HOME',
        to: '',
        skip: ['sessions', 'archived_sessions', 'log', 'history.jsonl', 'tmp', '.tmp', 'cache'],
      },
    },
  ],
  api: { hosts: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'], baseUrlEnv: ['OPENAI_BASE_URL'] },
  // Its providers' `base_url` (`[model_providers.<id>]`); `-c` in extra_args is read as well.
  endpointFiles: [{ state: '.codex', file: 'config.toml' }],
  // Its providers' keys and settings: OpenAI's, and Azure OpenAI's (AZURE_OPENAI_API_KEY).
  environment: {
    keys: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
    prefixes: ['OPENAI_', 'CODEX_', 'AZURE_OPENAI_'],
  },
  demo: { lineDelayMs: 700 },
  probe,
  buildCommand,
  createParser: (options) => new CodexParser(CLI, options),
});
