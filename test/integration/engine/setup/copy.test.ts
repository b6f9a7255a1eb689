/**
 * Copying the user's ignored files into a worktree (src/engine/setup/copy.ts), on real git
 * repositories in temp directories: what is copied, what never is, and what is recorded.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyIncludedFiles, describeCopies } from '../../../../src/engine/setup/index.js';
import { redactSecrets } from '../../../../src/engine/records/index.js';
import { git, makeSandbox } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let target: string;

const write = (file: string, text: string): void => {
  mkdirSync(path.dirname(path.join(sandbox.repo, file)), { recursive: true });
  writeFileSync(path.join(sandbox.repo, file), text);
};

const commitAll = (): void => {
  git(sandbox.repo, 'add', '-A');
  git(sandbox.repo, 'commit', '-q', '-m', 'setup');
};

/** A fresh worktree of HEAD, as hydra makes one. */
const newWorktree = (): string => {
  const dir = path.join(sandbox.dir, `wt-${Math.random().toString(36).slice(2)}`);
  git(sandbox.repo, 'worktree', 'add', '-q', '--detach', dir);
  return dir;
};

beforeEach(() => {
  sandbox = makeSandbox();
  write('.gitignore', '.env\n*.local\nbuild/\nnode_modules/\nsecrets/\nlinked\n');
  commitAll();
  target = newWorktree();
});

afterEach(() => sandbox.cleanup());

describe('copyIncludedFiles', () => {
  it('copies an ignored file .worktreeinclude names, and nothing it does not', async () => {
    write('.env', 'API_KEY=abc123456789xyz\n');
    write('other.local', 'X=1\n');
    write('.worktreeinclude', '.env\n');
    const report = await copyIncludedFiles({ checkout: sandbox.repo, target, patterns: [] });
    expect(report.copied).toEqual(['.env']);
    expect(readFileSync(path.join(target, '.env'), 'utf8')).toBe('API_KEY=abc123456789xyz\n');
    expect(existsSync(path.join(target, 'other.local'))).toBe(false);
  });

  it('takes [setup] copy patterns too, in gitignore syntax (globs, nested directories, negation)', async () => {
    write('a.local', 'A=1\n');
    write('deep/er/b.local', 'B=1\n');
    write('deep/er/c.local', 'C=1\n');
    const report = await copyIncludedFiles({
      checkout: sandbox.repo,
      target,
      patterns: ['*.local', '!c.local'],
    });
    expect(report.copied).toEqual(['a.local', 'deep/er/b.local']);
    expect(readFileSync(path.join(target, 'deep/er/b.local'), 'utf8')).toBe('B=1\n');
  });

  it('never copies a tracked file, even one the ignore rules match (added with -f)', async () => {
    write('tracked.local', 'TRACKED=committed-value\n');
    git(sandbox.repo, 'add', '-f', 'tracked.local');
    git(sandbox.repo, 'commit', '-q', '-m', 'tracked despite the ignore rule');
    const fresh = newWorktree();
    write('tracked.local', 'TRACKED=changed-in-the-checkout\n');
    const report = await copyIncludedFiles({ checkout: sandbox.repo, target: fresh, patterns: ['*.local'] });
    // Not even a candidate: git lists untracked files only.
    expect(report).toEqual({ copied: [], skipped: [] });
    expect(readFileSync(path.join(fresh, 'tracked.local'), 'utf8')).toBe('TRACKED=committed-value\n');
  });

  it('never writes over a file the worktree has', async () => {
    write('.env', 'FROM=checkout-value\n');
    writeFileSync(path.join(target, '.env'), 'MINE=worktree-value\n');
    const report = await copyIncludedFiles({ checkout: sandbox.repo, target, patterns: ['.env'] });
    expect(report.copied).toEqual([]);
    expect(report.skipped).toEqual([{ path: '.env', reason: 'the worktree has this file already' }]);
    expect(readFileSync(path.join(target, '.env'), 'utf8')).toBe('MINE=worktree-value\n');
  });

  it('refuses a symlink to a file outside the checkout', async () => {
    const outside = path.join(sandbox.dir, 'outside-secret');
    writeFileSync(outside, 'OUTSIDE=do-not-copy-me\n');
    symlinkSync(outside, path.join(sandbox.repo, '.env'));
    const report = await copyIncludedFiles({ checkout: sandbox.repo, target, patterns: ['.env'] });
    expect(report.copied).toEqual([]);
    expect(report.skipped).toEqual([{ path: '.env', reason: 'a symlink' }]);
    expect(existsSync(path.join(target, '.env'))).toBe(false);
  });

  it('refuses a file inside a symlinked directory that points outside', async () => {
    const outside = path.join(sandbox.dir, 'outside-dir');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'key.json'), '{"key":"outside"}\n');
    symlinkSync(outside, path.join(sandbox.repo, 'linked'));
    const report = await copyIncludedFiles({
      checkout: sandbox.repo,
      target,
      patterns: ['linked/key.json', 'linked'],
    });
    expect(report.copied).toEqual([]);
    expect(existsSync(path.join(target, 'linked'))).toBe(false);
    expect(report.skipped.map((item) => item.reason)).toEqual(['a symlink']);
  });

  it('refuses to write through a symlinked directory in the worktree', async () => {
    write('secrets/api.json', '{"key":"value"}\n');
    const elsewhere = path.join(sandbox.dir, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, path.join(target, 'secrets'));
    const report = await copyIncludedFiles({ checkout: sandbox.repo, target, patterns: ['secrets/'] });
    expect(report.copied).toEqual([]);
    expect(report.skipped).toEqual([
      { path: 'secrets/api.json', reason: 'in the worktree, secrets is a symlink' },
    ]);
    expect(existsSync(path.join(elsewhere, 'api.json'))).toBe(false);
  });

  it('copies regular files only: a fifo is neither copied nor waited on', async () => {
    write('data.local', 'D=1\n');
    // mkfifo: a special file a naive copy would hang on.
    execFileSync('mkfifo', [path.join(sandbox.repo, 'pipe.local')]);
    const report = await copyIncludedFiles({ checkout: sandbox.repo, target, patterns: ['*.local'] });
    expect(report.copied).toEqual(['data.local']);
    expect(existsSync(path.join(target, 'pipe.local'))).toBe(false);
  });

  it('keeps the mode of each file', async () => {
    write('build/run.local', '#!/bin/sh\n');
    chmodSync(path.join(sandbox.repo, 'build/run.local'), 0o775);
    write('secret.local', 'S=1\n');
    chmodSync(path.join(sandbox.repo, 'secret.local'), 0o600);
    await copyIncludedFiles({
      checkout: sandbox.repo,
      target,
      patterns: ['build/run.local', 'secret.local'],
    });
    expect(statSync(path.join(target, 'build/run.local')).mode & 0o777).toBe(0o775);
    expect(statSync(path.join(target, 'secret.local')).mode & 0o777).toBe(0o600);
    expect(lstatSync(path.join(target, 'build')).isDirectory()).toBe(true);
  });

  it('does not look inside an ignored directory for a pattern that does not name it', async () => {
    write('node_modules/pkg/.env', 'PKG=inside-node-modules\n');
    write('.env', 'ROOT=at-the-root-value\n');
    const report = await copyIncludedFiles({ checkout: sandbox.repo, target, patterns: ['.env'] });
    expect(report.copied).toEqual(['.env']);
    const named = await copyIncludedFiles({
      checkout: sandbox.repo,
      target: newWorktree(),
      patterns: ['node_modules/pkg/.env'],
    });
    expect(named.copied).toEqual(['node_modules/pkg/.env']);
  });

  it('never copies hydra’s own records', async () => {
    write('.hydra/runs/x/meta.json', '{}\n');
    git(sandbox.repo, 'config', 'core.excludesFile', path.join(sandbox.dir, 'none'));
    writeFileSync(path.join(sandbox.repo, '.git/info/exclude'), '.hydra/\n');
    const report = await copyIncludedFiles({ checkout: sandbox.repo, target, patterns: ['.hydra/'] });
    expect(report.copied).toEqual([]);
    expect(report.skipped).toEqual([{ path: '.hydra/runs/x/meta.json', reason: "hydra's own records" }]);
  });

  it('makes the values of a copied env file secrets, and records only their hashes', async () => {
    const value = `copied-secret-${Date.now()}`;
    write('.env', `API_KEY=${value}\nNODE_ENV=development\n`);
    const recordDir = path.join(sandbox.repo, '.hydra/runs/r1');
    await copyIncludedFiles({ checkout: sandbox.repo, target, patterns: ['.env'], recordDir });
    expect(redactSecrets(`echo ${value}`)).toBe('echo [redacted: env API_KEY from .env]');
    const record = readFileSync(path.join(recordDir, 'copied.json'), 'utf8');
    expect(record).not.toContain(value);
    expect(JSON.parse(record)).toEqual({
      files: [
        { path: '.env', secrets: [{ key: 'API_KEY', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }] },
      ],
    });
  });
});

describe('describeCopies', () => {
  it('says where the patterns come from, what would be copied and which files hold secrets', async () => {
    write('.env', 'TOKEN=abcdefgh12345\n');
    write('x.local', 'PORT=3000\n');
    write('.worktreeinclude', '.env\n');
    const preview = await describeCopies(sandbox.repo, ['*.local']);
    expect(preview).toEqual({
      sources: ['.worktreeinclude', '[setup] copy'],
      files: ['.env', 'x.local'],
      skipped: [],
      secretFiles: ['.env'],
    });
  });

  it('is empty, with no git call needed, when no pattern is given', async () => {
    expect(await describeCopies(sandbox.repo, [])).toEqual({
      sources: [],
      files: [],
      skipped: [],
      secretFiles: [],
    });
  });
});
