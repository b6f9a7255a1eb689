/**
 * Issue 23, `[setup] share`: which directories a configuration may share (refused with a config
 * error, or skipped with a warning), and the mounts themselves with awkward paths: spaces, quotes,
 * a leading dash, `=`, mounted by the namespace's init; `,` and `:` (which overlay options cannot
 * carry) copied instead; a mount that fails stops the process with a clear error.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProcessRegistry, spawnSupervised } from '../../../../src/engine/process/index.js';
import type { ProcessExit } from '../../../../src/engine/process/supervisor.js';
import { sharedDirs, shareSupport, worktreeShares } from '../../../../src/engine/setup/index.js';
import type { ShareMount } from '../../../../src/engine/setup/index.js';
import { makeNodeProject, treeState } from '../../../support/share-project.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-share-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const repoIn = (name: string): string => {
  const repo = path.join(dir, name);
  mkdirSync(repo, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  makeNodeProject(repo);
  return repo;
};

describe('which directories [setup] share takes', () => {
  it('shares an ignored directory and skips a missing one with a warning', () => {
    const repo = repoIn('repo');
    const shared = sharedDirs(repo, ['node_modules/', '.venv']);
    expect(shared.dirs).toEqual([{ name: 'node_modules', source: path.join(repo, 'node_modules') }]);
    expect(shared.warnings).toEqual([
      `[setup] share: .venv is not in ${repo}, so it is not shared (install it there, or drop it from share).`,
    ]);
  });

  it.each([
    ['lib', 'lib holds files git tracks'],
    ['README-missing-dir/../test.js', 'is not a directory'],
    ['../outside', 'not a directory inside the repository'],
    ['/etc', 'not a directory inside the repository'],
    ['build', 'build is not ignored by git'],
    ['linked', 'is a symbolic link out of the checkout'],
  ])('refuses %s with a config error', (name, problem) => {
    const repo = repoIn('repo');
    mkdirSync(path.join(repo, 'build'));
    mkdirSync(path.join(dir, 'elsewhere'));
    symlinkSync(path.join(dir, 'elsewhere'), path.join(repo, 'linked'));
    writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\nlinked\n');
    expect(() => sharedDirs(repo, [name])).toThrow(expect.objectContaining({ kind: 'InvalidConfig' }));
    expect(() => sharedDirs(repo, [name])).toThrow(problem);
  });
});

/** Runs `script` (sh) in `cwd` with `shares`, as a check would be run; its output and exit. */
const run = async (
  cwd: string,
  shares: ShareMount[],
  script: string,
): Promise<{ lines: string[]; exit: ProcessExit }> => {
  const lines: string[] = [];
  const supervised = spawnSupervised(
    { file: '/bin/sh', args: ['-c', script], cwd, env: {}, runId: 'share-test', agent: 'check:test', shares },
    { onSpawn: () => undefined, onLine: (line) => lines.push(line), onOversizeLine: () => undefined },
    createProcessRegistry(),
  );
  return { lines, exit: await supervised.exited };
};

describe('mounting a shared directory', () => {
  it.each(["a b'c", '-dash', 'e=f'])('mounts through a checkout path with %s in it', async (awkward) => {
    expect(shareSupport().kind).toBe('overlay');
    const repo = repoIn(awkward);
    const worktree = path.join(dir, `run ${awkward}`, 'agent');
    mkdirSync(worktree, { recursive: true });
    const before = treeState(path.join(repo, 'node_modules'));
    const shares = worktreeShares(sharedDirs(repo, ['node_modules']).dirs, worktree);
    expect(shares.map((share) => share.how)).toEqual(['overlay']);

    const { lines, exit } = await run(
      worktree,
      shares,
      'cat node_modules/leftpad/index.js && echo new > node_modules/new.txt && rm node_modules/leftpad/extra.txt',
    );
    expect(exit.exitCode).toBe(0);
    expect(lines).toEqual(["module.exports = () => 'ok';"]);
    expect(treeState(path.join(repo, 'node_modules'))).toEqual(before);
    // Outside the namespace, the mount point is empty; the write is in the worktree's own layer.
    expect(existsSync(path.join(worktree, 'node_modules', 'new.txt'))).toBe(false);
    expect(readFileSync(path.join(shares[0]?.layer ?? '', 'upper', 'new.txt'), 'utf8')).toBe('new\n');
    // A later process of the same worktree sees what the earlier one left.
    expect((await run(worktree, shares, 'cat node_modules/new.txt; ls node_modules/leftpad')).lines).toEqual([
      'new',
      'index.js',
      'package.json',
    ]);
  });

  it.each([',', ':'])('copies instead of mounting a checkout whose path has a %s', async (bad) => {
    const repo = repoIn(`repo${bad}x`);
    const worktree = path.join(dir, 'run', 'agent');
    mkdirSync(worktree, { recursive: true });
    const before = treeState(path.join(repo, 'node_modules'));
    const shares = worktreeShares(sharedDirs(repo, ['node_modules']).dirs, worktree);
    expect(shares.map((share) => share.how)).toEqual(['copy']);

    const { exit } = await run(worktree, shares, 'echo new > node_modules/new.txt');
    expect(exit.exitCode).toBe(0);
    expect(readFileSync(path.join(worktree, 'node_modules', 'new.txt'), 'utf8')).toBe('new\n');
    expect(readFileSync(path.join(worktree, 'node_modules', 'leftpad', 'index.js'), 'utf8')).toContain('ok');
    expect(treeState(path.join(repo, 'node_modules'))).toEqual(before);
  });

  it('stops the process, naming the mount, when the overlay cannot be mounted', async () => {
    const repo = repoIn('repo');
    const worktree = path.join(dir, 'run', 'agent');
    mkdirSync(worktree, { recursive: true });
    const shares = worktreeShares(sharedDirs(repo, ['node_modules']).dirs, worktree);
    rmSync(path.join(repo, 'node_modules'), { recursive: true });

    const { lines, exit } = await run(worktree, shares, 'echo ran');
    expect(lines).toEqual([]);
    expect(exit.spawnError).toMatch(/^the shared directories could not be mounted: mount: /);
  });
});
