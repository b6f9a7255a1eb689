/**
 * The real Qwen Code CLI (pinned versions from the cache) run through hydra's qwen adapter against
 * the fake OpenAI Chat Completions server: the normalized outcome must match what really happened.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/registry.js';
import { createProbeRunner } from '../../src/engine/probe/runner.js';
import { RECORD_VERSIONS, vendorBinary } from '../../scripts/vendor-cli.js';
import { EDIT_CONTENT, FINAL_TEXT, PROJECT_ROOT, probeEnv, runVendor, userTexts } from './harness.js';

const LATEST = RECORD_VERSIONS.qwen;
/** The latest, and 0.5.2, the oldest release with stream-json (it exits 0 after a 401). */
const VERSIONS = [LATEST, '0.5.2'];

describe.each(VERSIONS)('qwen %s through the qwen adapter', (version) => {
  it('creates the file through write_file and ends completed with usage', async () => {
    const run = await runVendor({ agent: 'qwen', version, scenario: 'success-edit' });

    expect(run.edited, run.stderr).toBe(EDIT_CONTENT);
    expect(run.exitCode).toBe(0);
    expect(run.built.args).toEqual(expect.arrayContaining(['--approval-mode', 'auto-edit']));
    expect(run.terminal).toMatchObject({
      kind: 'completed',
      result: FINAL_TEXT,
      usage: { inputTokens: 3800 - 1536, cacheReadTokens: 1536, outputTokens: 62 },
    });
    const call = run.events.find((event) => event.kind === 'tool_call');
    expect(call?.kind === 'tool_call' && call.summary).toBe('write_file hello.txt');
  });

  it('ends failed with AuthMissing when the API answers 401, whatever the exit code', async () => {
    const run = await runVendor({ agent: 'qwen', version, scenario: 'auth-failure' });

    expect(run.exitCode).toBe(version === LATEST ? 1 : 0);
    expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AuthMissing' } });
  });
});

describe(`qwen ${LATEST} beyond the happy path`, () => {
  it('ends failed, not as an auth problem, when the API answers 500 (after its own retries)', async () => {
    const run = await runVendor({ agent: 'qwen', version: LATEST, scenario: 'server-error' });

    expect(run.exitCode).toBe(1);
    expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AgentFailed' } });
    expect(run.requests.filter((request) => request.method === 'POST').length).toBeGreaterThan(1);
  }, 180_000);

  it('reports a user who never set up a provider as AuthMissing before any request is made', async () => {
    const run = await runVendor({
      agent: 'qwen',
      version: LATEST,
      scenario: 'success-edit',
      env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '' },
    });

    expect(run.exitCode).toBe(1);
    expect(run.requests).toEqual([]);
    expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AuthMissing' } });
  });

  it('runs yolo only for --unsafe races, and still completes', async () => {
    const run = await runVendor({ agent: 'qwen', version: LATEST, scenario: 'success-edit', unsafe: true });

    expect(run.built.args).toEqual(expect.arrayContaining(['--approval-mode', 'yolo']));
    expect(run.terminal.kind).toBe('completed');
    expect(run.edited).toBe(EDIT_CONTENT);
  });

  it('estimates the cost from the price table for a model it knows', async () => {
    const run = await runVendor({
      agent: 'qwen',
      version: LATEST,
      scenario: 'reply-text',
      model: 'qwen3-coder-plus',
    });

    expect(run.built.args).toEqual(expect.arrayContaining(['--model', 'qwen3-coder-plus']));
    expect(
      run.requests.some((request) => (request.json as { model?: string })?.model === 'qwen3-coder-plus'),
    ).toBe(true);
    expect(run.terminal.usage).toMatchObject({ costSource: 'estimated' });
    expect(run.terminal.usage?.costUsd).toBeGreaterThan(0);
  });

  it('continues the session a follow-up names: the model sees the first exchange', async () => {
    const run = await runVendor({
      agent: 'qwen',
      version: LATEST,
      scenario: 'reply-text',
      prompt: 'first question',
      followUpPrompt: 'second question',
    });

    const init = run.events.find((event) => event.kind === 'progress' && event.stage === 'init');
    const sessionId = init?.kind === 'progress' ? init.sessionId : undefined;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.followUp?.built.args).toEqual(expect.arrayContaining(['--resume', sessionId]));
    expect(run.followUp?.terminal.kind).toBe('completed');
    const last = run.requests.filter((request) => userTexts('qwen', [request]).length > 0).at(-1);
    expect(userTexts('qwen', last === undefined ? [] : [last])).toEqual(
      expect.arrayContaining(['first question', 'second question']),
    );
  });

  it('rejects 0.1.3, which has no stream-json, at probe time with a typed error', async () => {
    const home = await mkdtemp(join(tmpdir(), 'hydra-vendor-probe-'));
    try {
      const run = createProbeRunner(probeEnv(home));
      const result = await getAdapter('qwen')!.probe(vendorBinary(PROJECT_ROOT, 'qwen', '0.1.3'), run);

      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.kind).toBe('UnsupportedFlag');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
