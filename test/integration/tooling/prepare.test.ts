/**
 * `npm install -g .` on a fresh clone runs the prepare script before any `npm install`: it must say
 * what is missing instead of failing with `tsc: not found`. (Checked by hand with a real clean clone
 * and a temp npm prefix; here the script itself, in a copy of the checkout without node_modules.)
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../../support/cli-helpers.js';

let dir: string | null = null;
afterEach(() => {
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

describe('the prepare script', () => {
  it('is what npm runs on install', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.mjs');
  });

  it('explains the missing npm install on a checkout without dependencies, exit 1', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hydra-prepare-'));
    mkdirSync(path.join(dir, 'scripts'));
    copyFileSync(path.join(ROOT, 'scripts', 'prepare.mjs'), path.join(dir, 'scripts', 'prepare.mjs'));
    copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    const result = spawnSync(process.execPath, ['scripts/prepare.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the build dependencies of this checkout are not installed');
    expect(result.stderr).toContain(`Run \`npm install\` in ${dir} first`);
    expect(result.stderr).not.toContain('tsc: not found');
  });
});
