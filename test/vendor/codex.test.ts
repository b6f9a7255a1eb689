/**
 * The real Codex CLI (pinned versions from the cache) run through hydra's codex adapter against
 * the fake Responses server: the normalized outcome must match what really happened.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/registry.js';
import { createProbeRunner } from '../../src/engine/probe/runner.js';
import { RECORD_VERSIONS, baseEnv, vendorBinary } from '../../scripts/vendor-cli.js';
import { EDIT_CONTENT, FINAL_TEXT, PROJECT_ROOT, runVendor } from './harness.js';

const LATEST = RECORD_VERSIONS.codex;
/**
 * The latest (no --full-auto), a 0.11x release (--full-auto, no apply_patch for this model) and
 * 0.44.0, the first release with the thread/turn/item JSON.
 */
const VERSIONS = [LATEST, '0.118.0', '0.44.0'];

describe.each(VERSIONS)('codex %s through the codex adapter', (version) => {
  it('creates the file through a tool call and ends completed with usage', async () => {
    const run = await runVendor({ agent: 'codex', version, scenario: 'success-edit' });

    expect(run.edited, run.stderr).toBe(EDIT_CONTENT);
    expect(run.exitCode).toBe(0);
    expect(run.terminal.kind).toBe('completed');
    if (run.terminal.kind !== 'completed') return;
    expect(run.terminal.result).toBe(FINAL_TEXT);
    // The server sent input_tokens 4400 of which 2048 cached: hydra counts the cached part apart.
    expect(run.terminal.usage).toMatchObject({
      inputTokens: 4400 - 2048,
      cacheReadTokens: 2048,
      outputTokens: 74,
    });
    expect(run.events.some((event) => event.kind === 'tool_call')).toBe(true);
  });

  it('reports a shell command as a tool call with its command line', async () => {
    const run = await runVendor({ agent: 'codex', version, scenario: 'success-shell' });

    expect(run.edited).toBe(EDIT_CONTENT);
    expect(run.terminal.kind).toBe('completed');
    const call = run.events.find((event) => event.kind === 'tool_call');
    expect(call?.kind === 'tool_call' ? call.summary : '').toContain('hello.txt');
  });

  it('ends failed with AuthMissing when the API answers 401', async () => {
    const run = await runVendor({ agent: 'codex', version, scenario: 'auth-failure' });

    expect(run.exitCode).toBe(1);
    expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AuthMissing' } });
  });

  it('ends failed, not as an auth problem, when the API answers 500', async () => {
    const run = await runVendor({ agent: 'codex', version, scenario: 'server-error' });

    expect(run.exitCode).toBe(1);
    expect(run.terminal.kind).toBe('failed');
    if (run.terminal.kind !== 'failed') return;
    expect(run.terminal.error.kind).not.toBe('AuthMissing');
  });
});

describe('codex approval and sandbox flags follow the probed version', () => {
  it('uses --full-auto where it exists (0.118.0) and --sandbox workspace-write where it is gone (latest)', async () => {
    const old = await runVendor({ agent: 'codex', version: '0.118.0', scenario: 'reply-text' });
    const latest = await runVendor({ agent: 'codex', version: LATEST, scenario: 'reply-text' });

    expect(old.built.args).toContain('--full-auto');
    expect(latest.built.args).not.toContain('--full-auto');
    expect(latest.built.args).toEqual(expect.arrayContaining(['--sandbox', 'workspace-write']));
    expect(old.terminal.kind).toBe('completed');
    expect(latest.terminal.kind).toBe('completed');
  });

  it('rejects the legacy-protocol 0.20.0 at probe time with a typed error', async () => {
    const home = await mkdtemp(join(tmpdir(), 'hydra-vendor-probe-'));
    try {
      const run = createProbeRunner({ ...baseEnv(), HOME: home, CODEX_HOME: join(home, '.codex') });
      const result = await getAdapter('codex')!.probe(vendorBinary(PROJECT_ROOT, 'codex', '0.20.0'), run);

      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.kind).toBe('UnsupportedVersion');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe(`codex ${LATEST} models`, () => {
  it('estimates the cost from the price table when the model is configured (codex reports none)', async () => {
    const run = await runVendor({
      agent: 'codex',
      version: LATEST,
      scenario: 'success-edit',
      model: 'gpt-5',
    });

    expect(run.built.args).toEqual(expect.arrayContaining(['--model', 'gpt-5']));
    expect(run.terminal.kind).toBe('completed');
    expect(run.terminal.usage?.costSource).toBe('estimated');
    expect(run.terminal.usage?.costUsd).toBeGreaterThan(0);
  });

  it('completes with an unknown model name although the stream carries an error item', async () => {
    const run = await runVendor({
      agent: 'codex',
      version: LATEST,
      scenario: 'reply-text',
      model: 'gpt-fake-unknown',
    });

    expect(run.built.args).toEqual(expect.arrayContaining(['--model', 'gpt-fake-unknown']));
    expect(run.stdout).toContain('"type":"error"');
    expect(run.exitCode).toBe(0);
    expect(run.terminal.kind).toBe('completed');
  });
});
