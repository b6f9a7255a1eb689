import { describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../../src/core/events.js';
import { GEMINI_MIN_VERSION, geminiAdapter } from '../../../src/adapters/gemini.js';
import { compareVersions } from '../../../src/adapters/help-flags.js';
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

const REPO = '/tmp/hydra-fixture/repo';
/** The session id of the recorded success (a normalized UUID). */
const SESSION = '00000000-0000-4000-8000-000000000001';

const versions = helpVersions('gemini');
const withStreamJson = versions.filter((version) =>
  readHelpFile('gemini', version, 'help.txt')?.includes('stream-json'),
);
const supported = withStreamJson.filter((version) => compareVersions(version, GEMINI_MIN_VERSION) >= 0);
const latest = versions.at(-1)!;

const capabilitiesOf = async (version: string): Promise<Capabilities> => {
  const result = await geminiAdapter.probe('/bin/gemini', fixtureRunner('gemini', version));
  if (!result.ok) throw result.error;
  return result.capabilities;
};

const replayStream = (name: string, options = {}) => {
  const fixture = loadStream('gemini', name);
  return { fixture, ...replay(geminiAdapter, fixture.lines, endOf(fixture.meta), options) };
};

const ofKind = <K extends AgentEvent['kind']>(events: AgentEvent[], kind: K) =>
  events.filter((event): event is Extract<AgentEvent, { kind: K }> => event.kind === kind);

describe('gemini probe across recorded versions', () => {
  it('has help texts from before stream-json to the latest release', () => {
    expect(versions.length).toBeGreaterThanOrEqual(3);
    expect(versions.length - withStreamJson.length).toBeGreaterThanOrEqual(2);
    expect(supported.length).toBeGreaterThanOrEqual(3);
  });

  it('runs --version and --help through the injected runner', async () => {
    const runner = fixtureRunner('gemini', latest);
    await geminiAdapter.probe('/bin/gemini', runner);
    expect(runner.calls).toEqual([
      ['/bin/gemini', '--version'],
      ['/bin/gemini', '--help'],
    ]);
  });

  it.each(versions.filter((version) => !withStreamJson.includes(version)))(
    'refuses Gemini CLI %s, whose --output-format has no stream-json',
    async (version) => {
      const result = await geminiAdapter.probe('/bin/gemini', fixtureRunner('gemini', version));
      expect(!result.ok && result.error.kind).toBe('UnsupportedFlag');
      expect(!result.ok && result.error.message).toContain('--output-format stream-json');
      expect(!result.ok && result.error.hint).toContain('npm install -g @google/gemini-cli');
    },
  );

  it.each(withStreamJson.filter((version) => !supported.includes(version)))(
    'refuses Gemini CLI %s, which reports a failed API call as a success',
    async (version) => {
      const result = await geminiAdapter.probe('/bin/gemini', fixtureRunner('gemini', version));
      expect(!result.ok && result.error.kind).toBe('UnsupportedVersion');
      expect(!result.ok && result.error.message).toContain(GEMINI_MIN_VERSION);
    },
  );

  it.each(supported)('accepts Gemini CLI %s and reads its version', async (version) => {
    const capabilities = await capabilitiesOf(version);
    expect(capabilities.version).toBe(version);
    expect(capabilities.features).toMatchObject({ streamJson: true, approvalMode: true, model: true });
  });

  it('follows the prompt flag: deprecated from 0.5 to 0.2x, the headless flag again in 0.30', async () => {
    const deprecated = await capabilitiesOf('0.20.2');
    expect(deprecated.features['promptFlag']).toBe(false);
    expect(deprecated.warnings.join(' ')).toContain('stdin');
    expect((await capabilitiesOf('0.30.1')).features['promptFlag']).toBe(true);
    expect((await capabilitiesOf(latest)).features['promptFlag']).toBe(true);
  });

  it('sees --skip-trust from 0.40 and --resume from 0.15', async () => {
    expect((await capabilitiesOf('0.30.1')).features['skipTrust']).toBe(false);
    expect((await capabilitiesOf('0.40.1')).features['skipTrust']).toBe(true);
    const oldest = await capabilitiesOf(GEMINI_MIN_VERSION);
    expect(oldest.features['resume']).toBe(false);
    expect(oldest.warnings.join(' ')).toContain('no --resume');
    expect((await capabilitiesOf('0.20.2')).features['resume']).toBe(true);
  });

  it('reads the version past a warning printed before it', async () => {
    const runner = fixtureRunner('gemini', latest, (file, text) =>
      file === 'version.txt'
        ? `(node:4242) Warning: Node.js v20.20.2 is deprecated for this release\n${text}`
        : text,
    );
    const result = await geminiAdapter.probe('/bin/gemini', runner);
    expect(result.ok && result.capabilities.version).toBe(latest);
  });

  it('fails with UnsupportedFlag when --approval-mode has no auto_edit', async () => {
    const runner = fixtureRunner('gemini', latest, (file, text) =>
      file === 'help.txt' ? text.replaceAll('auto_edit', 'auto-edit') : text,
    );
    const result = await geminiAdapter.probe('/bin/gemini', runner);
    expect(!result.ok && result.error.kind).toBe('UnsupportedFlag');
    expect(!result.ok && result.error.message).toContain('--approval-mode auto_edit');
  });
});

describe('gemini command', () => {
  it('runs stream-json with auto_edit, trusts the worktree and passes the prompt as one argument', async () => {
    const built = geminiAdapter.buildCommand(
      request({ prompt: '-v --help "fix" it' }),
      await capabilitiesOf(latest),
    );
    expect(built.args).toEqual([
      '--output-format',
      'stream-json',
      '--approval-mode',
      'auto_edit',
      '--skip-trust',
      '--prompt=-v --help "fix" it',
    ]);
    expect(built.stdinFile).toBeUndefined();
    expect(built.cwd).toBe('/repo/wt');
  });

  it('switches to --approval-mode yolo only in unsafe mode', async () => {
    const built = geminiAdapter.buildCommand(request({ unsafe: true }), await capabilitiesOf(latest));
    expect(built.args.slice(2, 4)).toEqual(['--approval-mode', 'yolo']);
    expect(built.args).not.toContain('--yolo');
  });

  it('sends the prompt through stdin to versions whose -p is deprecated', async () => {
    const built = geminiAdapter.buildCommand(request(), await capabilitiesOf('0.20.2'));
    expect(built.args.some((arg) => arg.startsWith('--prompt'))).toBe(false);
    expect(built.args).not.toContain('--skip-trust');
    expect(built.stdinFile).toBe('/repo/scratch/prompt.txt');
    expect(built.files).toEqual([{ path: '/repo/scratch/prompt.txt', content: 'Create hello.txt' }]);
  });

  it('resumes a session by the id its init line reported, when the version can', async () => {
    const resumed = geminiAdapter.buildCommand(
      request({ resumeSessionId: SESSION, model: 'gemini-2.5-pro' }),
      await capabilitiesOf(latest),
    );
    const resume = resumed.args.indexOf('--resume');
    expect(resumed.args.slice(resume, resume + 2)).toEqual(['--resume', SESSION]);
    expect(resume + 2).toBeLessThan(resumed.args.length);
    expect(resumed.args.slice(resumed.args.indexOf('--model'), resumed.args.indexOf('--model') + 2)).toEqual([
      '--model',
      'gemini-2.5-pro',
    ]);
    const fresh = geminiAdapter.buildCommand(
      request({ resumeSessionId: SESSION }),
      await capabilitiesOf(GEMINI_MIN_VERSION),
    );
    expect(fresh.args).not.toContain('--resume');
  });
});

describe('gemini parser on recorded streams', () => {
  it('turns the recorded success into init, deltas, one whole message per turn, the tool, usage and the result', () => {
    const { events, final } = replayStream('success-edit', { cwd: REPO });

    expect(events[0]).toMatchObject({ kind: 'progress', stage: 'init', sessionId: SESSION, model: 'auto' });
    expect(ofKind(events, 'message').filter((event) => event.partial !== true)).toEqual([
      expect.objectContaining({ role: 'user', text: 'Create hello.txt containing a short greeting.' }),
      expect.objectContaining({ role: 'assistant', text: 'I will create the file.' }),
      expect.objectContaining({ role: 'assistant', text: 'Created hello.txt with a greeting.' }),
    ]);
    expect(ofKind(events, 'message').filter((event) => event.partial === true)).toHaveLength(4);
    const [call] = ofKind(events, 'tool_call');
    expect(call).toMatchObject({ name: 'write_file', summary: 'Write hello.txt' });
    expect(ofKind(events, 'tool_result')).toEqual([
      expect.objectContaining({ id: call?.id, name: 'write_file', ok: true, summary: 'done' }),
    ]);
    expect(final).toMatchObject({
      kind: 'completed',
      result: 'Created hello.txt with a greeting.',
      exitCode: 0,
    });
  });

  it('counts cached, uncached, output and thinking tokens over both turns and the side call', () => {
    const { final } = replayStream('success-edit');
    // Routing side call 400/12, turn 1 2100/40 (+16 thinking), turn 2 2300 (2048 cached)/14.
    expect(final.usage).toMatchObject({
      inputTokens: 400 + 2100 + 2300 - 2048,
      cacheReadTokens: 2048,
      outputTokens: 12 + 40 + 16 + 14,
      turns: 2,
    });
  });

  it("prices Gemini CLI 0.60/0.61's default models from the price database, each at its own price", () => {
    // Before gemini-3.8-flash's dated price change (2027-01-01).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T12:00:00Z'));
    const { final } = replayStream('success-edit');
    vi.useRealTimers();
    // gemini-3.5-flash-lite ($0.30 in, $2.50 out): the 400/12 routing call; gemini-3.8-flash ($0.75
    // in, $0.075 cached, $3.75 out): 2352 uncached + 2048 cached in, 40+14 out + 16 thinking.
    const expected = (400 * 0.3 + 12 * 2.5 + 2352 * 0.75 + 2048 * 0.075 + 70 * 3.75) / 1e6;
    expect(final.usage?.costSource).toBe('estimated');
    expect(final.usage?.costUsd).toBeCloseTo(expected, 6);
  });

  it('prices the models by hydra.toml [prices] over the price database', () => {
    const models = Object.keys(
      (JSON.parse(loadStream('gemini', 'success-edit').lines.at(-1)!) as { stats: { models: object } }).stats
        .models,
    );
    const prices = Object.fromEntries(models.map((model) => [model, { inputPerMTok: 1, outputPerMTok: 2 }]));
    const priced = replayStream('success-edit', { prices });
    // Cache reads at the input rate when a price names none: 4800 prompt tokens, 82 output.
    expect(priced.final.usage?.costSource).toBe('estimated');
    expect(priced.final.usage?.costUsd).toBeCloseTo((4800 * 1 + 82 * 2) / 1e6, 9);
  });

  it('prices a run with a configured model from the price database', () => {
    const { events, final } = replayStream('success-model');
    expect(events[0]).toMatchObject({ kind: 'progress', model: 'gemini-2.5-pro' });
    // gemini-2.5-pro: 1.25 per MTok in, 0.125 cached, 10 out; 2100+2300 prompt, 2048 cached, 40+14 out + 16 thinking.
    const expected = (2352 * 1.25 + 2048 * 0.125 + 70 * 10) / 1e6;
    expect(final.usage?.costSource).toBe('estimated');
    expect(final.usage?.costUsd).toBeCloseTo(expected, 9);
  });

  it.each(['auth-failure', 'auth-forbidden'])('reports %s as AuthMissing with the HTTP status', (name) => {
    const { fixture, final } = replayStream(name);
    expect(final).toMatchObject({ kind: 'failed', exitCode: fixture.meta.exitCode });
    expect(final.kind === 'failed' && final.error.kind).toBe('AuthMissing');
    expect(final.kind === 'failed' && final.error.message).toMatch(/HTTP 40[03]/);
    expect(final.kind === 'failed' && final.error.hint).toContain('GEMINI_API_KEY');
  });

  it('reports the 500 as a server error', () => {
    const { final } = replayStream('server-error');
    expect(final).toMatchObject({ kind: 'failed', exitCode: 244 });
    expect(final.kind === 'failed' && final.error).toMatchObject({ kind: 'AgentFailed' });
    expect(final.kind === 'failed' && final.error.message).toContain('HTTP 500');
  });

  it('reports a user who never signed in (exit 41, nothing on stdout) as AuthMissing', () => {
    const { fixture, events, final } = replayStream('not-signed-in');
    expect(fixture.lines).toEqual([]);
    expect(events).toEqual([]);
    expect(final.kind === 'failed' && final.error.kind).toBe('AuthMissing');
    expect(final.kind === 'failed' && final.error.message).toContain('Please set an Auth method');
  });

  it('reports an empty model response as a failure, with the CLI warning kept as a system message', () => {
    const { events, final } = replayStream('empty-response');
    expect(ofKind(events, 'message').some((event) => event.role === 'system')).toBe(true);
    expect(final.kind).toBe('failed');
  });

  it('does not take 0.11.3 at its word: "success" after an API error with nothing from the model', () => {
    const { fixture, final } = replayStream('auth-failure@0.11.3');
    expect(fixture.meta.exitCode).toBe(0);
    expect(final.kind === 'failed' && final.error.kind).toBe('AgentFailed');
    expect(final.kind === 'failed' && final.error.message).toContain('Error when talking to Gemini API');
  });

  it('shows why deprecated -p is avoided: 0.20.2 prints its notice into the stream as assistant text', () => {
    const { events } = replayStream('deprecated-prompt-flag@0.20.2');
    const texts = ofKind(events, 'message')
      .filter((event) => event.role === 'assistant' && event.partial !== true)
      .map((event) => event.text);
    expect(texts[0]).toContain('The --prompt (-p) flag has been deprecated');
  });

  it('reads the stats of 0.12.0, which has no cached figure: every prompt token counts as input', () => {
    const { final } = replayStream('success-edit@0.12.0');
    expect(final.kind).toBe('completed');
    expect(final.usage).toMatchObject({ inputTokens: 4800, cacheReadTokens: 0, outputTokens: 82, turns: 2 });
  });

  it('reads the stats of 0.30.1: cached and uncached, but no per-model split to price "auto" by', () => {
    const { events, final } = replayStream('success-edit@0.30.1');
    expect(events[0]).toMatchObject({ kind: 'progress', model: 'auto-gemini-3' });
    expect(final.usage).toMatchObject({
      inputTokens: 2752,
      cacheReadTokens: 2048,
      outputTokens: 82,
      costSource: 'unknown',
    });
  });
});
