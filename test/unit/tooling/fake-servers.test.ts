/** The fake model servers answer the way the vendor APIs do (checked with plain fetch). */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropicServer } from '../../support/fake-anthropic-server.js';
import { startFakeOpenAiServer } from '../../support/fake-openai-server.js';
import type { FakeModelServer } from '../../support/fake-model-server.js';

let server: FakeModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (url: string, body: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The `data:` payloads of an SSE body, parsed. */
const sseData = (text: string): Array<Record<string, unknown>> =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);

describe('fake Anthropic Messages API', () => {
  const tools = [{ name: 'Write', input_schema: {} }];

  it('answers turn 1 with a Write tool_use and the turn after a tool_result with the final text', async () => {
    server = await startFakeAnthropicServer({
      scenario: 'success-edit',
      edit: { filePath: '/r/a.txt', content: 'x\n' },
    });

    const first = sseData(
      await (
        await post(`${server.url}/v1/messages?beta=true`, {
          model: 'm',
          stream: true,
          tools,
          messages: [{ role: 'user', content: 'go' }],
        })
      ).text(),
    );
    const second = sseData(
      await (
        await post(`${server.url}/v1/messages`, {
          model: 'm',
          stream: true,
          tools,
          messages: [
            {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: 'toolu_fake_write_1', content: 'ok' }],
            },
          ],
        })
      ).text(),
    );

    expect(first.map((event) => event.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(JSON.stringify(first)).toContain('{\\"file_path\\":\\"/r/a.txt\\",\\"content\\":\\"x\\\\n\\"}');
    expect(second.find((event) => event.type === 'message_delta')).toMatchObject({
      delta: { stop_reason: 'end_turn' },
    });
    expect(server.requests).toHaveLength(2);
  });

  it('answers 401 with the authentication_error body', async () => {
    server = await startFakeAnthropicServer({ scenario: 'auth-failure' });

    const response = await post(`${server.url}/v1/messages`, {
      model: 'm',
      stream: true,
      tools,
      messages: [],
    });

    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
  });

  it('answers 500 with the api_error body', async () => {
    server = await startFakeAnthropicServer({ scenario: 'server-error' });

    const response = await post(`${server.url}/v1/messages`, {
      model: 'm',
      stream: true,
      tools,
      messages: [],
    });

    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { type: 'api_error' } });
  });
});

describe('fake OpenAI Responses API', () => {
  const request = (tools: string[], input: unknown[]): Record<string, unknown> => ({
    model: 'gpt-5.5',
    stream: true,
    tools: tools.map((name) => ({ type: 'function', name })),
    input,
  });
  const userTurn = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }];

  it('answers with an apply_patch call when the CLI declares apply_patch, then with the final text', async () => {
    server = await startFakeOpenAiServer({
      scenario: 'success-edit',
      edit: { path: 'a.txt', content: 'x\n' },
    });

    const first = sseData(
      await (
        await post(`${server.url}/v1/responses`, request(['exec_command', 'apply_patch'], userTurn))
      ).text(),
    );
    const second = sseData(
      await (
        await post(
          `${server.url}/v1/responses`,
          request(
            ['apply_patch'],
            [...userTurn, { type: 'custom_tool_call_output', call_id: 'call_fake_patch_1', output: 'ok' }],
          ),
        )
      ).text(),
    );

    const done = first
      .filter((event) => event.type === 'response.output_item.done')
      .map((event) => event.item);
    expect(done).toContainEqual(
      expect.objectContaining({
        type: 'custom_tool_call',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n',
      }),
    );
    expect(first.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { usage: { input_tokens: 2100 } },
    });
    expect(second.find((event) => event.type === 'response.output_text.delta')).toMatchObject({
      delta: 'Created hello.txt with a greeting.',
    });
  });

  it('falls back to the legacy shell tool when that is all the CLI declares', async () => {
    server = await startFakeOpenAiServer({
      scenario: 'success-edit',
      edit: { path: 'a.txt', content: 'x\n' },
    });

    const events = sseData(
      await (await post(`${server.url}/v1/responses`, request(['shell'], userTurn))).text(),
    );

    const done = events
      .filter((event) => event.type === 'response.output_item.done')
      .map((event) => event.item);
    expect(done).toContainEqual(expect.objectContaining({ type: 'function_call', name: 'shell' }));
  });

  it('answers 401 with the invalid_api_key body and 500 with a server_error body', async () => {
    server = await startFakeOpenAiServer({ scenario: 'auth-failure' });
    const unauthorized = await post(`${server.url}/v1/responses`, request([], userTurn));
    await server.close();
    server = await startFakeOpenAiServer({ scenario: 'server-error' });
    const failing = await post(`${server.url}/v1/responses`, request([], userTurn));

    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
    expect(failing.status).toBe(500);
    expect(await failing.json()).toMatchObject({ error: { type: 'server_error' } });
  });
});
