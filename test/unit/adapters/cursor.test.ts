/** Cursor Agent (experimental), on the documented fixtures: no installable CLI exists here. */
import { describe, expect, it } from 'vitest';
import { cursorAdapter } from '../../../src/adapters/cursor.js';
import { binaryCandidates } from '../../../src/adapters/registry.js';

import {
  endOf,
  fixtureRunner,
  helpVersions,
  loadStream,
  replay,
  spawnRequest as request,
} from '../../support/adapter-fixtures.js';

const documented = helpVersions('cursor').at(-1)!;

describe('cursor probe', () => {
  it('is experimental and reports its flags as inferred, with a warning for the UI', async () => {
    expect(cursorAdapter.tier).toBe('experimental');
    const result = await cursorAdapter.probe('/bin/cursor-agent', fixtureRunner('cursor', documented));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.capabilities.confidence).toBe('inferred');
    expect(result.capabilities.warnings.join(' ')).toMatch(/experimental/);
    expect(result.capabilities.features).toMatchObject({
      print: true,
      outputFormat: true,
      force: true,
      model: true,
      trust: true,
    });
  });

  it('tries the configured path, then cursor-agent, cursor and agent', () => {
    expect(binaryCandidates(cursorAdapter, '/opt/cursor/bin/agent')).toEqual([
      '/opt/cursor/bin/agent',
      'cursor-agent',
      'cursor',
      'agent',
    ]);
    expect(binaryCandidates(cursorAdapter)).toEqual(['cursor-agent', 'cursor', 'agent']);
  });

  it("rejects a binary whose help does not mention Cursor (another vendor's `agent`)", async () => {
    const runner = fixtureRunner('cursor', documented, (file, text) =>
      file === 'help.txt' ? text.replace(/Cursor/gi, 'Acme') : text,
    );
    const result = await cursorAdapter.probe('/usr/bin/agent', runner);
    expect(!result.ok && result.error.kind).toBe('UnsupportedVersion');
    expect(!result.ok && result.error.message).toMatch(/does not identify itself as Cursor Agent/);
  });

  it('rejects the Cursor editor launcher, which has no headless print mode', async () => {
    const runner = fixtureRunner('cursor', documented, (file, text) =>
      file === 'help.txt'
        ? text
            .split('\n')
            .filter((line) => !/--output-format|-p, --print/.test(line))
            .join('\n')
        : text,
    );
    const result = await cursorAdapter.probe('/usr/bin/cursor', runner);
    expect(!result.ok && result.error.kind).toBe('UnsupportedFlag');
  });
});

describe('cursor follow-up', () => {
  it('continues the chat with --resume <chatId>, which its documented help lists', async () => {
    const result = await cursorAdapter.probe('/bin/cursor-agent', fixtureRunner('cursor', documented));
    if (!result.ok) throw result.error;
    expect(result.capabilities.features['resume']).toBe(true);
    const built = cursorAdapter.buildCommand(
      request({ prompt: 'Now add a test', resumeSessionId: '00000000-0000-4000-8000-000000000001' }),
      result.capabilities,
    );
    const resume = built.args.indexOf('--resume');
    expect(built.args.slice(resume, resume + 2)).toEqual([
      '--resume',
      '00000000-0000-4000-8000-000000000001',
    ]);
    expect(built.args.at(-1)).toBe('Now add a test');
  });
});

describe('cursor command', () => {
  it('runs print mode with stream-json, --force and --trust, the prompt after --', async () => {
    const result = await cursorAdapter.probe('/bin/cursor-agent', fixtureRunner('cursor', documented));
    if (!result.ok) throw result.error;
    const built = cursorAdapter.buildCommand(request({ model: 'sonnet-4' }), result.capabilities);
    expect(built.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--force',
      '--trust',
      '--model',
      'sonnet-4',
      '--',
      'Create hello.txt',
    ]);
    expect(built.cwd).toBe('/repo/wt');
  });
});

describe('cursor stream', () => {
  it('maps tool calls by kind with one-line summaries and results', () => {
    const fixture = loadStream('cursor', 'success-edit');
    const { events, final } = replay(cursorAdapter, fixture.lines, endOf(fixture.meta));
    const calls = events
      .filter((event) => event.kind === 'tool_call')
      .map((event) => event.kind === 'tool_call' && [event.name, event.summary]);
    expect(calls).toEqual([
      ['shellToolCall', '$ ls -a'],
      ['writeToolCall', 'Write hello.txt'],
      ['editToolCall', 'Edit README.md'],
    ]);
    expect(
      events
        .filter((event) => event.kind === 'tool_result')
        .every((event) => event.kind === 'tool_result' && event.ok),
    ).toBe(true);
    expect(final).toMatchObject({ kind: 'completed', exitCode: 0 });
    expect(final.usage).toBeUndefined();
  });

  it("separates the result's sentences where the CLI ran its messages together", () => {
    const fixture = loadStream('cursor', 'success-edit');
    const { final } = replay(cursorAdapter, fixture.lines, endOf(fixture.meta));
    expect(final).toMatchObject({
      kind: 'completed',
      result:
        "I'll look at the repository first.\nNow I'll create hello.txt.\nDone! I created hello.txt and mentioned it in README.md.",
    });
    // With partial output, the deltas are not counted twice: the flushed messages are.
    const partial = loadStream('cursor', 'partial-messages');
    const replayed = replay(cursorAdapter, partial.lines, endOf(partial.meta));
    expect(replayed.final).toMatchObject({ result: "I'll create hello.txt.\nDone." });
  });

  it('keeps a result text that is not its messages run together as the CLI wrote it', () => {
    const fixture = loadStream('cursor', 'success-edit');
    const lines = fixture.lines.map((line) =>
      line.includes('"type":"result"') ? line.replace(/"result":"[^"]*"/, '"result":"All done."') : line,
    );
    const { final } = replay(cursorAdapter, lines, endOf(fixture.meta));
    expect(final).toMatchObject({ result: 'All done.' });
  });

  it('summarises file tool results as the path relative to the worktree and the lines changed', () => {
    const fixture = loadStream('cursor', 'success-edit');
    const { events } = replay(cursorAdapter, fixture.lines, endOf(fixture.meta), {
      cwd: '/tmp/hydra-fixture/repo',
    });
    const results = events.flatMap((event) =>
      event.kind === 'tool_result' ? [[event.name, event.summary]] : [],
    );
    expect(results).toContainEqual(['writeToolCall', 'hello.txt · 1 line']);
    expect(results).toContainEqual(['editToolCall', 'README.md +2 -0']);
  });

  it('marks partial-output deltas as partial and keeps each whole message once', () => {
    const fixture = loadStream('cursor', 'partial-messages');
    const { events } = replay(cursorAdapter, fixture.lines, endOf(fixture.meta));
    const assistant = events.filter((event) => event.kind === 'message' && event.role === 'assistant');
    const whole = assistant
      .filter((event) => event.kind === 'message' && event.partial !== true)
      .map((event) => event.kind === 'message' && event.text);
    expect(assistant.some((event) => event.kind === 'message' && event.partial === true)).toBe(true);
    expect(whole).toEqual(["I'll create hello.txt.", 'Done.']);
  });

  it('reads the sign-in prompt as AuthMissing, not as a parse error', () => {
    const fixture = loadStream('cursor', 'auth-failure');
    const { events, final } = replay(cursorAdapter, fixture.lines, endOf(fixture.meta));
    expect(events.filter((event) => event.kind === 'parse_error')).toEqual([]);
    expect(final).toMatchObject({
      kind: 'failed',
      error: { kind: 'AuthMissing', hint: expect.stringContaining('CURSOR_API_KEY') },
    });
  });

  it('fails a stream that ends early, quoting stderr', () => {
    const fixture = loadStream('cursor', 'server-error');
    const { final } = replay(cursorAdapter, fixture.lines, endOf(fixture.meta));
    expect(final.kind === 'failed' && final.error.kind).toBe('AgentFailed');
    expect(final.kind === 'failed' && final.stderrTail).toBe(fixture.meta.stderr);
  });

  it('keeps a non-JSON banner line as progress, and broken JSON as a parse error', () => {
    const fixture = loadStream('cursor', 'success-edit');
    const parser = cursorAdapter.createParser();
    expect(parser.parseLine('Cursor Agent v2026.08.25 — starting…')).toMatchObject([
      { kind: 'progress', stage: 'output' },
    ]);
    expect(parser.parseLine(fixture.lines[0]!.slice(0, 40))).toMatchObject([{ kind: 'parse_error' }]);
  });
});
