/**
 * The one contract every adapter meets, run against each adapter in the registry on its recorded
 * (or, for Cursor, documented) fixtures. Garbage cases (truncation, CRLF, 10 MB, invalid UTF-8)
 * are made by damaging the recorded lines, not by writing lines to match the code.
 */
import { describe, expect, it } from 'vitest';
import { AGENT_EVENT_KINDS, EVENT_SCHEMA_VERSION } from '../../../src/core/events.js';
import type { AgentEvent, AgentEventKind } from '../../../src/core/events.js';
import { ARGV_PROMPT_LIMIT_BYTES } from '../../../src/adapters/prompt-delivery.js';
import { adapterIds, adapterOf, getAdapter } from '../../../src/adapters/registry.js';
import type { AdapterId, Capabilities, SpawnRequest } from '../../../src/adapters/types.js';
import {
  endOf,
  FIXTURE_AGENT,
  fixtureRunner,
  helpVersions,
  loadStream,
  replay,
  REPLAY_RUN_ID,
} from '../../support/adapter-fixtures.js';

/** Which recorded scenario plays which role, per adapter. */
const SCENARIOS: Record<AdapterId, { success: string; failure: string; auth: string }> = {
  claude: { success: 'success-edit', failure: 'server-error', auth: 'auth-failure' },
  codex: { success: 'success-edit', failure: 'server-error', auth: 'auth-failure' },
  cursor: { success: 'success-edit', failure: 'server-error', auth: 'auth-failure' },
  gemini: { success: 'success-edit', failure: 'server-error', auth: 'auth-failure' },
  qwen: { success: 'success-edit', failure: 'server-error', auth: 'auth-failure' },
  opencode: { success: 'success-edit', failure: 'server-error', auth: 'auth-failure' },
};

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const strings = (value: unknown): string[] => {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(strings);
  return [];
};

const withoutRaw = (events: AgentEvent[]): unknown[] =>
  events.map((event) => (event.kind === 'unknown' ? { ...event, raw: undefined } : event));

const firstTerminalIndex = (adapterId: AdapterId, lines: string[]): number => {
  const parser = adapterOf(adapterId).createParser();
  return lines.findIndex((line) =>
    parser.parseLine(line).some((event) => event.kind === 'completed' || event.kind === 'failed'),
  );
};

/** A deterministic pseudo-random generator (tests must be repeatable). */
const prng = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

const sampleCapabilities = async (adapterId: AdapterId): Promise<Capabilities> => {
  const agent = FIXTURE_AGENT[adapterId]!;
  const versions = helpVersions(agent);
  if (versions.length > 0) {
    const result = await adapterOf(adapterId).probe(
      `/usr/local/bin/${adapterId}`,
      fixtureRunner(agent, versions.at(-1)!),
    );
    if (result.ok) return result.capabilities;
  }
  // Cursor has no installable CLI: its documented flags.
  return {
    adapterId,
    binary: `/usr/local/bin/${adapterId}`,
    version: null,
    flags: ['-p', '--print', '--output-format', '--force', '--model'],
    features: { print: true, outputFormat: true, force: true, model: true },
    confidence: 'inferred',
    warnings: [],
  };
};

const request = (prompt: string, overrides: Partial<SpawnRequest> = {}): SpawnRequest => ({
  prompt,
  cwd: '/work/repo/.hydra/worktrees/run-1/agent',
  scratchDir: '/work/repo/.hydra/runs/run-1/agent',
  unsafe: false,
  extraArgs: [],
  env: {},
  ...overrides,
});

describe('registry', () => {
  it('holds every adapter under its own id, the default race first', () => {
    expect(adapterIds()).toEqual(['claude', 'codex', 'cursor', 'gemini', 'qwen', 'opencode']);
    for (const id of adapterIds()) expect(adapterOf(id).id).toBe(id);
    expect(adapterIds().map((id) => adapterOf(id).tier)).toEqual([
      'tier1',
      'tier1',
      'experimental',
      'tier1',
      'tier1',
      'experimental',
    ]);
    // Tier 1 but raced only when named: a default race shows no pane for a CLI never installed.
    expect(adapterIds().filter((id) => adapterOf(id).inDefaultRace === false)).toEqual(['gemini', 'qwen']);
  });

  it('finds adapters by id, case-insensitively, and cursor-agent as cursor', () => {
    expect(getAdapter('Claude')?.id).toBe('claude');
    expect(getAdapter('cursor-agent')?.id).toBe('cursor');
    expect(getAdapter('aider')).toBeUndefined();
    expect(getAdapter('toString')).toBeUndefined();
  });
});

describe.each(adapterIds())('adapter contract: %s', (adapterId) => {
  const adapter = adapterOf(adapterId);
  const agent = FIXTURE_AGENT[adapterId]!;
  const scenarios = SCENARIOS[adapterId]!;
  const success = loadStream(agent, scenarios.success);

  describe('parsing recorded output', () => {
    it('turns a successful run into a completed event with its final text', () => {
      const { final } = replay(adapter, success.lines, endOf(success.meta));
      expect(final.kind).toBe('completed');
      expect(final.kind === 'completed' && final.result).toBeTruthy();
    });

    it('links every tool call to its result and summarises both on one line', () => {
      const { events } = replay(adapter, success.lines, endOf(success.meta), {
        cwd: '/tmp/hydra-fixture/repo',
      });
      const calls = events.filter((event) => event.kind === 'tool_call');
      const results = events.filter((event) => event.kind === 'tool_result');
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        expect(call.summary).not.toBe('');
        expect(call.summary).not.toMatch(/\n/);
        expect(call.summary.length).toBeLessThanOrEqual(160);
        expect(results.some((result) => result.id === call.id)).toBe(true);
      }
      expect(calls.some((call) => /hello\.txt/.test(call.summary))).toBe(true);
    });

    it('reports a failed run as failed with the exit code', () => {
      const failure = loadStream(agent, scenarios.failure);
      const { final } = replay(adapter, failure.lines, endOf(failure.meta));
      expect(final.kind).toBe('failed');
      expect(final.kind === 'failed' && final.error.kind).toBe('AgentFailed');
      expect(final.kind === 'failed' && final.error.hint).not.toBe('');
      expect(final.exitCode).toBe(failure.meta.exitCode);
    });

    it('reports a rejected credential as AuthMissing with a hint to log in', () => {
      const auth = loadStream(agent, scenarios.auth);
      const { final } = replay(adapter, auth.lines, endOf(auth.meta));
      expect(final.kind === 'failed' && final.error.kind).toBe('AuthMissing');
      expect(final.kind === 'failed' && final.error.hint).toMatch(/login|API_KEY/i);
    });

    it('stamps the schema version and a known kind on every event', () => {
      for (const name of Object.values(scenarios)) {
        const fixture = loadStream(agent, name);
        const { events, final } = replay(adapter, fixture.lines, endOf(fixture.meta));
        for (const event of [...events, final]) {
          expect(event.v).toBe(EVENT_SCHEMA_VERSION);
          expect(AGENT_EVENT_KINDS).toContain(event.kind);
        }
      }
    });
  });

  describe('unknown and damaged input', () => {
    it('ignores unknown fields', () => {
      const extended = success.lines.map((line) => {
        const value = JSON.parse(line) as Record<string, unknown>;
        return JSON.stringify({
          hydra_future_field: { nested: [1, 2, 3] },
          ...value,
          another_new_field: 'x',
        });
      });
      const plain = replay(adapter, success.lines, endOf(success.meta));
      const extra = replay(adapter, extended, endOf(success.meta));
      expect(withoutRaw(extra.events)).toEqual(withoutRaw(plain.events));
      expect(extra.final).toEqual(plain.final);
    });

    it('keeps lines of an unknown type as unknown events with the raw object', () => {
      const parser = adapter.createParser();
      for (const line of success.lines) {
        const value = JSON.parse(line) as Record<string, unknown>;
        const events = parser.parseLine(JSON.stringify({ ...value, type: 'hydra.future_event' }));
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ kind: 'unknown', type: 'hydra.future_event' });
        expect(events[0]?.kind === 'unknown' && events[0].raw).toMatchObject({ type: 'hydra.future_event' });
      }
    });

    it('turns truncated lines into parse errors and keeps going', () => {
      const parser = adapter.createParser();
      const events: AgentEvent[] = [];
      for (const line of success.lines) {
        const cut = parser.parseLine(line.slice(0, Math.floor(line.length / 2)));
        expect(cut).toHaveLength(1);
        expect(cut[0]).toMatchObject({ kind: 'parse_error' });
        expect(
          cut[0]?.kind === 'parse_error' && line.startsWith(cut[0].raw.replace(/… \[\d+ more chars\]$/, '')),
        ).toBe(true);
        events.push(...parser.parseLine(line));
      }
      expect(parser.finish({ ...endOf(success.meta), sawTerminalEvent: true }).kind).toBe('completed');
    });

    it('reads CRLF output exactly like LF output', () => {
      const lf = replay(adapter, success.lines, endOf(success.meta));
      const crlf = replay(
        adapter,
        success.lines.map((line) => `${line}\r`),
        endOf(success.meta),
      );
      expect(crlf.events).toEqual(lf.events);
      expect(crlf.final).toEqual(lf.final);
    });

    it('survives a 10 MB line, keeping only a bounded excerpt', () => {
      const parser = adapter.createParser();
      const garbage = `{"type":"assistant","junk":"${'x'.repeat(10 * 1024 * 1024)}`;
      const events = parser.parseLine(garbage);
      expect(events).toHaveLength(1);
      expect(events[0]?.kind).toBe('parse_error');
      expect(events[0]?.kind === 'parse_error' && events[0].raw.length).toBeLessThan(3000);
      const hugeJson = JSON.stringify({
        ...(JSON.parse(success.lines[0]!) as object),
        padding: 'y'.repeat(10 * 1024 * 1024),
      });
      const huge = parser.parseLine(hugeJson);
      expect(JSON.stringify(huge).length).toBeLessThan(10_000);
      const rest = success.lines.flatMap((line) => parser.parseLine(line));
      expect(rest.some((event) => event.kind === 'completed')).toBe(true);
    });

    it('never throws on invalid UTF-8 and never emits lone surrogates', () => {
      const damaged = success.lines.map((line) => {
        const bytes = Buffer.from(line, 'utf8');
        const middle =
          line.indexOf('"text"') >= 0
            ? Buffer.byteLength(line.slice(0, line.indexOf('"text"') + 9))
            : Math.floor(bytes.length / 2);
        // Invalid bytes decoded the way the engine decodes stdout (replacement characters).
        return new TextDecoder('utf-8').decode(
          Buffer.concat([
            bytes.subarray(0, middle),
            Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
            bytes.subarray(middle),
          ]),
        );
      });
      const escaped = success.lines.map((line) => line.replace(/"text":"/g, '"text":"\\ud800\\udfff\\udc00'));
      for (const lines of [damaged, escaped]) {
        const { events, final } = replay(adapter, lines, endOf(success.meta));
        for (const text of strings([...events.filter((event) => event.kind !== 'unknown'), final]))
          expect(LONE_SURROGATE.test(text)).toBe(false);
      }
    });

    it('never throws on arbitrary slices of real output', () => {
      const random = prng(42);
      const text = success.lines.join('\n');
      const parser = adapter.createParser();
      for (let index = 0; index < 300; index += 1) {
        const start = Math.floor(random() * text.length);
        const line = text.slice(start, start + Math.floor(random() * 400));
        expect(Array.isArray(parser.parseLine(line))).toBe(true);
      }
      for (const value of [
        'null',
        '42',
        '"text"',
        '[]',
        '{}',
        '{"type":null}',
        '{"type":42}',
        '{"type":"result"}',
        '{"type":"assistant","message":null}',
      ]) {
        expect(Array.isArray(parser.parseLine(value))).toBe(true);
      }
      expect(
        parser.finish({
          exitCode: 0,
          signal: null,
          stderrTail: '',
          sawTerminalEvent: false,
          runId: REPLAY_RUN_ID,
        }).kind,
      ).toBeDefined();
    });
  });

  describe('how a run ends', () => {
    const cut = firstTerminalIndex(adapterId, success.lines);
    const unfinished = success.lines.slice(0, cut);

    it('fails a run that exits 0 without a result', () => {
      const { final } = replay(adapter, unfinished, { exitCode: 0, signal: null, stderrTail: '' });
      expect(final.kind === 'failed' && final.error.kind).toBe('StreamParseError');
      expect(final.kind === 'failed' && final.error.message).toMatch(/without a result/);
    });

    it('fails a crashed run with the stderr tail', () => {
      const { final } = replay(adapter, unfinished, {
        exitCode: 3,
        signal: null,
        stderrTail: 'panic: something broke\n',
      });
      expect(final).toMatchObject({ kind: 'failed', exitCode: 3, stderrTail: 'panic: something broke\n' });
      expect(final.kind === 'failed' && final.error.kind).toBe('AgentFailed');
      expect(final.kind === 'failed' && final.error.message).toMatch(/something broke/);
    });

    it("names the run's id in the hint that points at the stderr", () => {
      const { final } = replay(adapter, unfinished, { exitCode: 3, signal: null, stderrTail: 'panic\n' });
      expect(final.kind === 'failed' && final.error.hint).toContain(`hydra show ${REPLAY_RUN_ID}`);
      expect(final.kind === 'failed' && final.error.hint).not.toContain('<run-id>');
    });

    it('leaves a stop before the result to the engine: it only says how the process ended', () => {
      for (const stoppedBy of ['idle_timeout', 'timeout', 'cancel'] as const) {
        const { final } = replay(adapter, unfinished, {
          exitCode: null,
          signal: 'SIGTERM',
          stderrTail: '',
          stoppedBy,
        });
        expect(final.kind === 'failed' && final.error).toMatchObject({
          kind: 'AgentFailed',
          message: expect.stringMatching(/killed by SIGTERM/) as unknown,
        });
      }
    });

    it('fails a run that reported success but exited non-zero', () => {
      const { final } = replay(adapter, success.lines, {
        exitCode: 1,
        signal: null,
        stderrTail: 'late failure',
      });
      expect(final.kind === 'failed' && final.error.kind).toBe('AgentFailed');
    });

    it('keeps the result of a run that hung after reporting it', () => {
      const { final } = replay(adapter, success.lines, {
        exitCode: null,
        signal: 'SIGTERM',
        stderrTail: '',
        stoppedBy: 'idle_timeout',
      });
      expect(final.kind).toBe('completed');
    });
  });

  describe('building the command', () => {
    const tricky = [
      '--help',
      '-p',
      '-',
      'say "hi" and \'bye\'',
      'line one\nline two\r\nline three',
      '$(rm -rf ~) `whoami` ${HOME} && echo pwned; | > /etc/passwd',
      'unicode: héllo 世界 🚀',
    ];

    it.each(tricky)('carries the prompt %j intact, after the options', async (prompt) => {
      const built = adapter.buildCommand(request(prompt), await sampleCapabilities(adapterId));
      if (built.stdinFile === undefined) {
        // The last argument: after `--`, or as one `--<flag>=<prompt>` argument (read as a value
        // even when the prompt starts with a dash).
        const last = built.args.at(-1) ?? '';
        if (built.args.at(-2) === '--') expect(last).toBe(prompt);
        else
          expect(/^--[a-z][a-z-]*=/.exec(last)?.[0] ?? '').toBe(last.slice(0, last.length - prompt.length));
        expect(last.endsWith(prompt)).toBe(true);
      } else {
        expect(built.files).toContainEqual({ path: built.stdinFile, content: prompt });
        if (prompt.length > 2) expect(built.args.some((arg) => arg.includes(prompt))).toBe(false);
      }
      expect(built.args.slice(0, -1)).not.toContain(prompt.length > 2 ? prompt : '\u0000');
    });

    it('sends a prompt over 128 KiB through a file on stdin, byte for byte', async () => {
      const prompt = `-${'long prompt ✓ '.repeat(12_000)}`;
      expect(Buffer.byteLength(prompt)).toBeGreaterThan(128 * 1024);
      const built = adapter.buildCommand(request(prompt), await sampleCapabilities(adapterId));
      expect(built.stdinFile).toBe(`${request('').scratchDir}/prompt.txt`);
      expect(built.files).toEqual([{ path: built.stdinFile, content: prompt }]);
      for (const arg of built.args)
        expect(Buffer.byteLength(arg)).toBeLessThanOrEqual(ARGV_PROMPT_LIMIT_BYTES);
      expect(built.args.join(' ')).not.toContain('long prompt');
    });

    it('sends a prompt containing NUL through stdin (no argument can hold it)', async () => {
      const built = adapter.buildCommand(request('a\u0000b'), await sampleCapabilities(adapterId));
      expect(built.files[0]?.content).toBe('a\u0000b');
    });

    it('appends extra args before the prompt and merges env', async () => {
      const built = adapter.buildCommand(
        request('fix it', { extraArgs: ['--extra', 'value'], env: { HYDRA_TEST: '1' } }),
        await sampleCapabilities(adapterId),
      );
      const extra = built.args.indexOf('--extra');
      expect(extra).toBeGreaterThan(0);
      expect(built.args[extra + 1]).toBe('value');
      // Before the prompt's own arguments (none when it goes through stdin).
      const promptAt = built.args.findIndex((arg) => arg === '--' || arg.endsWith('=fix it'));
      expect(extra).toBeLessThan(promptAt < 0 ? built.args.length : promptAt);
      expect(built.env['HYDRA_TEST']).toBe('1');
      expect(built.cwd).toBe(request('').cwd);
    });

    it('continues an earlier session only where the probe saw a resume flag', async () => {
      const capabilities = await sampleCapabilities(adapterId);
      const built = adapter.buildCommand(request('x', { resumeSessionId: 'session-1234' }), capabilities);
      expect(built.args.includes('session-1234')).toBe(capabilities.features['resume'] === true);
    });

    it('passes a configured model, and none for "default"', async () => {
      const capabilities = await sampleCapabilities(adapterId);
      const withModel = adapter.buildCommand(request('x', { model: 'some-model-1' }), capabilities);
      expect(withModel.args[withModel.args.indexOf('--model') + 1]).toBe('some-model-1');
      expect(adapter.buildCommand(request('x', { model: 'default' }), capabilities).args).not.toContain(
        '--model',
      );
      expect(adapter.buildCommand(request('x'), capabilities).args).not.toContain('--model');
    });
  });

  describe('probing a binary whose --version names no version', () => {
    it('never makes one up: it refuses, naming the command and how to reinstall, or reports none', async () => {
      const latest = helpVersions(agent).at(-1)!;
      const run = fixtureRunner(agent, latest, (file, text) => (file === 'version.txt' ? 'hello\n' : text));
      const result = await adapter.probe('/opt/bin/x', run);
      if (result.ok) {
        // Cursor's version output is undocumented: it races without one, flagged as inferred.
        expect(adapterId).toBe('cursor');
        expect(result.capabilities.version).toBeNull();
      } else {
        expect(result.error.kind).toBe('UnsupportedVersion');
        expect(result.error.command).toEqual(['/opt/bin/x', '--version']);
        expect(result.error.hint).toContain('reinstall with:');
        expect(result.error.stderrExcerpt).toContain('hello');
      }
    });
  });

  describe('model names', () => {
    it.each([
      '',
      '   ',
      '<model>',
      'MODEL',
      'your-model-here',
      'TODO',
      '${MODEL}',
      '{model}',
      '--dangerously-bypass',
      'gpt 5',
      'none',
    ])('rejects %j before launch', (model) => {
      const error = adapter.validateModel(model);
      expect(error?.kind).toBe('InvalidConfig');
      expect(error?.adapterId).toBe(adapterId);
      expect(error?.hint).toMatch(/hydra\.toml|--model/);
    });

    it.each([
      undefined,
      'default',
      'sonnet',
      'claude-sonnet-4-5-20250929',
      'gpt-5.1-codex',
      'o4-mini',
      'openrouter/anthropic/claude-3.5',
    ])('accepts %j', (model) => {
      expect(adapter.validateModel(model)).toBeNull();
    });
  });
});

describe('event kind coverage', () => {
  it('covers every normalized event kind across the adapters', () => {
    const seen = new Set<AgentEventKind>();
    for (const adapterId of adapterIds()) {
      const agent = FIXTURE_AGENT[adapterId]!;
      for (const name of Object.values(SCENARIOS[adapterId]!)) {
        const fixture = loadStream(agent, name);
        const { events, final } = replay(adapterOf(adapterId), fixture.lines, endOf(fixture.meta));
        for (const event of [...events, final]) seen.add(event.kind);
      }
      const parser = adapterOf(adapterId).createParser();
      for (const event of [
        ...parser.parseLine('{"type":"hydra.future_event"}'),
        ...parser.parseLine('{not json'),
      ])
        seen.add(event.kind);
    }
    expect([...seen].sort()).toEqual([...AGENT_EVENT_KINDS].sort());
  });
});
