/** The parts of checks that need no race: command splitting, the limiter, scope, the pricing model. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexAdapter } from '../../../../src/adapters/codex.js';
import { claudeAdapter } from '../../../../src/adapters/claude.js';
import { loadPriceDatabase, priceFor, pricesOf } from '../../../../src/adapters/prices.js';
import { checkCommand, outsideAllowedPaths } from '../../../../src/engine/checks/index.js';
import { createLimiter } from '../../../../src/engine/process/index.js';
import { pricingModel } from '../../../../src/engine/probe/index.js';

describe('checkCommand', () => {
  it('splits a plain command into arguments, without a shell', () => {
    expect(checkCommand('node --test  test/')).toEqual({
      file: 'node',
      args: ['--test', 'test/'],
      shell: false,
    });
  });

  it.each([
    'npm test && npm run lint',
    'pytest -q | tail -5',
    'echo "two words"',
    'go test ./... > out.txt',
    'CI=1 npm test',
    'ls *.js',
    'echo $HOME',
  ])('runs %j with sh -c, exactly as written', (run) => {
    expect(checkCommand(run)).toEqual({ file: 'sh', args: ['-c', run], shell: true });
  });
});

describe('createLimiter', () => {
  it('runs no more than its slots at once, in the order asked', async () => {
    const limiter = createLimiter(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const jobs = [1, 2, 3, 4].map((n) =>
      limiter.run(async () => {
        running += 1;
        most = Math.max(most, running);
        order.push(n);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
      }),
    );
    for (let i = 0; i < 4; i += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    await Promise.all(jobs);
    expect(most).toBe(2);
    expect(order).toEqual([1, 2, 3, 4]);
  });
});

describe('outsideAllowedPaths', () => {
  it('flags the files no pattern covers', () => {
    const files = ['src/a.ts', 'src/deep/b.ts', 'test/a.test.ts', 'package.json', 'docs/x.md'];
    expect(outsideAllowedPaths(files, ['src/**', 'test/*.test.ts'])).toEqual(['package.json', 'docs/x.md']);
    expect(outsideAllowedPaths(files, ['src', 'docs/'])).toEqual(['test/a.test.ts', 'package.json']);
  });
});

describe('pricingModel', () => {
  const home = (): string => mkdtempSync(path.join(os.tmpdir(), 'hydra-codex-home-'));

  it('takes the model hydra.toml names first', () => {
    expect(pricingModel(codexAdapter, 'gpt-5.2', { CODEX_HOME: '/nonexistent' })).toBe('gpt-5.2');
  });

  it("reads the model from Codex's config.toml in CODEX_HOME", () => {
    const dir = home();
    writeFileSync(path.join(dir, 'config.toml'), 'model = "gpt-5.4"\n[profiles.x]\nmodel = "o3"\n');
    expect(pricingModel(codexAdapter, undefined, { CODEX_HOME: dir })).toBe('gpt-5.4');
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads ~/.codex/config.toml when CODEX_HOME is not set, else takes Codex's default model", () => {
    const dir = home();
    expect(pricingModel(codexAdapter, undefined, { HOME: dir })).toBe('gpt-5.5');
    mkdirSync(path.join(dir, '.codex'));
    writeFileSync(path.join(dir, '.codex', 'config.toml'), 'model = "gpt-5.1-codex"\n');
    expect(pricingModel(codexAdapter, undefined, { HOME: dir })).toBe('gpt-5.1-codex');
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves a CLI without a model config or default alone', () => {
    expect(pricingModel(claudeAdapter, undefined, {})).toBeUndefined();
  });

  it('prices the default model', async () => {
    await loadPriceDatabase();
    expect(priceFor(codexAdapter.defaultModel, pricesOf({}))).toBeDefined();
  });
});
