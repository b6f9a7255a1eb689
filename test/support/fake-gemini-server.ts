/**
 * A scripted fake of the Gemini API (generativelanguage `v1beta`), enough for the real Gemini CLI
 * to run a whole headless session offline when `GOOGLE_GEMINI_BASE_URL` points at it:
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` answered with Server-Sent Events
 * (`data: <GenerateContentResponse>` blocks, no `event:` lines), `POST …:generateContent` (the
 * CLI's side calls: model routing, next-speaker checks) answered with JSON shaped by the request's
 * response schema, and `POST …:countTokens`.
 *
 * Scenarios (they apply to the streamed main-model requests; side calls always succeed, so that a
 * failing main model fails at once instead of waiting out the CLI's retries of its router):
 * - `success-edit`: turn 1 streams a thought, a short text in two chunks and a `write_file`
 *   function call that creates `edit.path` in the session's working directory (read from the
 *   request, since older CLI versions require an absolute path); the next request (it carries the
 *   `functionResponse`) gets the final text in two chunks.
 * - `reply-text`: the first turn is the final text (for prompt-delivery checks).
 * - `empty-response`: every turn is a candidate without parts (finishReason STOP), which the CLI
 *   calls an invalid stream.
 * - `auth-failure`: 400 `INVALID_ARGUMENT` with reason `API_KEY_INVALID`, which is what the real
 *   API answers a wrong API key with (not 401).
 * - `auth-forbidden`: 403 `PERMISSION_DENIED` (a request without a usable key).
 * - `server-error`: 500 `INTERNAL`.
 */
import type { ServerResponse } from 'node:http';
import { assertNever } from '../../src/core/events.js';
import { isRecord, pathOf, sendJson, startFakeModelServer } from './fake-model-server.js';
import type { FakeModelServer, RecordedRequest } from './fake-model-server.js';

export type GeminiScenario =
  'success-edit' | 'reply-text' | 'empty-response' | 'auth-failure' | 'auth-forbidden' | 'server-error';

export interface FakeGeminiOptions {
  scenario: GeminiScenario;
  /** The file `write_file` creates, relative to the session's working directory. */
  edit?: { path: string; content: string };
  finalText?: string;
  /** When set, turn 1 of `success-edit` runs this command with `run_shell_command` instead of writing. */
  shell?: string;
}

export interface GeminiUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  thoughtsTokenCount: number;
  cachedContentTokenCount: number;
  totalTokenCount: number;
}

const usage = (prompt: number, cached: number, candidates: number, thoughts: number): GeminiUsage => ({
  promptTokenCount: prompt,
  candidatesTokenCount: candidates,
  thoughtsTokenCount: thoughts,
  cachedContentTokenCount: cached,
  totalTokenCount: prompt + candidates + thoughts,
});

/** Fixed usage per main-model turn, so recorded fixtures are stable and tests can assert exact totals. */
export const GEMINI_TURN_USAGE: readonly GeminiUsage[] = [usage(2100, 0, 40, 16), usage(2300, 2048, 14, 0)];

/** Usage of every side call (routing classifier, next-speaker check). */
export const GEMINI_SIDE_USAGE: GeminiUsage = usage(400, 0, 12, 0);

export const DEFAULT_GEMINI_FINAL_TEXT = 'Created hello.txt with a greeting.';

export const GEMINI_AUTH_ERROR = {
  error: {
    code: 400,
    message: 'API key not valid. Please pass a valid API key.',
    status: 'INVALID_ARGUMENT',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
    ],
  },
};

export const GEMINI_FORBIDDEN_ERROR = {
  error: {
    code: 403,
    message:
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    status: 'PERMISSION_DENIED',
  },
};

export const GEMINI_SERVER_ERROR = {
  error: {
    code: 500,
    message:
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
    status: 'INTERNAL',
  },
};

/** `/v1beta/models/gemini-2.5-pro:streamGenerateContent` → model and method. */
const MODEL_CALL = /\/models\/([^/:]+):([A-Za-z]+)$/;

export const startFakeGeminiServer = (options: FakeGeminiOptions): Promise<FakeModelServer> => {
  let turn = 0;
  return startFakeModelServer((request, response) => {
    const call = request.method === 'POST' ? MODEL_CALL.exec(pathOf(request)) : null;
    const model = call?.[1] ?? '';
    switch (call?.[2]) {
      case 'streamGenerateContent':
        answerStream(options, request, response, model, () => turn++);
        return;
      case 'generateContent':
        sendJson(response, 200, sideCallAnswer(request, model));
        return;
      case 'countTokens':
        sendJson(response, 200, { totalTokens: 100 });
        return;
      default:
        sendJson(response, 404, {
          error: {
            code: 404,
            message: `fake server: no route for ${request.method} ${pathOf(request)}`,
            status: 'NOT_FOUND',
          },
        });
    }
  });
};

const answerStream = (
  options: FakeGeminiOptions,
  request: RecordedRequest,
  response: ServerResponse,
  model: string,
  nextTurn: () => number,
): void => {
  switch (options.scenario) {
    case 'auth-failure':
      sendJson(response, 400, GEMINI_AUTH_ERROR);
      return;
    case 'auth-forbidden':
      sendJson(response, 403, GEMINI_FORBIDDEN_ERROR);
      return;
    case 'server-error':
      sendJson(response, 500, GEMINI_SERVER_ERROR);
      return;
    case 'success-edit':
    case 'reply-text':
    case 'empty-response':
      break;
    default:
      assertNever(options.scenario);
  }
  const body = isRecord(request.json) ? request.json : {};
  const turn = nextTurn();
  const turnUsage = GEMINI_TURN_USAGE[Math.min(turn, GEMINI_TURN_USAGE.length - 1)] ?? GEMINI_TURN_USAGE[0]!;
  const finalText = options.finalText ?? DEFAULT_GEMINI_FINAL_TEXT;
  const id = `resp_fake_turn${turn + 1}`;
  if (options.scenario === 'empty-response') {
    sendGeminiSse(response, chunks(id, model, [], [], turnUsage));
    return;
  }
  if (carriesFunctionResponse(body) || options.scenario === 'reply-text') {
    sendGeminiSse(response, chunks(id, model, halves(finalText), [], turnUsage));
    return;
  }
  if (options.shell !== undefined) {
    const call = { name: 'run_shell_command', args: { command: options.shell } };
    sendGeminiSse(response, chunks(id, model, ['I will run it.'], [call], turnUsage));
    return;
  }
  const edit = options.edit;
  if (edit === undefined) throw new Error('success-edit needs options.edit (the file write_file creates)');
  if (!declaredFunctions(body).has('write_file')) {
    throw new Error(
      `the request declares no write_file tool (${[...declaredFunctions(body)].join(', ')}): cannot create the file`,
    );
  }
  const directory = workingDirectory(request);
  if (directory === undefined)
    throw new Error('the request names no working directory: cannot place write_file');
  const call = {
    name: 'write_file',
    args: { file_path: `${directory}/${edit.path}`, content: edit.content },
  };
  sendGeminiSse(
    response,
    chunks(id, model, ['I will create ', 'the file.'], [call], turnUsage, 'The user wants a new file.'),
  );
};

/** Splits a text in two chunks, as the real API streams it. */
const halves = (text: string): string[] => {
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
};

interface FunctionCall {
  name: string;
  args: Record<string, unknown>;
}

/**
 * The streamed chunks of one response: an optional thought, the text pieces, then the function
 * calls; usage and finishReason on the last chunk only.
 */
const chunks = (
  responseId: string,
  model: string,
  texts: readonly string[],
  calls: readonly FunctionCall[],
  turnUsage: GeminiUsage,
  thought?: string,
): unknown[] => {
  const pieces: unknown[][] = [
    ...(thought === undefined ? [] : [[{ text: thought, thought: true }]]),
    ...texts.map((text) => [{ text }]),
    ...calls.map((call) => [{ functionCall: call }]),
  ];
  // An empty response is still one chunk: a candidate without parts.
  const parts = pieces.length === 0 ? [[]] : pieces;
  return parts.map((chunkParts, index) => {
    const last = index === parts.length - 1;
    return {
      candidates: [
        {
          content: { role: 'model', parts: chunkParts },
          index: 0,
          ...(last ? { finishReason: 'STOP' } : {}),
        },
      ],
      ...(last
        ? { usageMetadata: turnUsage }
        : { usageMetadata: { promptTokenCount: turnUsage.promptTokenCount } }),
      modelVersion: model,
      responseId,
    };
  });
};

/** The Gemini API's SSE framing: one `data:` line per chunk, CRLF line ends, no event names. */
export const sendGeminiSse = (response: ServerResponse, events: readonly unknown[]): void => {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) response.write(`data: ${JSON.stringify(event)}\r\n\r\n`);
  response.end();
};

/**
 * A side call (routing classifier, next-speaker check, …) answered with a JSON text that fits the
 * response schema the request asks for, or "OK" when it asks for none.
 */
const sideCallAnswer = (request: RecordedRequest, model: string): unknown => {
  const body = isRecord(request.json) ? request.json : {};
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  const text = isRecord(schema) ? JSON.stringify(valueFor(schema)) : 'OK';
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: GEMINI_SIDE_USAGE,
    modelVersion: model,
    responseId: 'resp_fake_side',
  };
};

/** A small value of the given JSON schema (objects get every property, enums their first value). */
const valueFor = (schema: Record<string, unknown>): unknown => {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (String(schema.type).toLowerCase()) {
    case 'object': {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      return Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, isRecord(value) ? valueFor(value) : null]),
      );
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      // A low complexity score: the router picks its fast model.
      return 10;
    case 'boolean':
      return false;
    default:
      return 'fake';
  }
};

const contentsOf = (body: Record<string, unknown>): Record<string, unknown>[] =>
  Array.isArray(body.contents) ? body.contents.filter(isRecord) : [];

const partsOf = (content: Record<string, unknown>): Record<string, unknown>[] =>
  Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];

const carriesFunctionResponse = (body: Record<string, unknown>): boolean => {
  const last = contentsOf(body).at(-1);
  return last !== undefined && partsOf(last).some((part) => part.functionResponse !== undefined);
};

/** The function names the request declares. */
export const declaredFunctions = (body: Record<string, unknown>): Set<string> => {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  return new Set(
    tools.flatMap((tool) =>
      (Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations : []).flatMap((declaration) =>
        isRecord(declaration) && typeof declaration.name === 'string' ? [declaration.name] : [],
      ),
    ),
  );
};

/** The texts of a request's user turns, in order. */
export const userTexts = (request: RecordedRequest): string[] => {
  const body = isRecord(request.json) ? request.json : {};
  return contentsOf(body)
    .filter((content) => content.role === 'user')
    .flatMap((content) =>
      partsOf(content).flatMap((part) => (typeof part.text === 'string' ? [part.text] : [])),
    );
};

/**
 * The CLI names its working directory in the first user turn: `I'm currently working in the
 * directory: <path>` (0.1x to 0.3x) or `- **Workspace Directories:**\n  - <path>` (0.4x and later).
 */
const WORKING_DIRECTORY =
  /(?:I'm currently working in the directory: |Workspace Directories:\*\*\n\s*- )([^\n]+)/;

export const workingDirectory = (request: RecordedRequest | undefined): string | undefined => {
  if (request === undefined) return undefined;
  for (const text of userTexts(request)) {
    const match = WORKING_DIRECTORY.exec(text);
    if (match?.[1] !== undefined) return match[1].trim();
  }
  return undefined;
};
