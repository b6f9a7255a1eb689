import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compareVersions, parseHelpFlags, parseVersion } from '../../../src/adapters/help-flags.js';
import { parseJsonLine } from '../../../src/adapters/json-line.js';
import { estimateCost, priceFor, pricesOf, withEstimatedCost } from '../../../src/adapters/prices.js';
import { emptyUsage } from '../../../src/core/events.js';
import { helpVersions, readHelpFile } from '../../support/adapter-fixtures.js';

describe('help flag parser', () => {
  it('reads only option definitions, not flags mentioned in descriptions or commands', () => {
    const newest = helpVersions('codex').at(-1)!;
    const flags = parseHelpFlags(readHelpFile('codex', newest, 'exec-help.txt')!);
    expect(flags).toEqual(
      expect.arrayContaining([
        '--json',
        '-C',
        '--cd',
        '-s',
        '--sandbox',
        '-o',
        '--output-last-message',
        '--skip-git-repo-check',
      ]),
    );
    // "resume  Resume ... with --last" is a command line, not an option of exec.
    expect(flags).not.toContain('--last');
    expect(flags).not.toContain('--full-auto');
  });

  it('reads commander help whose descriptions wrap onto continuation lines', () => {
    const flags = parseHelpFlags(readHelpFile('claude', helpVersions('claude')[0]!, 'help.txt')!);
    expect(flags).toEqual(
      expect.arrayContaining([
        '-p',
        '--print',
        '--output-format',
        '--verbose',
        '--permission-mode',
        '--model',
        '--allowedTools',
      ]),
    );
    // "[DEPRECATED. Use --debug instead]" is a description.
    expect(flags.filter((flag) => flag === '--debug')).toHaveLength(1);
  });

  it('ignores ANSI colour codes', () => {
    expect(parseHelpFlags('Options:\n  \u001b[1m--json\u001b[22m   Print JSONL\n')).toEqual(['--json']);
  });

  it('reads versions from every recorded --version output and orders them numerically', () => {
    for (const agent of ['claude', 'codex']) {
      for (const version of helpVersions(agent))
        expect(parseVersion(readHelpFile(agent, version, 'version.txt')!)).toBe(version);
    }
    expect(compareVersions('0.20.0', '0.118.0')).toBe(-1);
    expect(compareVersions('2.1.330', '2.1.33')).toBe(1);
    expect(compareVersions('1.0.0', '1.0')).toBe(0);
  });
});

describe('prices', () => {
  const none = pricesOf({});
  // The database's prices change on dates (gemini-3.8-flash doubles on 2027-01-01): pin the day.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T12:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it("prices Gemini CLI 0.60/0.61's default models from the price database", () => {
    expect(priceFor('gemini-3.5-flash-lite', none)).toMatchObject({ inputPerMTok: 0.3, outputPerMTok: 2.5 });
    expect(priceFor('gemini-3.8-flash', none)).toEqual({
      inputPerMTok: 0.75,
      outputPerMTok: 3.75,
      cacheReadPerMTok: 0.075,
    });
  });

  it("prices models hydra's old price tables lacked", () => {
    expect(priceFor('claude-opus-5-5', none)).toMatchObject({ inputPerMTok: 4, outputPerMTok: 20 });
    expect(priceFor('gpt-5.3-codex', none)).toMatchObject({ inputPerMTok: 1.75, outputPerMTok: 14 });
  });

  it('takes the price in force on the day (dated prices)', () => {
    vi.setSystemTime(new Date('2027-01-02T12:00:00Z'));
    expect(priceFor('gemini-3.8-flash', none)).toMatchObject({ inputPerMTok: 1.5, outputPerMTok: 7.5 });
  });

  it('prices every token at the base tier, as usage is summed over requests', () => {
    // claude-sonnet-4-5 costs $6/$22.5 above 200k input tokens in one request.
    expect(priceFor('claude-sonnet-4-5-20250929', none)).toEqual({
      inputPerMTok: 3,
      outputPerMTok: 15,
      cacheReadPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
    });
  });

  it('prices cache reads at the database cache rate', () => {
    const usage = { ...emptyUsage(), inputTokens: 0, outputTokens: 0, cacheReadTokens: 1_000_000 };
    expect(withEstimatedCost(usage, 'gemini-3.8-flash', none)).toMatchObject({
      costUsd: 0.075,
      costSource: 'estimated',
    });
  });

  it('finds provider/model names by provider, and Qwen models where the database lists them', () => {
    expect(priceFor('anthropic/claude-haiku-4-5', none)).toMatchObject({ inputPerMTok: 1, outputPerMTok: 5 });
    expect(priceFor('qwen3-coder-plus', none)).toBeUndefined();
    const qwen = pricesOf({}, { provider: 'openrouter', prefix: 'qwen/' });
    expect(priceFor('qwen3-coder-plus', qwen)).toMatchObject({ inputPerMTok: 0.65, outputPerMTok: 3.25 });
  });

  it('leaves a model the database does not know unpriced, its cost unknown', () => {
    expect(priceFor('mystery-model', none)).toBeUndefined();
    const usage = { ...emptyUsage(), inputTokens: 10, outputTokens: 2 };
    expect(withEstimatedCost(usage, 'mystery-model', none)).toMatchObject({
      costUsd: null,
      costSource: 'unknown',
    });
  });

  it('lets hydra.toml [prices] override the database and add models, matching dated and suffixed names', () => {
    const prices = pricesOf({
      'gemini-3.8-flash': { inputPerMTok: 1, outputPerMTok: 2 },
      'gpt-5': { inputPerMTok: 3, outputPerMTok: 4 },
      'my-model': { inputPerMTok: 5, outputPerMTok: 6 },
    });
    expect(priceFor('gemini-3.8-flash', prices)).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
    expect(priceFor('my-model', prices)).toEqual({ inputPerMTok: 5, outputPerMTok: 6 });
    expect(priceFor('GPT-5-2025-08-07', prices)).toEqual({ inputPerMTok: 3, outputPerMTok: 4 });
    expect(priceFor('acme/my-model', prices)).toEqual({ inputPerMTok: 5, outputPerMTok: 6 });
    // Not a prefix at a separator: the database's price.
    expect(priceFor('gpt-5.1-codex-mini', prices)).toMatchObject({ inputPerMTok: 0.25, outputPerMTok: 2 });
    expect(priceFor('gemini-2.5-flash', prices)).toMatchObject({ inputPerMTok: 0.3 });
  });

  it('prices cache reads and writes at their own rates', () => {
    const usage = {
      ...emptyUsage(),
      inputTokens: 1_000_000,
      outputTokens: 1_000_000,
      cacheReadTokens: 1_000_000,
      cacheWriteTokens: 1_000_000,
    };
    expect(
      estimateCost(usage, {
        inputPerMTok: 3,
        outputPerMTok: 15,
        cacheReadPerMTok: 0.3,
        cacheWritePerMTok: 3.75,
      }),
    ).toBeCloseTo(22.05, 6);
    // Without cache rates, cached tokens cost the input rate.
    expect(estimateCost(usage, { inputPerMTok: 1, outputPerMTok: 2 })).toBeCloseTo(5, 6);
  });
});

describe('json lines', () => {
  it('ignores blank lines and strips a byte-order mark', () => {
    expect(parseJsonLine('  \r')).toEqual({ ok: 'blank' });
    expect(parseJsonLine('\uFEFF{"type":"x"}')).toMatchObject({ ok: true, value: { type: 'x' } });
  });

  it('gives a line that opens an object the same answer with or without its CR or leading space', () => {
    const line = '{"type":"x","n":1}';
    const want = { ok: true, value: { type: 'x', n: 1 }, length: line.length };
    expect(parseJsonLine(line)).toEqual(want);
    expect(parseJsonLine(`${line}\r`)).toEqual(want);
    expect(parseJsonLine(`  ${line}`)).toEqual({ ...want, length: line.length + 2 });
    expect(parseJsonLine('{"type":\r')).toEqual(parseJsonLine('{"type":'));
  });

  it('rejects JSON that is not an object', () => {
    for (const line of ['[1,2]', '"text"', '42', 'null'])
      expect(parseJsonLine(line)).toMatchObject({ ok: false, reason: 'not a JSON object' });
  });

  it('tells plain text from JSON by its first character, without a thrown SyntaxError', () => {
    expect(parseJsonLine('flood 12')).toEqual({
      ok: false,
      reason: 'not JSON: starts with "f"',
      raw: 'flood 12',
    });
    expect(parseJsonLine('  Error: boom')).toMatchObject({ ok: false, reason: 'not JSON: starts with "E"' });
    // A line that looks like an object but is not one still gets JSON.parse's reason.
    expect(parseJsonLine('{"type":')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^not JSON: /),
    });
    expect(parseJsonLine(' true ')).toMatchObject({ ok: false, reason: 'not a JSON object' });
  });

  it('parses a million lines of plain text quickly (no exception per line)', () => {
    const started = performance.now();
    for (let i = 0; i < 1_000_000; i += 1) parseJsonLine(`flood ${i}`);
    // About 1 µs a line on a loaded two-core machine; a thrown SyntaxError costs 10-30 µs.
    expect(performance.now() - started).toBeLessThan(8_000);
  });
});
