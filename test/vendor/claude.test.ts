/**
 * The real Claude Code CLI (pinned versions from the cache) run through hydra's claude adapter
 * against the fake Anthropic server: the normalized outcome must match what really happened.
 */
import { describe, expect, it } from 'vitest';
import { HELP_VERSIONS, RECORD_VERSIONS } from '../../scripts/vendor-cli.js';
import { EDIT_CONTENT, FINAL_TEXT, runVendor } from './harness.js';

const LATEST = RECORD_VERSIONS.claude;
const VERSIONS = [...new Set([LATEST, ...HELP_VERSIONS.claude])];

describe.each(VERSIONS)('claude %s through the claude adapter', (version) => {
  it('creates the file through the Write tool and ends completed with usage and cost', async () => {
    const run = await runVendor({ agent: 'claude', version, scenario: 'success-edit' });

    expect(run.edited, run.stderr).toBe(EDIT_CONTENT);
    expect(run.exitCode).toBe(0);
    expect(run.terminal.kind).toBe('completed');
    if (run.terminal.kind !== 'completed') return;
    expect(run.terminal.result).toBe(FINAL_TEXT);
    expect(run.terminal.usage?.inputTokens).toBeGreaterThanOrEqual(2500);
    expect(run.terminal.usage?.outputTokens).toBeGreaterThan(0);
    expect(run.terminal.usage?.costSource).toBe('reported');
    const toolCall = run.events.find((event) => event.kind === 'tool_call');
    expect(toolCall).toMatchObject({ kind: 'tool_call', name: 'Write' });
    expect(run.events.some((event) => event.kind === 'tool_result' && event.ok)).toBe(true);
  });

  it('ends failed with AuthMissing when the API answers 401', async () => {
    const run = await runVendor({ agent: 'claude', version, scenario: 'auth-failure' });

    expect(run.exitCode).toBe(1);
    expect(run.edited).toBeNull();
    expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AuthMissing' } });
  });

  it('ends failed, not as an auth problem, when the API answers 500', async () => {
    const run = await runVendor({ agent: 'claude', version, scenario: 'server-error' });

    expect(run.exitCode).toBe(1);
    expect(run.terminal.kind).toBe('failed');
    if (run.terminal.kind !== 'failed') return;
    expect(run.terminal.error.kind).not.toBe('AuthMissing');
  });
});

describe(`claude ${LATEST} command options`, () => {
  it('uses acceptEdits (no root restriction) in the default mode', async () => {
    const run = await runVendor({ agent: 'claude', version: LATEST, scenario: 'success-edit' });

    expect(run.built.args).toEqual(expect.arrayContaining(['--permission-mode', 'acceptEdits']));
    expect(run.terminal.kind).toBe('completed');
  });

  it('runs bypassPermissions as root in unsafe mode, because the adapter sets IS_SANDBOX', async () => {
    const run = await runVendor({ agent: 'claude', version: LATEST, scenario: 'success-edit', unsafe: true });

    expect(run.built.args).toEqual(expect.arrayContaining(['--permission-mode', 'bypassPermissions']));
    expect(run.edited).toBe(EDIT_CONTENT);
    expect(run.terminal.kind).toBe('completed');
  });

  it('counts usage once with --include-partial-messages (stream_event lines are not summed)', async () => {
    const plain = await runVendor({ agent: 'claude', version: LATEST, scenario: 'success-edit' });
    const partial = await runVendor({
      agent: 'claude',
      version: LATEST,
      scenario: 'success-edit',
      extraArgs: ['--include-partial-messages'],
    });

    expect(partial.stdout).toContain('"type":"stream_event"');
    expect(partial.terminal.kind).toBe('completed');
    expect(partial.terminal.usage).toEqual(plain.terminal.usage);
  });

  it('passes a model through --model and the request names it', async () => {
    const run = await runVendor({
      agent: 'claude',
      version: LATEST,
      scenario: 'success-edit',
      model: 'claude-sonnet-4-5',
    });

    expect(run.built.args).toEqual(expect.arrayContaining(['--model', 'claude-sonnet-4-5']));
    const models = run.requests.map((request) => (request.json as { model?: unknown } | undefined)?.model);
    expect(models).toContain('claude-sonnet-4-5');
    expect(run.terminal.kind).toBe('completed');
  });
});
