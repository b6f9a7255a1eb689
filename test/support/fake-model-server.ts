/**
 * The HTTP plumbing shared by the fake model servers: a real server on 127.0.0.1 with a random
 * port, a log of every request it received (body parsed as JSON when it is JSON), and helpers to
 * answer JSON or Server-Sent Events. The vendor-specific parts live in fake-anthropic-server.ts and
 * fake-openai-server.ts.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. "/v1/messages?beta=true". */
  url: string;
  headers: Record<string, string>;
  /** The raw request body. */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface FakeModelServer {
  /** Base URL without a trailing slash, e.g. "http://127.0.0.1:41234". */
  readonly url: string;
  readonly port: number;
  /** Every request received so far, in order. */
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

export type RequestHandler = (request: RecordedRequest, response: ServerResponse) => void;

/** One Server-Sent Event: `event: <name>` plus one JSON `data:` line. */
export interface SseEvent {
  event: string;
  data: unknown;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const parseJson = (text: string): unknown => {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

const flattenHeaders = (request: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
};

/** Starts a server on 127.0.0.1 with a random free port that logs every request, then hands it on. */
export const startFakeModelServer = async (handle: RequestHandler): Promise<FakeModelServer> => {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    readBody(request).then(
      (text) => {
        const recorded: RecordedRequest = {
          method: request.method ?? 'GET',
          url: request.url ?? '/',
          headers: flattenHeaders(request),
          text,
          json: parseJson(text),
        };
        requests.push(recorded);
        try {
          handle(recorded, response);
        } catch (error) {
          sendJson(response, 500, { error: { message: `fake server bug: ${String(error)}` } });
        }
      },
      (error: unknown) => sendJson(response, 400, { error: { message: String(error) } }),
    );
  });
  // Keep-alive sockets would keep close() waiting on the CLI's connection pool.
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

export const sendJson = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void => {
  if (response.headersSent) {
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
};

/**
 * How a stream misbehaves: `stallAfter` sends only that many events and then nothing, leaving the
 * response open (a server that stops answering mid-stream); `holdOpen` sends every event but never
 * ends the response (a server that keeps the connection open after the final event).
 */
export interface SseFault {
  stallAfter?: number;
  holdOpen?: boolean;
}

/** Answers a whole SSE stream at once (the CLIs read it incrementally either way). */
export const sendSse = (
  response: ServerResponse,
  events: readonly SseEvent[],
  headers: Record<string, string> = {},
  fault: SseFault = {},
): void => {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    ...headers,
  });
  for (const { event, data } of events.slice(0, fault.stallAfter ?? events.length)) {
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  if (fault.stallAfter === undefined && fault.holdOpen !== true) response.end();
};

/** The request path without its query string. */
export const pathOf = (request: RecordedRequest): string => request.url.split('?')[0] ?? request.url;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
