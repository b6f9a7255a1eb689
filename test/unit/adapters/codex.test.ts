import { describe, expect, it } from 'vitest';
import { codexAdapter, CODEX_MIN_JSON_VERSION } from '../../../src/adapters/codex.js';
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

const versions = helpVersions('codex');
const supported = versions.filter((version) => compareVersions(version, CODEX_MIN_JSON_VERSION) >= 0);
const legacy = versions.filter((version) => compareVersions(version, CODEX_MIN_JSON_VERSION) < 0);
const withFullAuto = supported.filter((version) =>
  readHelpFile('codex', version, 'exec-help.txt')?.includes('--full-auto'),
);
const withoutFullAuto = supported.filter(
  (version) => !readHelpFile('codex', version, 'exec-help.txt')?.includes('--full-auto'),
);

const capabilitiesOf = async (version: string): Promise<Capabilities> => {
  const result = await codexAdapter.probe('/bin/codex', fixtureRunner('codex', version));
  if (!result.ok) throw result.error;
  return result.capabilities;
};

describe('codex probe across recorded versions', () => {
  it('has help texts of three or more versions, with and without --full-auto', () => {
    expect(versions.length).toBeGreaterThanOrEqual(3);
    expect(withFullAuto.length).toBeGreaterThan(0);
    expect(withoutFullAuto.length).toBeGreaterThan(0);
  });

  it('runs --version and exec --help through the injected runner', async () => {
    const runner = fixtureRunner('codex', supported.at(-1)!);
    await codexAdapter.probe('/bin/codex', runner);
    expect(runner.calls).toContainEqual(['/bin/codex', '--version']);
    expect(runner.calls).toContainEqual(['/bin/codex', 'exec', '--help']);
  });

  it.each(withFullAuto)('uses --full-auto on Codex %s, which has it', async (version) => {
    const capabilities = await capabilitiesOf(version);
    expect(capabilities.version).toBe(version);
    expect(capabilities.features).toMatchObject({
      json: true,
      fullAuto: true,
      cd: true,
      skipGitRepoCheck: true,
      outputLastMessage: true,
    });
    const args = codexAdapter.buildCommand(request(), capabilities).args;
    expect(args).toContain('--full-auto');
    expect(args).not.toContain('--sandbox');
  });

  it.each(withoutFullAuto)(
    'falls back to --sandbox workspace-write on Codex %s, where --full-auto is gone',
    async (version) => {
      const capabilities = await capabilitiesOf(version);
      expect(capabilities.features['fullAuto']).toBe(false);
      const args = codexAdapter.buildCommand(request(), capabilities).args;
      expect(args.slice(args.indexOf('--sandbox'), args.indexOf('--sandbox') + 2)).toEqual([
        '--sandbox',
        'workspace-write',
      ]);
      expect(args).not.toContain('--full-auto');
    },
  );

  it.each(legacy)('rejects Codex %s, whose --json prints the legacy event format', async (version) => {
    const result = await codexAdapter.probe('/bin/codex', fixtureRunner('codex', version));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('UnsupportedVersion');
    expect(result.error.message).toContain(version);
    expect(result.error.hint).toContain('npm install -g @openai/codex');
  });

  it('fails fast with UnsupportedFlag when exec --help lacks --json', async () => {
    const runner = fixtureRunner('codex', supported.at(-1)!, (file, text) =>
      file === 'exec-help.txt'
        ? text
            .split('\n')
            .filter((line) => !/^\s+--json/.test(line))
            .join('\n')
        : text,
    );
    const result = await codexAdapter.probe('/bin/codex', runner);
    expect(!result.ok && result.error.kind).toBe('UnsupportedFlag');
    expect(!result.ok && result.error.command).toEqual(['/bin/codex', 'exec', '--help']);
  });

  it('reports a codex without an exec subcommand as unsupported', async () => {
    const result = await codexAdapter.probe('/bin/codex', async (_file, args) =>
      args[0] === 'exec'
        ? { exitCode: 2, stdout: '', stderr: "error: unrecognized subcommand 'exec'", timedOut: false }
        : { exitCode: 0, stdout: 'codex-cli 0.169.0', stderr: '', timedOut: false },
    );
    expect(!result.ok && result.error.kind).toBe('UnsupportedVersion');
  });
});

describe('codex command', () => {
  it('runs exec --json in the worktree with the last message written to the scratch dir', async () => {
    const built = codexAdapter.buildCommand(
      request({ model: 'gpt-5.1-codex' }),
      await capabilitiesOf(withoutFullAuto.at(-1)!),
    );
    expect(built.args).toEqual([
      'exec',
      '--json',
      '-C',
      '/repo/wt',
      '--sandbox',
      'workspace-write',
      '--skip-git-repo-check',
      '--output-last-message',
      '/repo/scratch/last-message.txt',
      '--model',
      'gpt-5.1-codex',
      '--',
      'Create hello.txt',
    ]);
    expect(built.lastMessageFile).toBe('/repo/scratch/last-message.txt');
  });

  it('bypasses approvals and the sandbox only in unsafe mode', async () => {
    const capabilities = await capabilitiesOf(withFullAuto[0]!);
    expect(codexAdapter.buildCommand(request(), capabilities).args).not.toContain(
      '--dangerously-bypass-approvals-and-sandbox',
    );
    const unsafe = codexAdapter.buildCommand(request({ unsafe: true }), capabilities).args;
    expect(unsafe).toContain('--dangerously-bypass-approvals-and-sandbox');
    expect(unsafe).not.toContain('--full-auto');
  });

  it('sends a prompt of exactly "-" through stdin, since "-" as an argument means "read stdin"', async () => {
    const built = codexAdapter.buildCommand(
      request({ prompt: '-' }),
      await capabilitiesOf(supported.at(-1)!),
    );
    expect(built.args.at(-1)).toBe('-');
    expect(built.args).not.toContain('--');
    expect(built.stdinFile).toBe('/repo/scratch/prompt.txt');
    expect(built.files).toEqual([{ path: '/repo/scratch/prompt.txt', content: '-' }]);
  });
});

describe('codex follow-up', () => {
  it('resumes the thread with `exec [OPTIONS] resume <thread_id> <prompt>` on every version that lists resume', async () => {
    for (const version of supported) {
      const capabilities = await capabilitiesOf(version);
      expect(capabilities.features['resume']).toBe(true);
      const built = codexAdapter.buildCommand(
        request({ prompt: 'Now add docs', resumeSessionId: '00000000-0000-4000-8000-000000000001' }),
        capabilities,
      );
      const resume = built.args.indexOf('resume');
      expect(built.args.slice(resume)).toEqual([
        'resume',
        '00000000-0000-4000-8000-000000000001',
        '--',
        'Now add docs',
      ]);
      // exec's own options come before the subcommand, where clap reads them.
      expect(built.args.indexOf('--json')).toBeLessThan(resume);
      expect(built.args.indexOf('-C')).toBeLessThan(resume);
    }
  });

  it('starts a new thread when the version has no resume subcommand', () => {
    const capabilities: Capabilities = {
      adapterId: 'codex',
      binary: '/bin/codex',
      version: '0.44.0',
      flags: ['--json'],
      features: { json: true, sandbox: true, resume: false },
      confidence: 'verified',
      warnings: [],
    };
    const built = codexAdapter.buildCommand(
      request({ resumeSessionId: '00000000-0000-4000-8000-000000000001' }),
      capabilities,
    );
    expect(built.args).not.toContain('resume');
  });
});

describe('codex stream', () => {
  it('takes usage from turn.completed, cached input apart, and estimates cost from the price table', () => {
    const fixture = loadStream('codex', 'success-edit');
    const prices = { 'gpt-5.5': { inputPerMTok: 2, outputPerMTok: 16, cacheReadPerMTok: 0.2 } };
    const { final } = replay(codexAdapter, fixture.lines, endOf(fixture.meta), { model: 'gpt-5.5', prices });
    expect(final.kind).toBe('completed');
    expect(final.usage).toMatchObject({
      inputTokens: 4400 - 2048,
      cacheReadTokens: 2048,
      outputTokens: 74,
      turns: 1,
      costSource: 'estimated',
    });
    expect(final.usage?.costUsd).toBeCloseTo(((4400 - 2048) * 2 + 74 * 16 + 2048 * 0.2) / 1e6, 5);
  });

  it('counts a turn that reported no usage without making its tokens 0', () => {
    const fixture = loadStream('codex', 'success-edit');
    const lines = fixture.lines.map((line) => {
      const value = JSON.parse(line) as { type?: string; usage?: unknown };
      if (value.type !== 'turn.completed') return line;
      delete value.usage;
      return JSON.stringify(value);
    });
    const prices = { 'gpt-5.5': { inputPerMTok: 2, outputPerMTok: 16 } };
    const { final } = replay(codexAdapter, lines, endOf(fixture.meta), { model: 'gpt-5.5', prices });
    expect(final.usage).toEqual({
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      turns: 1,
      costUsd: null,
      costSource: 'unknown',
    });
  });

  it('marks the cost unknown when the model has no price', () => {
    const fixture = loadStream('codex', 'success-edit');
    const { final } = replay(codexAdapter, fixture.lines, endOf(fixture.meta), { model: 'gpt-fake-unknown' });
    expect(final.usage).toMatchObject({ costUsd: null, costSource: 'unknown' });
  });

  it('summarises file changes and shell commands for one line', () => {
    const edit = replay(
      codexAdapter,
      loadStream('codex', 'success-edit').lines,
      endOf(loadStream('codex', 'success-edit').meta),
      { cwd: '/tmp/hydra-fixture/repo' },
    );
    expect(edit.events.find((event) => event.kind === 'tool_call')).toMatchObject({
      name: 'file_change',
      summary: 'add hello.txt',
    });
    const shell = loadStream('codex', 'success-shell');
    const { events } = replay(codexAdapter, shell.lines, endOf(shell.meta));
    const call = events.find((event) => event.kind === 'tool_call');
    expect(call).toMatchObject({ name: 'command_execution' });
    expect(call?.kind === 'tool_call' && call.summary).toMatch(/^\$ \/bin\/bash -lc .*hello\.txt/);
    expect(events.find((event) => event.kind === 'tool_result')).toMatchObject({
      ok: true,
      summary: 'exit 0',
    });
  });

  it('keeps an error item as a message without failing the run', () => {
    const fixture = loadStream('codex', 'unknown-model');
    const { events, final } = replay(codexAdapter, fixture.lines, endOf(fixture.meta));
    expect(
      events.some(
        (event) => event.kind === 'message' && event.role === 'system' && /gpt-fake-unknown/.test(event.text),
      ),
    ).toBe(true);
    expect(final.kind).toBe('completed');
  });

  it('fails on turn.failed; a 401 is AuthMissing with the codex login hint', () => {
    const auth = loadStream('codex', 'auth-failure');
    const { final } = replay(codexAdapter, auth.lines, endOf(auth.meta));
    expect(final).toMatchObject({ kind: 'failed', exitCode: 1, error: { kind: 'AuthMissing' } });
    expect(final.kind === 'failed' && final.error.hint).toMatch(/codex login/);
    expect(final.kind === 'failed' && final.error.hint).toMatch(/OPENAI_API_KEY/);
  });

  it('fails with the error message when the stream stops after an error line', () => {
    const fixture = loadStream('codex', 'server-error');
    const upToError = fixture.lines.filter((line) => !line.includes('turn.failed'));
    const { final } = replay(codexAdapter, upToError, endOf(fixture.meta));
    expect(final.kind === 'failed' && final.error.message).toMatch(/high demand/);
  });

  it('uses the last-message file when the stream carried no final text', () => {
    const fixture = loadStream('codex', 'success-edit');
    const withoutMessages = fixture.lines.filter((line) => !line.includes('agent_message'));
    const { final } = replay(codexAdapter, withoutMessages, {
      ...endOf(fixture.meta),
      lastMessage: 'Final words from -o\n',
    });
    expect(final).toMatchObject({ kind: 'completed', result: 'Final words from -o' });
  });
});
