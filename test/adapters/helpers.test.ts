import { describe, expect, it } from 'vitest';
import { compareVersions, parseHelpFlags, parseVersion } from '../../src/adapters/help-flags.js';
import { parseJsonLine } from '../../src/adapters/json-line.js';
import { CLAUDE_PRICES } from '../../src/adapters/claude.js';
import { CODEX_PRICES } from '../../src/adapters/codex.js';
import { estimateCost, mergePrices, priceFor } from '../../src/adapters/prices.js';
import { emptyUsage } from '../../src/core/events.js';
import { helpVersions, readHelpFile } from './fixtures.js';

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
  it('matches dated and suffixed model names to the longest priced prefix', () => {
    const DEFAULT_PRICES = { ...CLAUDE_PRICES, ...CODEX_PRICES };
    expect(priceFor('claude-sonnet-4-5-20250929', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['claude-sonnet-4-5']);
    expect(priceFor('gpt-5-codex', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-5-codex']);
    expect(priceFor('gpt-5.1-codex-mini', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-5.1-codex-mini']);
    expect(priceFor('GPT-5', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-5']);
    expect(priceFor('gpt-50', DEFAULT_PRICES)).toBeUndefined();
    expect(priceFor('mystery-model', DEFAULT_PRICES)).toBeUndefined();
  });

  it('lets config override and extend the defaults', () => {
    const table = mergePrices(CODEX_PRICES, {
      'gpt-5': { inputPerMTok: 1, outputPerMTok: 2 },
      'my-model': { inputPerMTok: 3, outputPerMTok: 4 },
    });
    expect(priceFor('gpt-5', table)).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
    expect(priceFor('my-model', table)).toEqual({ inputPerMTok: 3, outputPerMTok: 4 });
    expect(priceFor('o3', table)).toBe(CODEX_PRICES['o3']);
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
