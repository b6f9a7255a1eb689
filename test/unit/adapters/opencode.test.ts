import { describe, expect, it } from 'vitest';
import { OPENCODE_EDIT_PERMISSION, opencodeAdapter } from '../../../src/adapters/opencode.js';
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

const versions = helpVersions('opencode');
const runHelp = (version: string): string =>
  `${readHelpFile('opencode', version, 'run-help.txt') ?? ''}${readHelpFile('opencode', version, 'run-help.stderr.txt') ?? ''}`;
const withJson = versions.filter((version) => runHelp(version).includes('--format'));
const withoutJson = versions.filter((version) => !withJson.includes(version));
const latest = versions.at(-1)!;

/** What opencode 1.3.2 printed on stderr before its help when it could not reach models.dev (captured once by hand). */
const MODELS_DEV_ERROR =
  'ERROR 2026-11-23T13:22:33 +1013ms service=models.dev error=Unable to connect. Is the computer able to access the url? Failed to fetch models.dev\n';

const capabilitiesOf = async (version: string): Promise<Capabilities> => {
  const result = await opencodeAdapter.probe('/bin/opencode', fixtureRunner('opencode', version));
  if (!result.ok) throw result.error;
  return result.capabilities;
};

const ofKind = <K extends AgentEvent['kind']>(events: AgentEvent[], kind: K) =>
  events.filter((event): event is Extract<AgentEvent, { kind: K }> => event.kind === kind);

describe('opencode probe across recorded versions', () => {
  it('has help texts of three or more versions, with and without run --format json', () => {
    expect(versions.length).toBeGreaterThanOrEqual(3);
    expect(withJson.length).toBeGreaterThanOrEqual(3);
    expect(withoutJson.length).toBeGreaterThan(0);
  });

  it('runs --version and run --help through the injected runner', async () => {
    const runner = fixtureRunner('opencode', latest);
    await opencodeAdapter.probe('/bin/opencode', runner);
    expect(runner.calls).toContainEqual(['/bin/opencode', '--version']);
    expect(runner.calls).toContainEqual(['/bin/opencode', 'run', '--help']);
  });

  it.each(withJson)('accepts opencode %s (its run help on stdout or on stderr)', async (version) => {
    const capabilities = await capabilitiesOf(version);
    expect(capabilities.version).toBe(version);
    expect(capabilities.features).toMatchObject({ jsonFormat: true, model: true, resume: true });
  });

  it.each(withoutJson)('refuses opencode %s, whose run prints text only', async (version) => {
    const result = await opencodeAdapter.probe('/bin/opencode', fixtureRunner('opencode', version));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('UnsupportedFlag');
    expect(result.error.command).toEqual(['/bin/opencode', 'run', '--help']);
    expect(result.error.hint).toContain('npm install -g opencode-ai');
  });

  it('reads the version past a models.dev ERROR line and a database migration notice', async () => {
    const runner = fixtureRunner('opencode', '1.3.2', (file, text) =>
      file === 'version.txt'
        ? `${MODELS_DEV_ERROR}Performing one time database migration, may take a few minutes...\nsqlite-migration:done\n${text}`
        : text,
    );
    const result = await opencodeAdapter.probe('/bin/opencode', runner);
    expect(result.ok && result.capabilities.version).toBe('1.3.2');
  });

  it('names the unsafe flag each release has: --auto, --dangerously-skip-permissions, or neither', async () => {
    const features = async (version: string) => (await capabilitiesOf(version)).features;
    expect(await features(latest)).toMatchObject({ auto: true, skipPermissions: false });
    expect(await features('1.14.41')).toMatchObject({ auto: false, skipPermissions: true });
    const old = await capabilitiesOf('1.3.2');
    expect(old.features).toMatchObject({ auto: false, skipPermissions: false });
    expect(old.warnings.join(' ')).toContain('--unsafe');
  });
});

describe('opencode command', () => {
  it('runs `run --format json` with the prompt on stdin and edits allowed', async () => {
    const built = opencodeAdapter.buildCommand(
      request({ prompt: '-v "quoted" 0x10', model: 'anthropic/claude-sonnet-4-5' }),
      await capabilitiesOf(latest),
    );
    expect(built.args).toEqual(['run', '--format', 'json', '--model', 'anthropic/claude-sonnet-4-5']);
    expect(built.stdinFile).toBe('/repo/scratch/prompt.txt');
    expect(built.files).toEqual([{ path: '/repo/scratch/prompt.txt', content: '-v "quoted" 0x10' }]);
    expect(JSON.parse(built.env['OPENCODE_PERMISSION'] ?? '{}')).toEqual({ edit: 'allow' });
    expect(built.env['OPENCODE_PERMISSION']).toBe(OPENCODE_EDIT_PERMISSION);
  });

  it('uses --auto, or --dangerously-skip-permissions on 1.14, only for --unsafe races', async () => {
    const unsafe = opencodeAdapter.buildCommand(request({ unsafe: true }), await capabilitiesOf(latest));
    expect(unsafe.args).toContain('--auto');
    expect(unsafe.env['OPENCODE_PERMISSION']).toBeUndefined();
    const older = opencodeAdapter.buildCommand(request({ unsafe: true }), await capabilitiesOf('1.14.41'));
    expect(older.args).toContain('--dangerously-skip-permissions');
    const safe = opencodeAdapter.buildCommand(request(), await capabilitiesOf(latest));
    expect(safe.args).not.toContain('--auto');
  });

  it('lets hydra.toml env override the permission it sets', async () => {
    const built = opencodeAdapter.buildCommand(
      request({ env: { OPENCODE_PERMISSION: '{"bash":"allow"}' } }),
      await capabilitiesOf(latest),
    );
    expect(built.env['OPENCODE_PERMISSION']).toBe('{"bash":"allow"}');
  });

  it('continues an earlier session with --session <id>', async () => {
    const args = opencodeAdapter.buildCommand(
      request({ resumeSessionId: 'ses_abc' }),
      await capabilitiesOf(latest),
    ).args;
    expect(args.slice(args.indexOf('--session'), args.indexOf('--session') + 2)).toEqual([
      '--session',
      'ses_abc',
    ]);
  });
});

describe('opencode parser on recorded streams', () => {
  it.each(['success-edit', 'success-edit@1.14.41', 'success-edit@1.3.2'])(
    'reads %s: session, write call and result, usage from the step_finish tokens',
    (name) => {
      const fixture = loadStream('opencode', name);
      const { events, final } = replay(opencodeAdapter, fixture.lines, endOf(fixture.meta), {
        cwd: '/tmp/hydra-fixture/repo',
      });
      const init = ofKind(events, 'progress').find((event) => event.stage === 'init');
      expect(init?.sessionId).toMatch(/^ses_fixture/);
      expect(ofKind(events, 'tool_call')).toEqual([
        expect.objectContaining({ id: 'call_fake_write_1', name: 'write', summary: 'write hello.txt' }),
      ]);
      expect(ofKind(events, 'tool_result')).toEqual([
        expect.objectContaining({ id: 'call_fake_write_1', ok: true, summary: 'Wrote file successfully.' }),
      ]);
      expect(final).toMatchObject({ kind: 'completed', result: 'Created hello.txt with a greeting.' });
      // Both steps' tokens: 1800 + 464 uncached input, 1536 cached, 50 + 12 output.
      expect(final.usage).toMatchObject({
        inputTokens: 2264,
        cacheReadTokens: 1536,
        outputTokens: 62,
        turns: 2,
      });
      expect(final.usage?.costSource).toBe('unknown');
    },
  );

  it('estimates the cost from the model part of a provider/model name', () => {
    const fixture = loadStream('opencode', 'success-edit');
    const { final } = replay(opencodeAdapter, fixture.lines, endOf(fixture.meta), {
      model: 'alibaba/qwen3-coder-plus',
    });
    // As OpenRouter's qwen/qwen3-coder-plus in the price database (see the qwen test).
    expect(final.usage).toMatchObject({ costSource: 'estimated', costUsd: 0.001873 });
  });

  it("keeps opencode's own cost when it reports one", () => {
    const fixture = loadStream('opencode', 'success-edit');
    const lines = fixture.lines.map((line) => line.replace('"cost":0', '"cost":0.0125'));
    const { final } = replay(opencodeAdapter, lines, endOf(fixture.meta), { model: 'openai/gpt-5' });
    // Two steps of 0.0125 each.
    expect(final.usage).toMatchObject({ costSource: 'reported', costUsd: 0.025 });
  });

  it.each(['auth-failure', 'auth-failure@1.14.41', 'auth-failure@1.3.2'])(
    'reports %s as AuthMissing, also where opencode exits 0',
    (name) => {
      const fixture = loadStream('opencode', name);
      const { final } = replay(opencodeAdapter, fixture.lines, endOf(fixture.meta));
      expect(final).toMatchObject({
        kind: 'failed',
        error: { kind: 'AuthMissing' },
        exitCode: fixture.meta.exitCode,
      });
      expect(final.kind === 'failed' && final.error.message).toContain('HTTP 401');
      expect(final.kind === 'failed' && final.error.hint).toContain('opencode auth login');
    },
  );

  it('reports a 500 as a server error', () => {
    const fixture = loadStream('opencode', 'server-error');
    const { final } = replay(opencodeAdapter, fixture.lines, endOf(fixture.meta));
    expect(final).toMatchObject({ kind: 'failed', exitCode: 1, error: { kind: 'AgentFailed' } });
    expect(final.kind === 'failed' && final.error.message).toContain('HTTP 500');
  });

  it('fails a run that opencode ended, exit 0, because a permission was refused', () => {
    const fixture = loadStream('opencode', 'permission-rejected');
    const { events, final } = replay(opencodeAdapter, fixture.lines, endOf(fixture.meta));
    expect(ofKind(events, 'tool_result')[0]).toMatchObject({ ok: false, name: 'write' });
    expect(final).toMatchObject({ kind: 'failed', exitCode: 0, error: { kind: 'AgentFailed' } });
    expect(final.kind === 'failed' && final.error.message).toContain('permission');
    expect(final.kind === 'failed' && final.error.hint).toContain('OPENCODE_PERMISSION');
  });

  it('does not call a run finished when another step follows a "stop"', () => {
    const fixture = loadStream('opencode', 'success-edit');
    const stepStart = fixture.lines.find((line) => line.startsWith('{"type":"step_start"'))!;
    const { final } = replay(opencodeAdapter, [...fixture.lines, stepStart], {
      exitCode: 0,
      signal: null,
      stderrTail: '',
    });
    expect(final.kind === 'failed' && final.error.kind).toBe('StreamParseError');
  });
});
