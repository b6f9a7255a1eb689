import { describe, expect, it } from 'vitest';
import { claudeAdapter } from '../../../src/adapters/claude.js';
import type { AgentEvent, UsageEvent } from '../../../src/core/events.js';
import type { Capabilities } from '../../../src/adapters/types.js';
import {
  endOf,
  fixtureRunner,
  helpVersions,
  loadStream,
  replay,
  spawnRequest as request,
} from '../../support/adapter-fixtures.js';

const capabilitiesOf = async (version: string): Promise<Capabilities> => {
  const result = await claudeAdapter.probe('/bin/claude', fixtureRunner('claude', version));
  if (!result.ok) throw result.error;
  return result.capabilities;
};

const usages = (events: AgentEvent[]): UsageEvent[] =>
  events.filter((event): event is UsageEvent => event.kind === 'usage');

describe('claude probe across recorded versions', () => {
  const versions = helpVersions('claude');

  it('has help texts of at least three released versions', () => {
    expect(versions.length).toBeGreaterThanOrEqual(3);
  });

  it.each(versions)('accepts Claude Code %s and reads its version and flags', async (version) => {
    const result = await claudeAdapter.probe('/bin/claude', fixtureRunner('claude', version));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.capabilities.version).toBe(version);
    expect(result.capabilities.confidence).toBe('verified');
    expect(result.capabilities.features).toMatchObject({
      print: true,
      outputFormat: true,
      verbose: true,
      permissionMode: true,
      model: true,
    });
    // Accepted by the CLI but never listed in its help: not assumed.
    expect(result.capabilities.features['maxTurns']).toBe(false);
  });

  it('sees --include-partial-messages only in the versions that list it', async () => {
    const oldest = await capabilitiesOf(versions[0]!);
    const newest = await capabilitiesOf(versions.at(-1)!);
    expect(oldest.features['partialMessages']).toBe(false);
    expect(newest.features['partialMessages']).toBe(true);
  });

  it('fails fast with UnsupportedFlag when the help lacks --output-format', async () => {
    const runner = fixtureRunner('claude', versions.at(-1)!, (file, text) =>
      file === 'help.txt'
        ? text
            .split('\n')
            .filter((line) => !line.includes('--output-format'))
            .join('\n')
        : text,
    );
    const result = await claudeAdapter.probe('/bin/claude', runner);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('UnsupportedFlag');
    expect(result.error.command).toEqual(['/bin/claude', '--help']);
    expect(result.error.hint).toContain('npm install -g @anthropic-ai/claude-code');
  });

  it('downgrades to --allowedTools with a warning when --permission-mode is missing', async () => {
    const runner = fixtureRunner('claude', versions[0]!, (file, text) =>
      file === 'help.txt'
        ? text
            .split('\n')
            .filter((line) => !line.includes('--permission-mode'))
            .join('\n')
        : text,
    );
    const result = await claudeAdapter.probe('/bin/claude', runner);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.capabilities.warnings.join(' ')).toMatch(/--permission-mode/);
    const built = claudeAdapter.buildCommand(request(), result.capabilities);
    expect(built.args).toContain('--allowedTools');
    expect(built.args).not.toContain('--permission-mode');
  });

  it('reports a missing binary, a time-out and a crash as typed errors', async () => {
    const missing = await claudeAdapter.probe('/nope/claude', async () => ({
      exitCode: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      spawnError: 'ENOENT: spawn /nope/claude',
    }));
    expect(!missing.ok && missing.error.kind).toBe('BinaryMissing');
    const hung = await claudeAdapter.probe('/bin/claude', async () => ({
      exitCode: null,
      stdout: '',
      stderr: '',
      timedOut: true,
    }));
    expect(!hung.ok && hung.error.kind).toBe('TimedOut');
    const crashed = await claudeAdapter.probe('/bin/claude', async () => ({
      exitCode: 1,
      stdout: '',
      stderr: 'Error: cannot find module',
      timedOut: false,
    }));
    expect(!crashed.ok && crashed.error.kind).toBe('UnsupportedVersion');
    expect(!crashed.ok && crashed.error.stderrExcerpt).toContain('cannot find module');
  });
});

describe('claude follow-up', () => {
  it('continues the session with --resume <session_id> before the prompt, on every recorded version', async () => {
    for (const version of helpVersions('claude')) {
      const capabilities = await capabilitiesOf(version);
      expect(capabilities.features['resume']).toBe(true);
      const built = claudeAdapter.buildCommand(
        request({ prompt: 'Now add a test', resumeSessionId: '00000000-0000-4000-8000-000000000001' }),
        capabilities,
      );
      const resume = built.args.indexOf('--resume');
      expect(built.args.slice(resume, resume + 2)).toEqual([
        '--resume',
        '00000000-0000-4000-8000-000000000001',
      ]);
      expect(built.args.at(-1)).toBe('Now add a test');
    }
  });

  it('leaves --resume out of a first round', async () => {
    const built = claudeAdapter.buildCommand(request(), await capabilitiesOf(helpVersions('claude').at(-1)!));
    expect(built.args).not.toContain('--resume');
  });
});

describe('claude command', () => {
  it('runs headless stream-json with acceptEdits by default and CLAUDECODE emptied', async () => {
    const built = claudeAdapter.buildCommand(request(), await capabilitiesOf(helpVersions('claude').at(-1)!));
    expect(built.file).toBe('/bin/claude');
    expect(built.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'acceptEdits',
      '--',
      'Create hello.txt',
    ]);
    expect(built.env).toEqual({ CLAUDECODE: '' });
    expect(built.cwd).toBe('/repo/wt');
    expect(built.stdinFile).toBeUndefined();
  });

  it('bypasses permissions only in unsafe mode, with IS_SANDBOX=1 so root is accepted', async () => {
    const built = claudeAdapter.buildCommand(
      request({ unsafe: true }),
      await capabilitiesOf(helpVersions('claude').at(-1)!),
    );
    expect(built.args).toContain('bypassPermissions');
    expect(built.env['IS_SANDBOX']).toBe('1');
  });

  it('passes --max-turns only when asked, and lets configured env win', async () => {
    const capabilities = await capabilitiesOf(helpVersions('claude').at(-1)!);
    expect(claudeAdapter.buildCommand(request(), capabilities).args).not.toContain('--max-turns');
    const built = claudeAdapter.buildCommand(
      request({ maxTurns: 12, env: { CLAUDECODE: 'kept', ANTHROPIC_BASE_URL: 'http://x' } }),
      capabilities,
    );
    expect(
      built.args.slice(built.args.indexOf('--max-turns'), built.args.indexOf('--max-turns') + 2),
    ).toEqual(['--max-turns', '12']);
    expect(built.env).toMatchObject({ CLAUDECODE: 'kept', ANTHROPIC_BASE_URL: 'http://x' });
  });

  it('reads a long prompt from stdin with no prompt argument', async () => {
    const prompt = 'x'.repeat(200_000);
    const built = claudeAdapter.buildCommand(
      request({ prompt }),
      await capabilitiesOf(helpVersions('claude').at(-1)!),
    );
    expect(built.args.at(-1)).toBe('acceptEdits');
    expect(built.stdinFile).toBe('/repo/scratch/prompt.txt');
  });
});

describe('claude stream', () => {
  it('counts usage once per message id while messages arrive, then takes the result line as authoritative', () => {
    const fixture = loadStream('claude', 'success-edit');
    const { events, final } = replay(claudeAdapter, fixture.lines, endOf(fixture.meta));
    const running = usages(events);
    // Turn 1 arrives on two lines with one message id; counted once.
    expect(running[0]?.usage).toMatchObject({ inputTokens: 1200, cacheWriteTokens: 300, turns: 1 });
    expect(running.filter((event) => event.usage.inputTokens === 2400)).toHaveLength(0);
    expect(running.at(-1)?.usage).toEqual({
      inputTokens: 2500,
      outputTokens: 52,
      cacheReadTokens: 300,
      cacheWriteTokens: 300,
      turns: 2,
      costUsd: 0.0126,
      costSource: 'reported',
    });
    expect(final.usage?.costSource).toBe('reported');
  });

  it('keeps the counted usage when the result line reports none', () => {
    const fixture = loadStream('claude', 'success-edit');
    const lines = fixture.lines.map((line) => {
      const value = JSON.parse(line) as { type?: string; usage?: unknown; total_cost_usd?: unknown };
      if (value.type !== 'result') return line;
      delete value.usage;
      delete value.total_cost_usd;
      return JSON.stringify(value);
    });
    const { events, final } = replay(claudeAdapter, lines, endOf(fixture.meta));
    const beforeResult = usages(events).at(-2)?.usage;
    expect(final.usage).toMatchObject({
      inputTokens: beforeResult?.inputTokens,
      outputTokens: beforeResult?.outputTokens,
      turns: 2,
    });
    expect(final.usage?.inputTokens).toEqual(expect.any(Number));
  });

  it('replaces, never adds, the usage of a message that arrives again with new figures', () => {
    const fixture = loadStream('claude', 'success-edit');
    const assistant = fixture.lines.find((line) => line.includes('"type":"assistant"'))!;
    const again = JSON.parse(assistant) as { message: { usage: { output_tokens: number } } };
    again.message.usage.output_tokens = 400;
    const parser = claudeAdapter.createParser();
    const first = usages(parser.parseLine(assistant))[0]!.usage;
    const second = usages(parser.parseLine(JSON.stringify(again)))[0]!.usage;
    expect(second).toMatchObject({ inputTokens: first.inputTokens, outputTokens: 400, turns: 1 });
  });

  it('estimates the running cost from the price table before the result arrives', () => {
    const fixture = loadStream('claude', 'success-edit');
    const prices = {
      'claude-opus-5-5': {
        inputPerMTok: 10,
        outputPerMTok: 50,
        cacheReadPerMTok: 1,
        cacheWritePerMTok: 12.5,
      },
    };
    const { events } = replay(claudeAdapter, fixture.lines, endOf(fixture.meta), { prices });
    const first = usages(events)[0]!.usage;
    expect(first.costSource).toBe('estimated');
    expect(first.costUsd).toBeCloseTo((1200 * 10 + 1 * 50 + 300 * 12.5) / 1e6, 5);
  });

  it('emits the init session, the Write tool call with a relative path, and its result', () => {
    const fixture = loadStream('claude', 'success-edit');
    const { events } = replay(claudeAdapter, fixture.lines, endOf(fixture.meta));
    expect(events[0]).toMatchObject({
      kind: 'progress',
      stage: 'init',
      sessionId: fixture.lines[0] && (JSON.parse(fixture.lines[0]) as { session_id: string }).session_id,
    });
    expect(events.find((event) => event.kind === 'tool_call')).toMatchObject({
      name: 'Write',
      summary: 'Write hello.txt',
    });
    expect(events.find((event) => event.kind === 'tool_result')).toMatchObject({ name: 'Write', ok: true });
  });

  it('streams partial text when partial messages are on, and ends the same way', () => {
    const partial = loadStream('claude', 'partial-messages');
    const plain = loadStream('claude', 'success-edit');
    const withPartials = replay(claudeAdapter, partial.lines, endOf(partial.meta));
    const without = replay(claudeAdapter, plain.lines, endOf(plain.meta));
    expect(
      withPartials.events.filter((event) => event.kind === 'message' && event.partial === true).length,
    ).toBeGreaterThan(0);
    expect(withPartials.final).toEqual(without.final);
    expect(withPartials.events.filter((event) => event.kind === 'unknown')).toEqual([]);
  });

  it('reads every shape of a content_block_delta line as the stream schema does', () => {
    const recorded = loadStream('claude', 'partial-messages').lines.find((line) =>
      line.includes('"text_delta"'),
    )!;
    const withDelta = (delta: unknown, event: Record<string, unknown> = {}): string => {
      const value = JSON.parse(recorded) as { event: Record<string, unknown> };
      value.event = { ...value.event, delta, ...event };
      return JSON.stringify(value);
    };
    const parse = (line: string): AgentEvent[] => claudeAdapter.createParser().parseLine(line);
    const partial = (text: string, thinking = false) => [
      { v: 1, kind: 'message', role: 'assistant', text, partial: true, ...(thinking ? { thinking } : {}) },
    ];
    const unknown = [expect.objectContaining({ kind: 'unknown', type: 'stream_event' })];

    expect(parse(withDelta({ type: 'text_delta', text: 'Hello' }))).toEqual(partial('Hello'));
    expect(parse(withDelta({ type: 'thinking_delta', thinking: 'Hmm' }))).toEqual(partial('Hmm', true));
    expect(parse(withDelta({ type: 'text_delta', text: 'a\uD800b' }))).toEqual(partial('a\uFFFDb'));
    expect(parse(withDelta({ type: 'input_json_delta', partial_json: '{"a' }))).toEqual([]);
    expect(parse(withDelta({ type: 'text_delta', text: '' }))).toEqual([]);
    expect(parse(withDelta({ text: 'no type' }))).toEqual([]);
    expect(parse(withDelta(null))).toEqual([]);
    expect(parse(withDelta({ type: 'text_delta', text: 5 }))).toEqual(unknown);
    expect(parse(withDelta({ type: 'text_delta', text: 'x', thinking: 7 }))).toEqual(unknown);
    expect(parse(withDelta(['text_delta']))).toEqual(unknown);
    expect(parse(withDelta({ type: 'text_delta', text: 'x' }, { type: 7 }))).toEqual(unknown);
  });

  it('treats subtype "success" with is_error true as a failure (the 401 trap)', () => {
    const fixture = loadStream('claude', 'auth-failure');
    const resultLine = fixture.lines.find((line) => line.includes('"type":"result"'))!;
    expect(resultLine).toContain('"subtype":"success"');
    const { final } = replay(claudeAdapter, fixture.lines, endOf(fixture.meta));
    expect(final).toMatchObject({
      kind: 'failed',
      exitCode: 1,
      error: { kind: 'AuthMissing', hint: expect.stringContaining('ANTHROPIC_API_KEY') },
    });
    expect(final.kind === 'failed' && final.error.message).toMatch(/401/);
  });

  it('calls a 5xx an API server error, not an auth problem', () => {
    const fixture = loadStream('claude', 'server-error');
    const { final } = replay(claudeAdapter, fixture.lines, endOf(fixture.meta));
    expect(final.kind === 'failed' && final.error.message).toMatch(/HTTP 500/);
  });

  it('reports a refused connection as Unreachable, naming the network and base URL, never "(success)"', () => {
    // As Claude Code 2.1.331 ends a call to a closed port: the recorded 500 with its words and no status.
    const fixture = loadStream('claude', 'server-error');
    const refused = 'API Error: Connection refused';
    const lines = fixture.lines.map((line) =>
      line
        .replace(/API Error: 500 Internal server error\.[^"]*/, refused)
        .replace('"api_error_status":500,', '')
        .replace('"api_error_type":"api_error",', ''),
    );
    const { final } = replay(claudeAdapter, lines, endOf(fixture.meta));
    expect(final).toMatchObject({
      kind: 'failed',
      error: { kind: 'Unreachable', message: `Claude Code could not reach its model API: ${refused}` },
    });
    expect(final.kind === 'failed' && final.error.hint).toMatch(/network.*base URL/);
    expect(final.kind === 'failed' && final.error.message).not.toContain('(success)');
  });

  it('still reports AuthMissing when the stream stops after the authentication_failed message', () => {
    const fixture = loadStream('claude', 'auth-failure');
    const withoutResult = fixture.lines.filter((line) => !line.includes('"type":"result"'));
    const { final } = replay(claudeAdapter, withoutResult, endOf(fixture.meta));
    expect(final.kind === 'failed' && final.error.kind).toBe('AuthMissing');
  });
});
