/**
 * scripts/price-data.mjs: the price database's array literal becomes one JSON text handed to
 * JSON.parse, with the same value, and a package file of another shape fails the build.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../support/cli-helpers.js';

interface PriceDataModule {
  pricesAsJson(source: string): string;
}

const load = async (): Promise<PriceDataModule> =>
  (await import(path.join(ROOT, 'scripts', 'price-data.mjs'))) as PriceDataModule;

/** Runs a module body's `const` declarations and returns the named constants. */
const constants = (source: string, names: string[]): Record<string, unknown> =>
  runInNewContext(`${source}\n;({ ${names.join(', ')} })`) as Record<string, unknown>;

describe('the price database read as JSON', () => {
  it('declares the same array from a JSON text, and leaves the rest of the file as it was', async () => {
    const { pricesAsJson } = await load();
    const source = [
      'const E = [',
      '  { id: "anthropic", api_pattern: "https://api\\\\.anthropic\\\\.com", prices: { input_mtok: 3, tiers: [1.5, { base: 0.3 }] }, note: "it\'s \\u00e9" },',
      '  { id: "openai", free: false, empty: null, list: [] }',
      '], J = {',
      '  tokens: { per: 1e6 }',
      '};',
      'const after = J.tokens.per;',
    ].join('\n');
    const made = pricesAsJson(source);
    expect(made.startsWith('const E = JSON.parse(')).toBe(true);
    expect(made.endsWith(', J = {\n  tokens: { per: 1e6 }\n};\nconst after = J.tokens.per;')).toBe(true);
    const before = constants(source, ['E', 'J', 'after']);
    const now = constants(made, ['E', 'J', 'after']);
    expect(JSON.stringify(now)).toBe(JSON.stringify(before));
    expect((now['E'] as Array<{ api_pattern?: string }>)[0]?.api_pattern).toBe(
      'https://api\\.anthropic\\.com',
    );
  });

  it("reads the installed package's own file", async () => {
    const { pricesAsJson } = await load();
    const file = path.join(ROOT, 'node_modules', '@pydantic', 'genai-prices', 'dist', 'index.js');
    expect(pricesAsJson(readFileSync(file, 'utf8'))).toMatch(/^const E = JSON\.parse\("\[\{/);
  });

  it('refuses a file of another shape, and values JSON would change', async () => {
    const { pricesAsJson } = await load();
    expect(() => pricesAsJson('export const E = [1];\n')).toThrow(/no longer starts with the price array/);
    expect(() => pricesAsJson('const E = [\n  { a: 1 }\n];\nconst J = {};\n')).toThrow(/no longer starts/);
    expect(() => pricesAsJson('const E = [\n  { a: undefined }\n], J = {\n};\n')).toThrow();
    expect(() => pricesAsJson('const E = [\n  { a: Infinity }\n], J = {\n};\n')).toThrow();
    expect(() => pricesAsJson('const E = [\n  { a: -0 }\n], J = {\n};\n')).toThrow();
  });
});
