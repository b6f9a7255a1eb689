/**
 * The modules hydra's build puts in place of two of the sandbox library's (scripts/sandbox-library/):
 * `whichSync` finds what `which` finds without running it, and `ripGrep` scans once until forgotten.
 * (test/system/sandbox/stops.test.ts and install.test.ts race and check the bundled library itself.)
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ROOT } from '../../support/cli-helpers.js';

const scan = vi.fn((args: string[]) => Promise.resolve([`found ${args.join(' ')}`]));
vi.mock('@anthropic-ai/sandbox-runtime/dist/utils/ripgrep.js', () => ({ ripGrep: scan }));

interface WhichModule {
  whichSync(bin: string): string | null;
}
interface RipgrepModule {
  ripGrep(args: string[], target: string, signal?: AbortSignal, config?: object): Promise<string[]>;
  forgetScans(): void;
}

const replacement = (name: string): string => path.join(ROOT, 'scripts', 'sandbox-library', name);

let dir: string;
let savedPath: string | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-which-'));
  savedPath = process.env.PATH;
});

afterEach(() => {
  process.env.PATH = savedPath;
  rmSync(dir, { recursive: true, force: true });
});

describe("the bundled sandbox library's whichSync", () => {
  it('finds the first executable file of that name on PATH, a path as given, else null', async () => {
    const { whichSync } = (await import(replacement('which.mjs'))) as WhichModule;
    const [first, second] = ['a', 'b'].map((name) => path.join(dir, name));
    for (const folder of [first, second]) mkdirSync(folder as string);
    // Not executable, a directory, then the real one: only the last counts.
    writeFileSync(path.join(first as string, 'tool'), '#!/bin/sh\n');
    mkdirSync(path.join(first as string, 'tool-dir'));
    writeFileSync(path.join(second as string, 'tool'), '#!/bin/sh\n');
    chmodSync(path.join(second as string, 'tool'), 0o755);
    process.env.PATH = [first, second].join(path.delimiter);
    expect(whichSync('tool')).toBe(path.join(second as string, 'tool'));
    expect(whichSync('tool-dir')).toBeNull();
    expect(whichSync('missing')).toBeNull();
    expect(whichSync('/bin/sh')).toBe('/bin/sh');
    expect(whichSync(path.join(first as string, 'tool'))).toBeNull();
  });
});

describe("the bundled sandbox library's ripGrep", () => {
  it('scans once for the same arguments until the scans are forgotten', async () => {
    const { ripGrep, forgetScans } = (await import(replacement('ripgrep.mjs'))) as RipgrepModule;
    expect(await ripGrep(['--files'], '/repo')).toEqual(['found --files']);
    expect(await ripGrep(['--files'], '/repo')).toEqual(['found --files']);
    expect(scan).toHaveBeenCalledTimes(1);
    await ripGrep(['--files'], '/other');
    expect(scan).toHaveBeenCalledTimes(2);
    forgetScans();
    await ripGrep(['--files'], '/repo');
    expect(scan).toHaveBeenCalledTimes(3);
  });
});
