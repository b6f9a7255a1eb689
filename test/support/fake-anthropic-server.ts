/**
 * A scripted fake of the Anthropic Messages API, enough for the real Claude Code CLI to run a
 * whole headless session offline: `HEAD /`, `POST /v1/messages` (SSE when `stream: true`) and
 * `POST /v1/messages/count_tokens`.
 *
 * Scenarios:
 * - `success-edit`: turn 1 answers with a `Write` tool_use that creates `edit.filePath`; the next
 *   request (it carries the tool_result) gets the final text.
 * - `reply-text`: the first turn is the final text (for prompt-delivery checks).
 * - `auth-failure`: every model request gets 401 with the vendor's error JSON.
 * - `server-error`: every model request gets 500 with the vendor's error JSON.
 *
 * - `stall-mid-stream`: like `success-edit`, but the first turn's stream stops after its first
 *   events and the connection stays open (a model server that stops answering mid-stream).
 * - `hold-open-after-result`: like `success-edit`, but the final turn's response is never ended:
 *   every event is sent and the connection stays open.
 * - `hang-side-requests`: like `success-edit`, but the side calls are never answered.
 * - `bash-leaves-child`: turn 1 is a `Bash` tool_use that creates the file and leaves a background
 *   `sleep` running (a CLI whose tool left a child behind); the next turn is the final text.
 *
 * Requests without tools (the CLI's side calls, e.g. a title or a quota check) get a short text.
 */
import type { ServerResponse } from 'node:http';
import { isRecord, pathOf, sendJson, sendSse, startFakeModelServer } from './fake-model-server.js';
import type { FakeModelServer, RecordedRequest, SseEvent, SseFault } from './fake-model-server.js';
import { assertNever } from '../../src/core/events.js';

export type AnthropicScenario =
  | 'success-edit'
  | 'reply-text'
  | 'auth-failure'
  | 'server-error'
  | 'stall-mid-stream'
  | 'hold-open-after-result'
  | 'hang-side-requests'
  | 'bash-leaves-child';

export interface FakeAnthropicOptions {
  scenario: AnthropicScenario;
  /** The file the `Write` tool creates in `success-edit` (absolute, as Claude Code requires). */
  edit?: { filePath: string; content: string };
  /** The final assistant text. */
  finalText?: string;
  /** When set, turn 1 of `success-edit` runs this command with the `Bash` tool instead of writing. */
  shell?: string;
}

export interface ModelUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** Fixed usage per turn, so recorded fixtures are stable and tests can assert exact totals. */
const ANTHROPIC_TURN_USAGE: readonly ModelUsage[] = [
  { input_tokens: 1200, output_tokens: 40, cache_creation_input_tokens: 300, cache_read_input_tokens: 0 },
  { input_tokens: 1300, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 300 },
];

const DEFAULT_FINAL_TEXT = 'Created hello.txt with a greeting.';

const AUTH_ERROR = {
  type: 'error',
  error: { type: 'authentication_error', message: 'invalid x-api-key' },
};

const SERVER_ERROR = {
  type: 'error',
  error: { type: 'api_error', message: 'Internal server error' },
};

export const startFakeAnthropicServer = (options: FakeAnthropicOptions): Promise<FakeModelServer> => {
  let turn = 0;
  return startFakeModelServer((request, response) => {
    const path = pathOf(request);
    if (request.method === 'HEAD' || (request.method === 'GET' && path === '/')) {
      response.writeHead(200).end();
      return;
    }
    if (request.method !== 'POST') {
      sendJson(response, 404, notFound(path));
      return;
    }
    if (path === '/v1/messages/count_tokens') {
      sendJson(response, 200, { input_tokens: 100 });
      return;
    }
    if (path !== '/v1/messages') {
      sendJson(response, 404, notFound(path));
      return;
    }
    answerMessages(options, request, response, () => turn++);
  });
};

const notFound = (path: string): unknown => ({
  type: 'error',
  error: { type: 'not_found_error', message: `fake server: no route for ${path}` },
});

const answerMessages = (
  options: FakeAnthropicOptions,
  request: RecordedRequest,
  response: ServerResponse,
  nextTurn: () => number,
): void => {
  const headers = { 'request-id': 'req_fake_0001' };
  switch (options.scenario) {
    case 'auth-failure':
      sendJson(response, 401, AUTH_ERROR, headers);
      return;
    case 'server-error':
      sendJson(response, 500, SERVER_ERROR, headers);
      return;
    case 'success-edit':
    case 'reply-text':
    case 'stall-mid-stream':
    case 'hold-open-after-result':
    case 'hang-side-requests':
    case 'bash-leaves-child':
      break;
    default:
      assertNever(options.scenario);
  }
  const fault = sseFault(options.scenario);
  const body = isRecord(request.json) ? request.json : {};
  const model = typeof body.model === 'string' ? body.model : 'claude-fake';
  const finalText = options.finalText ?? DEFAULT_FINAL_TEXT;
  if (!hasTools(body)) {
    if (options.scenario === 'hang-side-requests') return;
    reply(response, body, textMessage('msg_fake_side', model, 'OK', ANTHROPIC_TURN_USAGE[1]));
    return;
  }
  if (carriesToolResult(body) || options.scenario === 'reply-text') {
    const turn = nextTurn();
    reply(response, body, textMessage(`msg_fake_turn${turn + 1}`, model, finalText, usageFor(turn)), fault);
    return;
  }
  // Only the final turn is held open: the CLI gets every turn it needs, then a connection that never ends.
  const earlier = options.scenario === 'hold-open-after-result' ? {} : fault;
  if (options.shell !== undefined) {
    const turn = nextTurn();
    reply(response, body, bashToolMessage(turn + 1, model, options.shell, usageFor(turn)));
    return;
  }
  const edit = options.edit;
  if (edit === undefined) {
    throw new Error('success-edit needs options.edit (the file the Write tool creates)');
  }
  const turn = nextTurn();
  if (options.scenario === 'bash-leaves-child') {
    const command = `printf %s ${shellQuote(edit.content)} > ${shellQuote(edit.filePath)}; ${BACKGROUND_CHILD_COMMAND}`;
    reply(response, body, bashToolMessage(turn + 1, model, command, usageFor(turn)));
    return;
  }
  const stall = options.scenario === 'stall-mid-stream' ? { stallAfter: 3 } : earlier;
  reply(response, body, writeToolMessage(turn + 1, model, edit, usageFor(turn)), stall);
};

/** How the scenario's streams misbehave (see SseFault). */
const sseFault = (scenario: AnthropicScenario): SseFault =>
  scenario === 'hold-open-after-result' ? { holdOpen: true } : {};

const usageFor = (turn: number): ModelUsage =>
  ANTHROPIC_TURN_USAGE[Math.min(turn, ANTHROPIC_TURN_USAGE.length - 1)] ?? ANTHROPIC_TURN_USAGE[0]!;

const hasTools = (body: Record<string, unknown>): boolean =>
  Array.isArray(body.tools) && body.tools.length > 0;

const carriesToolResult = (body: Record<string, unknown>): boolean => {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last: unknown = messages[messages.length - 1];
  if (!isRecord(last) || !Array.isArray(last.content)) return false;
  return last.content.some((block: unknown) => isRecord(block) && block.type === 'tool_result');
};

/** A complete assistant message, answered as SSE or as one JSON body depending on `stream`. */
interface ScriptedMessage {
  id: string;
  model: string;
  blocks: ScriptedBlock[];
  stopReason: 'end_turn' | 'tool_use';
  usage: ModelUsage;
}

type ScriptedBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

const textMessage = (
  id: string,
  model: string,
  text: string,
  usage: ModelUsage | undefined,
): ScriptedMessage => ({
  id,
  model,
  blocks: [{ type: 'text', text }],
  stopReason: 'end_turn',
  usage: usage ?? ANTHROPIC_TURN_USAGE[0]!,
});

/**
 * Turn `turn`'s tool call. Its id is the turn's (`toolu_fake_write_1` on the first): a resumed
 * session (a follow-up) keeps the earlier turns, and Claude Code drops a tool_use whose id it has
 * already seen in the session, asking again with "(no content)" for ever.
 */
const writeToolMessage = (
  turn: number,
  model: string,
  edit: { filePath: string; content: string },
  usage: ModelUsage,
): ScriptedMessage => ({
  id: `msg_fake_turn${turn}`,
  model,
  blocks: [
    { type: 'text', text: 'I will create the file.' },
    {
      type: 'tool_use',
      id: `toolu_fake_write_${turn}`,
      name: 'Write',
      input: { file_path: edit.filePath, content: edit.content },
    },
  ],
  stopReason: 'tool_use',
  usage,
});

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** Left running in the background by `bash-leaves-child` (a `sleep` with a length tests look for). */
export const BACKGROUND_CHILD_COMMAND = 'sleep 313 >/dev/null 2>&1 &';

/** Turn `turn`'s shell call (its id is the turn's, as writeToolMessage says why). */
const bashToolMessage = (
  turn: number,
  model: string,
  command: string,
  usage: ModelUsage,
): ScriptedMessage => ({
  id: `msg_fake_turn${turn}`,
  model,
  blocks: [
    {
      type: 'tool_use',
      id: `toolu_fake_bash_${turn}`,
      name: 'Bash',
      input: { command, description: 'Create the file' },
    },
  ],
  stopReason: 'tool_use',
  usage,
});

const reply = (
  response: ServerResponse,
  body: Record<string, unknown>,
  message: ScriptedMessage,
  fault: SseFault = {},
): void => {
  if (body.stream === true) {
    sendSse(response, messageEvents(message), { 'request-id': 'req_fake_0001' }, fault);
    return;
  }
  // A stalled server sends nothing at all to a request that wants one JSON body.
  if (fault.stallAfter !== undefined) return;
  sendJson(response, 200, {
    id: message.id,
    type: 'message',
    role: 'assistant',
    model: message.model,
    content: message.blocks,
    stop_reason: message.stopReason,
    stop_sequence: null,
    usage: message.usage,
  });
};

/** The Messages API's SSE sequence for one message. */
const messageEvents = (message: ScriptedMessage): SseEvent[] => {
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: message.id,
          type: 'message',
          role: 'assistant',
          model: message.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...message.usage, output_tokens: 1 },
        },
      },
    },
  ];
  message.blocks.forEach((block, index) => events.push(...blockEvents(block, index)));
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: message.stopReason, stop_sequence: null },
        usage: { output_tokens: message.usage.output_tokens },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
};

const blockEvents = (block: ScriptedBlock, index: number): SseEvent[] => {
  const stop: SseEvent = { event: 'content_block_stop', data: { type: 'content_block_stop', index } };
  switch (block.type) {
    case 'text':
      return [
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } },
        },
        stop,
      ];
    case 'tool_use':
      return [
        {
          event: 'content_block_start',
          data: {
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
          },
        },
        {
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
          },
        },
        stop,
      ];
    default:
      return assertNever(block);
  }
};
