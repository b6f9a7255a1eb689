/**
 * A scripted fake of the OpenAI Chat Completions API, enough for the real Qwen Code and opencode
 * CLIs to run a whole headless session offline when pointed at it as an OpenAI-compatible
 * endpoint: `POST /v1/chat/completions` (SSE `data:` chunks ending in `data: [DONE]` when
 * `stream: true`, one JSON object otherwise) and `GET /v1/models`.
 *
 * Scenarios:
 * - `success-edit`: turn 1 answers with a call to the file-writing tool the request declares
 *   (Qwen Code's `write_file {file_path, content}`, opencode's `write {filePath, content}`) that
 *   creates `edit.path` inside the working directory the CLI names in its prompt; the next
 *   request (it carries a `role: "tool"` message) gets the final text.
 * - `reply-text`: the first turn is the final text (for prompt-delivery checks).
 * - `auth-failure`: every model request gets 401 with OpenAI's error JSON.
 * - `server-error`: every model request gets 500 with OpenAI's error JSON and `retry-after-ms: 10`
 *   (opencode and the OpenAI SDK honour it, so their retries take milliseconds, not a minute).
 *
 * Requests that declare no tools (the CLIs' side calls: a session title, a next-speaker check)
 * get a short text, so they never consume a scripted turn.
 */
import type { ServerResponse } from 'node:http';
import { isAbsolute, join } from 'node:path';
import { assertNever } from '../../src/core/events.js';
import { isRecord, pathOf, sendJson, startFakeModelServer } from './fake-model-server.js';
import type { FakeModelServer, RecordedRequest } from './fake-model-server.js';
import { OPENAI_AUTH_ERROR, OPENAI_SERVER_ERROR } from './fake-openai-server.js';

export type ChatScenario = 'success-edit' | 'reply-text' | 'auth-failure' | 'server-error';

export interface FakeChatOptions {
  scenario: ChatScenario;
  /** The file the tool call creates, relative to the working directory the CLI names. */
  edit?: { path: string; content: string };
  finalText?: string;
  /** The model id `GET /v1/models` lists (the CLIs ask for it by the name they were given). */
  model?: string;
  /** When set, turn 1 of `success-edit` runs this command with the shell tool instead of writing. */
  shell?: string;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

const usage = (prompt: number, cached: number, completion: number): ChatUsage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: cached },
});

/** Fixed usage per turn, so recorded fixtures are stable and tests can assert exact totals. */
const CHAT_TURN_USAGE: readonly ChatUsage[] = [usage(1800, 0, 50), usage(2000, 1536, 12)];

/** What side calls (requests without tools) are charged. */
const SIDE_CALL_USAGE = usage(100, 0, 5);

const DEFAULT_CHAT_FINAL_TEXT = 'Created hello.txt with a greeting.';

const FAKE_CHAT_MODEL = 'fake-chat-model';

/**
 * Where each CLI names its working directory in the prompt it sends: Qwen Code's environment
 * context ("I'm currently working in the directory: <path>"), opencode's system prompt
 * ("Working directory: <path>").
 */
const WORKING_DIRECTORY = [
  /working in the directory:\s*([^\s"\\]+)/,
  /Working directory:\s*([^\s"\\<]+)/,
  /<cwd>([^<]+)<\/cwd>/,
];

/** The working directory a chat request names, or undefined. */
const chatWorkingDirectory = (request: RecordedRequest): string | undefined => {
  for (const pattern of WORKING_DIRECTORY) {
    const match = pattern.exec(request.text);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
};

export const startFakeOpenAiChatServer = (options: FakeChatOptions): Promise<FakeModelServer> => {
  let turn = 0;
  return startFakeModelServer((request, response) => {
    const path = pathOf(request);
    if (request.method === 'GET' && path.endsWith('/models')) {
      const id = options.model ?? FAKE_CHAT_MODEL;
      sendJson(response, 200, {
        object: 'list',
        data: [{ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' }],
      });
      return;
    }
    if (request.method === 'POST' && path.endsWith('/chat/completions')) {
      answerChat(options, request, response, () => turn++);
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

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

interface Reply {
  text?: string;
  toolCall?: ToolCall;
  usage: ChatUsage;
}

const answerChat = (
  options: FakeChatOptions,
  request: RecordedRequest,
  response: ServerResponse,
  nextTurn: () => number,
): void => {
  const headers = { 'x-request-id': 'req_fake_chat_0001' };
  switch (options.scenario) {
    case 'auth-failure':
      sendJson(response, 401, OPENAI_AUTH_ERROR, headers);
      return;
    case 'server-error':
      // retry-after-ms (honoured by the OpenAI SDK and opencode) keeps the CLIs' retries quick.
      sendJson(response, 500, OPENAI_SERVER_ERROR, { ...headers, 'retry-after-ms': '10' });
      return;
    case 'success-edit':
    case 'reply-text':
      break;
    default:
      assertNever(options.scenario);
  }
  const body = isRecord(request.json) ? request.json : {};
  const model = typeof body.model === 'string' ? body.model : (options.model ?? FAKE_CHAT_MODEL);
  const finalText = options.finalText ?? DEFAULT_CHAT_FINAL_TEXT;
  if (declaredTools(body).size === 0) {
    send(response, body, model, 'chatcmpl_fake_side', { text: 'OK', usage: SIDE_CALL_USAGE }, headers);
    return;
  }
  const turn = nextTurn();
  const id = `chatcmpl_fake_turn${turn + 1}`;
  const turnUsage = CHAT_TURN_USAGE[Math.min(turn, CHAT_TURN_USAGE.length - 1)] ?? CHAT_TURN_USAGE[0]!;
  if (carriesToolResult(body) || options.scenario === 'reply-text') {
    send(response, body, model, id, { text: finalText, usage: turnUsage }, headers);
    return;
  }
  if (options.shell !== undefined) {
    // Qwen Code's `run_shell_command`, opencode's `bash`.
    const name = declaredTools(body).has('run_shell_command') ? 'run_shell_command' : 'bash';
    const args = JSON.stringify({ command: options.shell, description: 'Run the command' });
    const toolCall = { id: 'call_fake_shell_1', name, arguments: args };
    send(response, body, model, id, { text: 'I will run it.', toolCall, usage: turnUsage }, headers);
    return;
  }
  const edit = options.edit;
  if (edit === undefined) throw new Error('success-edit needs options.edit (the file the tool creates)');
  const toolCall = writeCallFor(declaredTools(body), edit, chatWorkingDirectory(request));
  send(response, body, model, id, { text: 'I will create the file.', toolCall, usage: turnUsage }, headers);
};

const carriesToolResult = (body: Record<string, unknown>): boolean => {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.some((message: unknown) => isRecord(message) && message.role === 'tool');
};

/** The names of the function tools the request declares. */
const declaredTools = (body: Record<string, unknown>): Set<string> => {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return new Set(
    tools.flatMap((tool: unknown) =>
      isRecord(tool) && isRecord(tool.function) && typeof tool.function.name === 'string'
        ? [tool.function.name]
        : [],
    ),
  );
};

/**
 * The file-writing call the CLI understands. Both CLIs want an absolute path, which the server
 * builds from the working directory the CLI named (the race picks the worktree at run time).
 */
const writeCallFor = (
  tools: ReadonlySet<string>,
  edit: { path: string; content: string },
  cwd: string | undefined,
): ToolCall => {
  const filePath = isAbsolute(edit.path) || cwd === undefined ? edit.path : join(cwd, edit.path);
  if (tools.has('write_file')) {
    return {
      id: 'call_fake_write_1',
      name: 'write_file',
      arguments: JSON.stringify({ file_path: filePath, content: edit.content }),
    };
  }
  if (tools.has('write')) {
    return {
      id: 'call_fake_write_1',
      name: 'write',
      arguments: JSON.stringify({ filePath, content: edit.content }),
    };
  }
  throw new Error(`the request declares no file-writing tool: ${[...tools].join(', ')}`);
};

const send = (
  response: ServerResponse,
  body: Record<string, unknown>,
  model: string,
  id: string,
  reply: Reply,
  headers: Record<string, string>,
): void => {
  if (body.stream === true) {
    sendChunks(response, chatChunks(id, model, reply), headers);
    return;
  }
  sendJson(response, 200, chatCompletion(id, model, reply), headers);
};

const base = (id: string, model: string, object: string): Record<string, unknown> => ({
  id,
  object,
  created: 1_700_000_000,
  model,
  system_fingerprint: 'fp_fake',
});

/** The non-streaming answer: one `chat.completion` object. */
const chatCompletion = (id: string, model: string, reply: Reply): Record<string, unknown> => ({
  ...base(id, model, 'chat.completion'),
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: reply.text ?? null,
        ...(reply.toolCall === undefined
          ? {}
          : {
              tool_calls: [
                {
                  id: reply.toolCall.id,
                  type: 'function',
                  function: { name: reply.toolCall.name, arguments: reply.toolCall.arguments },
                },
              ],
            }),
      },
      finish_reason: reply.toolCall === undefined ? 'stop' : 'tool_calls',
    },
  ],
  usage: reply.usage,
});

/**
 * The streaming answer as OpenAI sends it: a role chunk, the text, the tool call (name and id
 * first, then its arguments), a chunk with the finish reason, and a last chunk with no choices
 * that carries the usage.
 */
const chatChunks = (id: string, model: string, reply: Reply): unknown[] => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({
    ...base(id, model, 'chat.completion.chunk'),
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if (reply.text !== undefined) chunks.push(chunk({ content: reply.text }));
  const call = reply.toolCall;
  if (call !== undefined) {
    chunks.push(
      chunk({
        tool_calls: [
          { index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: call.arguments } }] }),
    );
  }
  chunks.push(chunk({}, call === undefined ? 'stop' : 'tool_calls'));
  chunks.push({ ...base(id, model, 'chat.completion.chunk'), choices: [], usage: reply.usage });
  return chunks;
};

/** Chat Completions SSE: `data:` lines only (no `event:` names), closed by `data: [DONE]`. */
const sendChunks = (
  response: ServerResponse,
  chunks: readonly unknown[],
  headers: Record<string, string>,
): void => {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    ...headers,
  });
  for (const chunk of chunks) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  response.write('data: [DONE]\n\n');
  response.end();
};
