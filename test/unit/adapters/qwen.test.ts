import { describe, expect, it } from 'vitest';
import { qwenAdapter } from '../../../src/adapters/qwen.js';
import type { AgentEvent } from '../../../src/core/events.js';
import type { Capabilities } from '../../../src/adapters/types.js';
import {
  endOf,
  fixtureRunner,
  helpVersions,
  loadStream,
  readHelpFile,
  replay,
  spawnRequest as request,
} from '../../support/adapter-fixtures.js';

const versions = helpVersions('qwen');
const withStreamJson = versions.filter((version) =>
  /stream-json/.test(readHelpFile('qwen', version, 'help.txt') ?? ''),
);
const withoutStreamJson = versions.filter((version) => !withStreamJson.includes(version));
const latest = versions.at(-1)!;

const capabilitiesOf = async (version: string): Promise<Capabilities> => {
  const result = await qwenAdapter.probe('/bin/qwen', fixtureRunner('qwen', version));
  if (!result.ok) throw result.error;
  return result.capabilities;
};

const ofKind = <K extends AgentEvent['kind']>(events: AgentEvent[], kind: K) =>
  events.filter((event): event is Extract<AgentEvent, { kind: K }> => event.kind === kind);

describe('qwen probe across recorded versions', () => {
  it('has help texts of three or more versions, with and without stream-json', () => {
    expect(versions.length).toBeGreaterThanOrEqual(3);
    expect(withStreamJson.length).toBeGreaterThanOrEqual(2);
    expect(withoutStreamJson.length).toBeGreaterThan(0);
  });

  it.each(withStreamJson)('accepts Qwen Code %s and reads its flags from --help', async (version) => {
    const capabilities = await capabilitiesOf(version);
    expect(capabilities.version).toBe(version);
    expect(capabilities.features).toMatchObject({
      streamJson: true,
      approvalMode: true,
      autoEdit: true,
      yolo: true,
      promptFlag: true,
      resume: true,
      partialMessages: true,
    });
    expect(capabilities.warnings).toEqual([]);
  });

  it.each(withoutStreamJson)(
    'refuses Qwen Code %s, whose --output-format offers only text and json',
    async (version) => {
      const result = await qwenAdapter.probe('/bin/qwen', fixtureRunner('qwen', version));
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.kind).toBe('UnsupportedFlag');
      expect(result.error.message).toContain(`Qwen Code ${version}`);
      expect(result.error.hint).toContain('npm install -g @qwen-code/qwen-code');
      expect(result.error.command).toEqual(['/bin/qwen', '--help']);
      expect(result.capabilities?.features['resume']).toBe(false);
    },
  );

  it('sees --max-session-turns only where the help lists it', async () => {
    expect((await capabilitiesOf(latest)).features['maxTurns']).toBe(true);
    const runner = fixtureRunner('qwen', latest, (_file, text) =>
      text
        .split('\n')
        .filter((line) => !line.includes('--max-session-turns'))
        .join('\n'),
    );
    const result = await qwenAdapter.probe('/bin/qwen', runner);
    expect(result.ok && result.capabilities.features['maxTurns']).toBe(false);
  });
});

describe('qwen command', () => {
  it('runs stream-json in auto-edit mode with the prompt in one --prompt= argument', async () => {
    const built = qwenAdapter.buildCommand(
      request({ prompt: '-v --help "quoted" 0x10', model: 'qwen3-coder-plus' }),
      await capabilitiesOf(latest),
    );
    expect(built.args).toEqual([
      '--output-format',
      'stream-json',
      '--approval-mode',
      'auto-edit',
      '--model',
      'qwen3-coder-plus',
      '--prompt=-v --help "quoted" 0x10',
    ]);
    expect(built.stdinFile).toBeUndefined();
    expect(built.cwd).toBe('/repo/wt');
  });

  it('switches to yolo only for --unsafe races', async () => {
    const capabilities = await capabilitiesOf(latest);
    const unsafe = qwenAdapter.buildCommand(request({ unsafe: true }), capabilities).args;
    expect(unsafe.slice(2, 4)).toEqual(['--approval-mode', 'yolo']);
    expect(qwenAdapter.buildCommand(request(), capabilities).args).not.toContain('yolo');
  });

  it('resumes an earlier session by id when the probe saw --resume', async () => {
    const capabilities = await capabilitiesOf(latest);
    const args = qwenAdapter.buildCommand(request({ resumeSessionId: 'abc-123' }), capabilities).args;
    expect(args[args.indexOf('--resume') + 1]).toBe('abc-123');
    const without = { ...capabilities, features: { ...capabilities.features, resume: false } };
    expect(qwenAdapter.buildCommand(request({ resumeSessionId: 'abc-123' }), without).args).not.toContain(
      'abc-123',
    );
  });

  it('passes max turns as --max-session-turns where it exists', async () => {
    const capabilities = await capabilitiesOf(latest);
    const args = qwenAdapter.buildCommand(request({ maxTurns: 7 }), capabilities).args;
    expect(args[args.indexOf('--max-session-turns') + 1]).toBe('7');
    const without = { ...capabilities, features: { ...capabilities.features, maxTurns: false } };
    expect(qwenAdapter.buildCommand(request({ maxTurns: 7 }), without).args).not.toContain(
      '--max-session-turns',
    );
  });

  it('sends the prompt through stdin when the CLI has no --prompt flag', async () => {
    const capabilities = await capabilitiesOf(latest);
    const noFlag = { ...capabilities, features: { ...capabilities.features, promptFlag: false } };
    const built = qwenAdapter.buildCommand(request({ prompt: 'hi' }), noFlag);
    expect(built.stdinFile).toBe('/repo/scratch/prompt.txt');
    expect(built.files).toEqual([{ path: '/repo/scratch/prompt.txt', content: 'hi' }]);
    expect(built.args.some((arg) => arg.startsWith('--prompt'))).toBe(false);
  });
});

describe('qwen parser on recorded streams', () => {
  it('reads a successful run: session, tool call and result, usage with cached input apart', () => {
    const fixture = loadStream('qwen', 'success-edit');
    const { events, final } = replay(qwenAdapter, fixture.lines, endOf(fixture.meta), {
      cwd: '/tmp/hydra-fixture/repo',
    });
    const init = ofKind(events, 'progress').find((event) => event.stage === 'init');
    expect(init?.sessionId).toBe('00000000-0000-4000-8000-000000000001');
    expect(init?.model).toBe('fake-chat-model');
    const [call] = ofKind(events, 'tool_call');
    expect(call).toMatchObject({
      name: 'write_file',
      summary: 'write_file hello.txt',
      id: 'call_fake_write_1',
    });
    expect(ofKind(events, 'tool_result')[0]).toMatchObject({
      id: 'call_fake_write_1',
      name: 'write_file',
      ok: true,
    });
    // The fake server reports 1800 + 2000 prompt tokens, 1536 of the second cached, 50 + 12 output.
    expect(final).toMatchObject({
      kind: 'completed',
      result: 'Created hello.txt with a greeting.',
      usage: {
        inputTokens: 3800 - 1536,
        cacheReadTokens: 1536,
        outputTokens: 62,
        turns: 2,
        costSource: 'unknown',
      },
    });
  });

  it('estimates the cost from the price database for a model it knows', () => {
    const fixture = loadStream('qwen', 'success-edit');
    const lines = fixture.lines.map((line) => line.replaceAll('fake-chat-model', 'qwen3-coder-plus'));
    const { final } = replay(qwenAdapter, lines, endOf(fixture.meta));
    // The price database lists qwen3-coder-plus as OpenRouter's qwen/qwen3-coder-plus: 2264 input
    // at $0.65/M, 1536 cached at $0.13/M, 62 output at $3.25/M.
    expect(final.usage).toMatchObject({ costSource: 'estimated', costUsd: 0.001873 });
  });

  it('counts the same totals from the streamed usage as from the result line', () => {
    const fixture = loadStream('qwen', 'success-edit');
    const parser = qwenAdapter.createParser();
    const usages = fixture.lines
      .filter((line) => !line.includes('"type":"result"'))
      .flatMap((line) => parser.parseLine(line))
      .filter((event) => event.kind === 'usage');
    expect(usages.at(-1)).toMatchObject({
      usage: { inputTokens: 2264, cacheReadTokens: 1536, outputTokens: 62 },
    });
  });

  it('turns partial messages into partial text and keeps the full message', () => {
    const fixture = loadStream('qwen', 'partial-messages');
    const { events, final } = replay(qwenAdapter, fixture.lines, endOf(fixture.meta));
    const messages = ofKind(events, 'message');
    expect(messages.filter((event) => event.partial === true).map((event) => event.text)).toEqual([
      'I will create the file.',
      'Created hello.txt with a greeting.',
    ]);
    expect(messages.filter((event) => event.partial !== true).map((event) => event.text)).toContain(
      'Created hello.txt with a greeting.',
    );
    expect(final.kind).toBe('completed');
  });

  it.each(['auth-failure', 'auth-failure@0.15.10', 'auth-failure@0.5.2'])(
    'reports %s as AuthMissing, even where the CLI exits 0 with a "success" result',
    (name) => {
      const fixture = loadStream('qwen', name);
      const { events, final } = replay(qwenAdapter, fixture.lines, endOf(fixture.meta));
      expect(final).toMatchObject({
        kind: 'failed',
        error: { kind: 'AuthMissing' },
        exitCode: fixture.meta.exitCode,
      });
      expect(final.kind === 'failed' && final.error.message).toContain('HTTP 401');
      // The error text is shown as an error, not as the model's answer.
      expect(ofKind(events, 'message').find((event) => event.text.includes('API Error'))?.role).toBe(
        'system',
      );
    },
  );

  it.each(['not-signed-in', 'not-signed-in@0.5.2'])(
    'reports %s (no provider set up at all) as AuthMissing with the sign-in hint',
    (name) => {
      const fixture = loadStream('qwen', name);
      const { final } = replay(qwenAdapter, fixture.lines, endOf(fixture.meta));
      expect(final).toMatchObject({
        kind: 'failed',
        exitCode: 1,
        error: { kind: 'AuthMissing', hint: qwenAdapter.signInHint },
      });
      expect(final.kind === 'failed' && final.error.message).toMatch(
        /not signed in.*(auth type|Auth method)/,
      );
      expect(qwenAdapter.signInHint).toMatch(/\/auth.*OPENAI_API_KEY/);
    },
  );

  it('reports a 500 as a server error with a hint', () => {
    const fixture = loadStream('qwen', 'server-error');
    const { final } = replay(qwenAdapter, fixture.lines, endOf(fixture.meta));
    expect(final).toMatchObject({ kind: 'failed', exitCode: 1, error: { kind: 'AgentFailed' } });
    expect(final.kind === 'failed' && final.error.message).toContain('HTTP 500');
  });

  it('fails a run whose stream stops at an API error without a result line', () => {
    const fixture = loadStream('qwen', 'auth-failure');
    const lines = fixture.lines.filter((line) => !line.includes('"type":"result"'));
    const { final } = replay(qwenAdapter, lines, { exitCode: 1, signal: null, stderrTail: '' });
    expect(final.kind === 'failed' && final.error.kind).toBe('AuthMissing');
  });
});
