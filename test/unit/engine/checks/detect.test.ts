/** Issue 26: what `--check auto` finds from a project's files, in its order of evidence. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectTestCommand } from '../../../../src/engine/checks/detect.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-detect-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (files: Record<string, string>): void => {
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
};
const pkg = (test: string): string => JSON.stringify({ scripts: { test } });
const runOf = (): string | null => detectTestCommand(dir)?.run ?? null;

describe('detectTestCommand', () => {
  it.each([
    ['package-lock.json', 'npm test'],
    ['pnpm-lock.yaml', 'pnpm test'],
    ['yarn.lock', 'yarn test'],
    ['bun.lockb', 'bun test'],
    ['bun.lock', 'bun test'],
  ])('runs package.json scripts.test with the manager %s names', (lock, run) => {
    write({ 'package.json': pkg('vitest run'), [lock]: '' });
    expect(runOf()).toBe(run);
    expect(detectTestCommand(dir)?.evidence).toBe(`package.json scripts.test "vitest run", ${lock}`);
  });

  it("skips npm's default script, which only fails, for the next evidence", () => {
    write({
      'package.json': pkg('echo "Error: no test specified" && exit 1'),
      'go.mod': 'module x\n',
    });
    expect(runOf()).toBe('go test ./...');
  });

  it('finds pytest from its config files, and not from a pyproject.toml that does not name it', () => {
    write({ 'pyproject.toml': '[project]\nname = "x"\n' });
    expect(runOf()).toBeNull();
    write({ 'setup.cfg': '[tool:pytest]\ntestpaths = tests\n' });
    expect(detectTestCommand(dir)).toMatchObject({ run: 'python3 -m pytest', source: 'setup.cfg' });
    write({ 'pyproject.toml': '[tool.pytest.ini_options]\n' });
    expect(detectTestCommand(dir)?.source).toBe('pyproject.toml');
  });

  it('keeps the order: package.json, pytest, go.mod, Cargo.toml, a Makefile test target', () => {
    write({ Makefile: 'build:\n\tcc x.c\n' });
    expect(runOf()).toBeNull();
    write({ Makefile: 'test: build\n\t./run-tests\n' });
    expect(runOf()).toBe('make test');
    write({ 'Cargo.toml': '[package]\nname = "x"\n' });
    expect(runOf()).toBe('cargo test');
    write({ 'go.mod': 'module x\n' });
    expect(runOf()).toBe('go test ./...');
    write({ 'pytest.ini': '[pytest]\n' });
    expect(runOf()).toBe('python3 -m pytest');
    write({ 'package.json': pkg('node --test') });
    expect(runOf()).toBe('npm test');
  });
});
