/**
 * The real Gemini CLI (pinned versions from the cache) run through hydra's gemini adapter against
 * the fake Gemini API server: the normalized outcome must match what really happened.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareVersions } from '../../src/adapters/help-flags.js';
import { getAdapter } from '../../src/adapters/registry.js';
import { createProbeRunner } from '../../src/engine/probe/runner.js';
import { RECORD_VERSIONS, vendorBinary } from '../../scripts/vendor-cli.js';
import { EDIT_CONTENT, FINAL_TEXT, PROJECT_ROOT, probeEnv, runVendor, userTexts } from './harness.js';

const LATEST = RECORD_VERSIONS.gemini;
/**
 * The latest; 0.30.1, the last release without --skip-trust (its -p is the headless flag again);
 * 0.12.0, the oldest release hydra accepts (its -p is deprecated, so the prompt goes on stdin).
 */
const VERSIONS = [LATEST, '0.30.1', '0.12.0'];

/** Gemini CLI takes 10-30 s to start on a loaded machine; a follow-up runs it twice. */
const SLOW_MS = 300_000;

/** 0.30 and later report the cached part of the prompt; 0.12 counts every prompt token as input. */
const reportsCache = (version: string): boolean => compareVersions(version, '0.30.0') >= 0;

describe.each(VERSIONS)('gemini %s through the gemini adapter', (version) => {
  it(
    'creates the file through write_file and ends completed with usage',
    async () => {
      const run = await runVendor({ agent: 'gemini', version, scenario: 'success-edit' });

      expect(run.edited, run.stderr).toBe(EDIT_CONTENT);
      expect(run.exitCode).toBe(0);
      expect(run.built.args).toEqual(expect.arrayContaining(['--approval-mode', 'auto_edit']));
      // Side call 400/12, turn 1 2100/40 (+16 thinking), turn 2 2300 (2048 cached)/14.
      expect(run.terminal).toMatchObject({
        kind: 'completed',
        result: FINAL_TEXT,
        usage: reportsCache(version)
          ? { inputTokens: 4800 - 2048, cacheReadTokens: 2048, outputTokens: 82, turns: 2 }
          : { inputTokens: 4800, cacheReadTokens: 0, outputTokens: 82, turns: 2 },
      });
      const call = run.events.find((event) => event.kind === 'tool_call');
      // Relative to the worktree, which the harness (like the engine) gives the parser as its cwd.
      expect(call?.kind === 'tool_call' && call.summary).toBe('Write hello.txt');
    },
    SLOW_MS,
  );

  it(
    'ends failed with AuthMissing when the API rejects the key (400 API_KEY_INVALID)',
    async () => {
      const run = await runVendor({ agent: 'gemini', version, scenario: 'auth-failure' });

      // The exit code is the HTTP status modulo 256.
      expect(run.exitCode).toBe(144);
      expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AuthMissing' } });
    },
    SLOW_MS,
  );
});

describe(`gemini ${LATEST} beyond the happy path`, () => {
  it(
    'ends failed with AuthMissing on a 403 too',
    async () => {
      const run = await runVendor({ agent: 'gemini', version: LATEST, scenario: 'auth-forbidden' });

      expect(run.exitCode).toBe(147);
      expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AuthMissing' } });
    },
    SLOW_MS,
  );

  it(
    'ends failed, not as an auth problem, when the API answers 500',
    async () => {
      const run = await runVendor({ agent: 'gemini', version: LATEST, scenario: 'server-error' });

      expect(run.exitCode).toBe(244);
      expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AgentFailed' } });
      if (run.terminal.kind === 'failed') expect(run.terminal.error.message).toContain('HTTP 500');
    },
    SLOW_MS,
  );

  it(
    'ends failed although it exits 0 when the model answers nothing',
    async () => {
      const run = await runVendor({ agent: 'gemini', version: LATEST, scenario: 'empty-response' });

      expect(run.exitCode).toBe(0);
      expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AgentFailed' } });
    },
    SLOW_MS,
  );

  it(
    'reports a missing key as AuthMissing before any request is made',
    async () => {
      const run = await runVendor({
        agent: 'gemini',
        version: LATEST,
        scenario: 'success-edit',
        env: { GEMINI_API_KEY: '' },
      });

      expect(run.exitCode).toBe(41);
      expect(run.stdout).toBe('');
      expect(run.requests).toEqual([]);
      expect(run.terminal).toMatchObject({ kind: 'failed', error: { kind: 'AuthMissing' } });
    },
    SLOW_MS,
  );

  it(
    'runs yolo only for --unsafe races, and still completes',
    async () => {
      const run = await runVendor({
        agent: 'gemini',
        version: LATEST,
        scenario: 'success-edit',
        unsafe: true,
      });

      expect(run.built.args).toEqual(expect.arrayContaining(['--approval-mode', 'yolo']));
      expect(run.terminal.kind).toBe('completed');
      expect(run.edited).toBe(EDIT_CONTENT);
    },
    SLOW_MS,
  );

  it(
    'estimates the cost from the price table for a configured model',
    async () => {
      const run = await runVendor({
        agent: 'gemini',
        version: LATEST,
        scenario: 'reply-text',
        model: 'gemini-2.5-pro',
      });

      expect(run.built.args).toEqual(expect.arrayContaining(['--model', 'gemini-2.5-pro']));
      expect(run.requests.some((request) => request.url.includes('/models/gemini-2.5-pro:'))).toBe(true);
      expect(run.terminal.usage).toMatchObject({ costSource: 'estimated' });
      expect(run.terminal.usage?.costUsd).toBeGreaterThan(0);
    },
    SLOW_MS,
  );

  it(
    'continues the session a follow-up names: the model sees the first exchange',
    async () => {
      const run = await runVendor({
        agent: 'gemini',
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
      const followUpInit = run.followUp?.events.find((event) => event.kind === 'progress');
      expect(followUpInit?.kind === 'progress' && followUpInit.sessionId).toBe(sessionId);
      const last = run.requests.filter((request) => userTexts('gemini', [request]).length > 0).at(-1);
      expect(userTexts('gemini', last === undefined ? [] : [last])).toEqual(
        expect.arrayContaining(['first question', 'second question']),
      );
    },
    SLOW_MS,
  );

  it(
    'sends the prompt on stdin to 0.12.0, whose -p is deprecated (it appends two newlines)',
    async () => {
      const prompt = '-v --help "quoted" prompt';
      const run = await runVendor({ agent: 'gemini', version: '0.12.0', scenario: 'reply-text', prompt });

      expect(run.built.stdinFile).toBeDefined();
      expect(run.built.args.join(' ')).not.toContain('quoted');
      expect(userTexts('gemini', run.requests)).toContain(`${prompt}\n\n`);
      expect(run.stdout).not.toContain('deprecated');
      expect(run.terminal.kind).toBe('completed');
    },
    SLOW_MS,
  );
});

describe('gemini versions the probe refuses', () => {
  it.each([
    ['0.1.1', 'UnsupportedFlag'],
    ['0.10.0', 'UnsupportedFlag'],
    ['0.11.3', 'UnsupportedVersion'],
  ])(
    'rejects %s at probe time with %s',
    async (version, kind) => {
      const home = await mkdtemp(join(tmpdir(), 'hydra-vendor-probe-'));
      try {
        const run = createProbeRunner(probeEnv(home));
        const result = await getAdapter('gemini')!.probe(vendorBinary(PROJECT_ROOT, 'gemini', version), run);

        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.error.kind).toBe(kind);
        expect(result.error.hint).toContain('npm install -g @google/gemini-cli');
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    },
    SLOW_MS,
  );
});
