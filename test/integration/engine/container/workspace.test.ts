/**
 * Issue 35 in the container path: hydra's git on the host never goes through what an agent's
 * container could write in a worktree's `.git`. A container agent (bind-mounted worktree) or a
 * check can point that file at a git directory of its own, whose config has a clean and smudge
 * filter, and whose location would be mounted into the next container: taking a remote result
 * back (workspace.ts takeResult), and the mounts of a local engine's agent or command
 * (run-args.ts localMounts, exec.ts), go by the repository's own entry. Real git, no engine.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { takeResult } from '../../../../src/engine/container/workspace.js';
import { localMounts } from '../../../../src/engine/container/run-args.js';
import type { ContainerAgentLaunch } from '../../../../src/engine/container/run-args.js';
import { gitArgs as git } from '../../../support/git.js';

let dir: string;
let repo: string;
let worktree: string;
let marker: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-container-git-'));
  repo = path.join(dir, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'README.md'), 'hello\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'base');
  worktree = path.join(dir, 'run', 'agent');
  git(repo, 'worktree', 'add', '-q', '-b', 'hydra/run/agent', worktree);
  marker = path.join(dir, 'filter-ran');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A git directory of the agent's, with a filter (and fsmonitor, hooks) that leave a mark; the worktree's `.git` pointed at it. */
const pointAtHostileGitDir = (): string => {
  const hostile = path.join(dir, 'hostile');
  mkdirSync(hostile);
  git(hostile, 'init', '-q');
  const mark = `touch ${marker}`;
  const config: Array<[string, string]> = [
    ['filter.evil.clean', mark],
    ['filter.evil.smudge', mark],
    ['core.fsmonitor', mark],
    ['core.hooksPath', path.join(dir, 'hooks')],
  ];
  for (const [key, value] of config) git(hostile, 'config', key, value);
  mkdirSync(path.join(dir, 'hooks'));
  writeFileSync(path.join(dir, 'hooks', 'post-checkout'), `#!/bin/sh\n${mark}\n`, { mode: 0o755 });
  writeFileSync(path.join(worktree, '.git'), `gitdir: ${path.join(hostile, '.git')}\n`);
  return path.join(hostile, '.git');
};

/** A bundle of the agent's result (as the helper container makes it): a commit whose files ask for the filter. */
const resultBundle = (): string => {
  const other = path.join(dir, 'result');
  execFileSync('git', ['clone', '-q', repo, other]);
  writeFileSync(path.join(other, '.gitattributes'), '* filter=evil\n');
  writeFileSync(path.join(other, 'work.txt'), 'the result\n');
  git(other, 'add', '.');
  git(other, 'commit', '-q', '-m', 'result');
  const bundle = path.join(dir, 'result.bundle');
  git(other, 'bundle', 'create', '-q', bundle, 'HEAD');
  return bundle;
};

describe("a remote container agent's result taken back", () => {
  it("goes onto the agent's branch", async () => {
    await takeResult(repo, worktree, resultBundle(), 'agent');
    expect(git(repo, 'show', 'hydra/run/agent:work.txt')).toBe('the result\n');
    expect(existsSync(marker)).toBe(false);
  });

  it("never reads a git directory the worktree's .git was pointed at", async () => {
    const bundle = resultBundle();
    pointAtHostileGitDir();
    await expect(takeResult(repo, worktree, bundle, 'agent')).rejects.toThrow(/broke its worktree/);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("a local engine's mounts", () => {
  it("bind the repository's git directory, not the one the worktree's .git names", async () => {
    const hostile = pointAtHostileGitDir();
    const launch = {
      agent: 'agent',
      repoRoot: repo,
      worktree,
      scratchDir: path.join(dir, 'run', '.scratch', 'agent'),
    } as ContainerAgentLaunch;
    const mounts = await localMounts(launch);
    expect(mounts).toContain(`${path.join(repo, '.git')}:${path.join(repo, '.git')}`);
    expect(mounts.join(' ')).not.toContain(hostile);
    expect(existsSync(marker)).toBe(false);
  });
});
