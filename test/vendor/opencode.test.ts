/**
 * The real opencode CLI (pinned versions from the cache) run through hydra's opencode adapter
 * against the fake OpenAI Chat Completions server: the normalized outcome must match what really
 * happened.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/registry.js';
import { createProbeRunner } from '../../src/engine/probe/runner.js';
import { RECORD_VERSIONS, vendorBinary } from '../../scripts/vendor-cli.js';
import { EDIT_CONTENT, FINAL_TEXT, PROJECT_ROOT, probeEnv, runVendor, userTexts } from './harness.js';

const LATEST = RECORD_VERSIONS.opencode;

describe(`opencode ${LATEST} through the opencode adapter`, () => {
  it('creates the file through its write tool and ends completed with usage', async () => {
    const run = await runVendor({ agent: 'opencode', version: LATEST, scenario: 'success-edit' });

    expect(run.edited, run.stderr).toBe(EDIT_CONTENT);
    expect(run.exitCode).toBe(0);
    expect(run.built.env['OPENCODE_PERMISSION']).toBe('{"edit":"allow"}');
    expect(run.terminal).toMatchObject({
      kind: 'completed',
      result: FINAL_TEXT,
      usage: { inputTokens: 3800 - 1536, cacheReadTokens: 1536, outputTokens: 62 },
    });
    const call = run.events.find((event) => event.kind === 'tool_call');
    expect(call?.kind === 'tool_call' && call.summary).toBe('write hello.txt');
  });

  it('ends failed with AuthMissing when the API answers 401', async () => {
    const run = await runVendor({ agent: 'opencode', version: LATEST, scenario: 'auth-failure' });

    expect(run.exitCode).toBe(1);
    expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AuthMissing' } });
  });

  it('ends failed, not as an auth problem, when the API answers 500', async () => {
    const run = await runVendor({ agent: 'opencode', version: LATEST, scenario: 'server-error' });

    expect(run.exitCode).toBe(1);
    expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AgentFailed' } });
  });

  it('fails, with a hint, a run that opencode ended because a permission was refused', async () => {
    const run = await runVendor({
      agent: 'opencode',
      version: LATEST,
      scenario: 'success-edit',
      env: { OPENCODE_PERMISSION: '{"edit":"ask"}' },
    });

    expect(run.exitCode).toBe(0);
    expect(run.edited).toBeNull();
    expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AgentFailed' } });
    expect(run.terminal.kind === 'failed' && run.terminal.error.hint).toContain('OPENCODE_PERMISSION');
  });

  it('adds --auto only for --unsafe races, and still completes', async () => {
    const run = await runVendor({
      agent: 'opencode',
      version: LATEST,
      scenario: 'success-edit',
      unsafe: true,
    });

    expect(run.built.args).toContain('--auto');
    expect(run.terminal.kind).toBe('completed');
    expect(run.edited).toBe(EDIT_CONTENT);
  });

  it('continues the session a follow-up names: the model sees the first exchange', async () => {
    const run = await runVendor({
      agent: 'opencode',
      version: LATEST,
      scenario: 'reply-text',
      prompt: 'first question',
      followUpPrompt: 'second question',
    });

    const init = run.events.find((event) => event.kind === 'progress' && event.stage === 'init');
    const sessionId = init?.kind === 'progress' ? init.sessionId : undefined;
    expect(sessionId).toMatch(/^ses_/);
    expect(run.followUp?.built.args).toEqual(expect.arrayContaining(['--session', sessionId]));
    expect(run.followUp?.terminal.kind).toBe('completed');
    const last = run.requests.filter((request) => userTexts('opencode', [request]).length > 0).at(-1);
    expect(userTexts('opencode', last === undefined ? [] : [last])).toEqual(
      expect.arrayContaining(['first question', 'second question']),
    );
  });

  it('rejects 0.1.174, whose run prints text only, at probe time with a typed error', async () => {
    const home = await mkdtemp(join(tmpdir(), 'hydra-vendor-probe-'));
    try {
      const run = createProbeRunner(probeEnv(home));
      const result = await getAdapter('opencode')!.probe(
        vendorBinary(PROJECT_ROOT, 'opencode', '0.1.174'),
        run,
      );

      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.kind).toBe('UnsupportedFlag');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
