/**
 * A scripted fake of the OpenAI Responses API, enough for the real Codex CLI (`codex exec`) to run
 * a whole headless session offline when pointed at it as a custom model provider
 * (`wire_api = "responses"`): `POST /v1/responses` answered with SSE, `GET /v1/models` answered
 * with an empty list.
 *
 * Scenarios:
 * - `success-edit`: turn 1 answers with an `apply_patch` custom tool call that adds `edit.path`
 *   (relative to the session's working directory); the next request (it carries the
 *   `custom_tool_call_output`) gets the final text.
 * - `success-shell`: turn 1 answers with an `exec_command` function call whose shell command writes
 *   `edit.path`; the next request (it carries the `function_call_output`) gets the final text.
 *   Versions that do not declare the tool a scenario uses get the one they declare instead
 *   (`exec_command`, or the 0.2x `shell` tool).
 * - `reply-text`: the first turn is the final text (for prompt-delivery checks).
 * - `auth-failure`: every model request gets 401 with the vendor's error JSON.
 * - `server-error`: every model request gets 500 with the vendor's error JSON.
 * - `stall-mid-stream`: like `success-edit`, but the first turn's stream stops after its first
 *   events and the connection stays open (a model server that stops answering mid-stream).
 * - `shell-leaves-child`: like `success-shell`, but the shell command also leaves a background
 *   `sleep` running (a CLI whose tool left a child behind).
 * - `hold-open-after-result`: like `success-edit`, but the final turn's response is never ended:
 *   every event is sent and the connection stays open.
 */
import type { ServerResponse } from 'node:http';
import { assertNever } from '../../src/core/events.js';
import { isRecord, pathOf, sendJson, sendSse, startFakeModelServer } from './fake-model-server.js';
import type { FakeModelServer, RecordedRequest, SseEvent, SseFault } from './fake-model-server.js';

export type OpenAiScenario =
  | 'success-edit'
  | 'success-shell'
  | 'reply-text'
  | 'auth-failure'
  | 'server-error'
  | 'stall-mid-stream'
  | 'hold-open-after-result'
  | 'shell-leaves-child';

export interface FakeOpenAiOptions {
  scenario: OpenAiScenario;
  /** The file the tool call creates, relative to the session's working directory. */
  edit?: { path: string; content: string };
  finalText?: string;
  /** When set, turn 1 of `success-shell` runs this shell command instead of the one writing `edit`. */
  shell?: string;
}

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

const usage = (input: number, cached: number, output: number, reasoning: number): ResponsesUsage => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: cached },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: reasoning },
  total_tokens: input + output,
});

/** Fixed usage per turn, so recorded fixtures are stable and tests can assert exact totals. */
const OPENAI_TURN_USAGE: readonly ResponsesUsage[] = [usage(2100, 0, 60, 16), usage(2300, 2048, 14, 0)];

const DEFAULT_CODEX_FINAL_TEXT = 'Created hello.txt with a greeting.';

export const OPENAI_AUTH_ERROR = {
  error: {
    message:
      'Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.',
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_api_key',
  },
};

export const OPENAI_SERVER_ERROR = {
  error: {
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
    param: null,
    code: null,
  },
};

export const startFakeOpenAiServer = (options: FakeOpenAiOptions): Promise<FakeModelServer> => {
  let turn = 0;
  return startFakeModelServer((request, response) => {
    const path = pathOf(request);
    if (request.method === 'GET' && path.endsWith('/models')) {
      sendJson(response, 200, { object: 'list', data: [], models: [] });
      return;
    }
    if (request.method === 'POST' && path.endsWith('/responses')) {
      answerResponses(options, request, response, () => turn++);
      return;
    }
    sendJson(response, 404, {
      error: {
        message: `fake server: no route for ${request.method} ${path}`,
        type: 'invalid_request_error',
      },
    });
  });
};

const answerResponses = (
  options: FakeOpenAiOptions,
  request: RecordedRequest,
  response: ServerResponse,
  nextTurn: () => number,
): void => {
  const headers = { 'x-request-id': 'req_fake_0001' };
  switch (options.scenario) {
    case 'auth-failure':
      sendJson(response, 401, OPENAI_AUTH_ERROR, headers);
      return;
    case 'server-error':
      sendJson(response, 500, OPENAI_SERVER_ERROR, headers);
      return;
    case 'success-edit':
    case 'success-shell':
    case 'reply-text':
    case 'stall-mid-stream':
    case 'hold-open-after-result':
    case 'shell-leaves-child':
      break;
    default:
      assertNever(options.scenario);
  }
  const fault: SseFault = options.scenario === 'hold-open-after-result' ? { holdOpen: true } : {};
  const body = isRecord(request.json) ? request.json : {};
  const model = typeof body.model === 'string' ? body.model : 'gpt-fake';
  const turn = nextTurn();
  const id = `resp_fake_turn${turn + 1}`;
  const turnUsage = OPENAI_TURN_USAGE[Math.min(turn, OPENAI_TURN_USAGE.length - 1)] ?? OPENAI_TURN_USAGE[0]!;
  const finalText = options.finalText ?? DEFAULT_CODEX_FINAL_TEXT;
  if (carriesToolOutput(body) || options.scenario === 'reply-text') {
    sendSse(
      response,
      responseEvents(id, model, [messageItem(`msg_fake_turn${turn + 1}`, finalText)], turnUsage),
      headers,
      fault,
    );
    return;
  }
  const edit = options.edit;
  if (edit === undefined) {
    throw new Error(`${options.scenario} needs options.edit (the file the tool call creates)`);
  }
  const call = toolCallFor(
    options.scenario === 'success-shell' || options.scenario === 'shell-leaves-child'
      ? 'success-shell'
      : 'success-edit',
    declaredTools(body),
    options.scenario === 'shell-leaves-child' ? { ...edit, background: BACKGROUND_CHILD_COMMAND } : edit,
    options.shell,
  );
  sendSse(
    response,
    responseEvents(id, model, [messageItem('msg_fake_plan', 'I will create the file.'), call], turnUsage),
    headers,
    options.scenario === 'stall-mid-stream' ? { stallAfter: 2 } : {},
  );
};

const carriesToolOutput = (body: Record<string, unknown>): boolean => {
  const input = Array.isArray(body.input) ? body.input : [];
  return input.some(
    (item: unknown) =>
      isRecord(item) && (item.type === 'function_call_output' || item.type === 'custom_tool_call_output'),
  );
};

/** The names of the tools the request declares (function and custom/freeform ones alike). */
const declaredTools = (body: Record<string, unknown>): Set<string> => {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return new Set(
    tools.flatMap((tool: unknown) => (isRecord(tool) && typeof tool.name === 'string' ? [tool.name] : [])),
  );
};

/**
 * Picks the tool call the CLI understands: current versions declare a freeform `apply_patch` and
 * `exec_command {cmd}`; 0.11x declares `exec_command` without `apply_patch` for some models; the
 * 0.2x versions only declare `shell {command: [argv]}`.
 */
/** The file a tool call writes, and a shell command to leave running in the background after it. */
interface ShellEdit {
  path: string;
  content: string;
  background?: string;
}

const toolCallFor = (
  scenario: 'success-edit' | 'success-shell',
  tools: ReadonlySet<string>,
  edit: ShellEdit,
  shell: string = writeCommand(edit),
): OutputItem => {
  if (scenario === 'success-edit' && tools.has('apply_patch')) return applyPatchItem(edit);
  if (tools.has('exec_command')) return execCommandItem(shell);
  return legacyShellItem(shell);
};

type OutputItem = Record<string, unknown> & { type: string; id: string };

const messageItem = (id: string, text: string): OutputItem => ({
  type: 'message',
  id,
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});

/** `apply_patch` as the freeform (custom) tool current Codex versions declare. */
const applyPatchItem = (edit: { path: string; content: string }): OutputItem => {
  const added = edit.content
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => `+${line}`)
    .join('\n');
  return {
    type: 'custom_tool_call',
    id: 'ctc_fake_1',
    call_id: 'call_fake_patch_1',
    name: 'apply_patch',
    status: 'completed',
    input: `*** Begin Patch\n*** Add File: ${edit.path}\n${added}\n*** End Patch\n`,
  };
};

/** Left running in the background by `shell-leaves-child` (a `sleep` with a length tests look for). */
export const BACKGROUND_CHILD_COMMAND = 'sleep 313 >/dev/null 2>&1 &';

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

const writeCommand = (edit: ShellEdit): string =>
  `printf %s ${shellQuote(edit.content)} > ${shellQuote(edit.path)}${edit.background === undefined ? '' : `; ${edit.background}`}`;

const execCommandItem = (command: string): OutputItem => ({
  type: 'function_call',
  id: 'fc_fake_1',
  call_id: 'call_fake_shell_1',
  name: 'exec_command',
  status: 'completed',
  arguments: JSON.stringify({ cmd: command }),
});

const legacyShellItem = (command: string): OutputItem => ({
  type: 'function_call',
  id: 'fc_fake_1',
  call_id: 'call_fake_shell_1',
  name: 'shell',
  status: 'completed',
  arguments: JSON.stringify({ command: ['bash', '-lc', command] }),
});

/** The Responses API's SSE sequence for one response with the given output items. */
const responseEvents = (
  id: string,
  model: string,
  items: readonly OutputItem[],
  turnUsage: ResponsesUsage,
): SseEvent[] => {
  const base = { id, object: 'response', created_at: 1_700_000_000, model };
  const events: SseEvent[] = [
    {
      event: 'response.created',
      data: { type: 'response.created', response: { ...base, status: 'in_progress', output: [] } },
    },
  ];
  items.forEach((item, index) => events.push(...itemEvents(item, index)));
  events.push({
    event: 'response.completed',
    data: {
      type: 'response.completed',
      response: { ...base, status: 'completed', output: items, usage: turnUsage },
    },
  });
  return events.map((event, sequence) => ({
    event: event.event,
    data: isRecord(event.data) ? { ...event.data, sequence_number: sequence } : event.data,
  }));
};

const itemEvents = (item: OutputItem, outputIndex: number): SseEvent[] => {
  const events: SseEvent[] = [
    {
      event: 'response.output_item.added',
      data: {
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, status: 'in_progress' },
      },
    },
  ];
  const text = textOf(item);
  if (text !== undefined) {
    events.push({
      event: 'response.output_text.delta',
      data: {
        type: 'response.output_text.delta',
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        delta: text,
      },
    });
  }
  events.push({
    event: 'response.output_item.done',
    data: { type: 'response.output_item.done', output_index: outputIndex, item },
  });
  return events;
};

const textOf = (item: OutputItem): string | undefined => {
  if (item.type !== 'message' || !Array.isArray(item.content)) return undefined;
  const first: unknown = item.content[0];
  return isRecord(first) && typeof first.text === 'string' ? first.text : undefined;
};
