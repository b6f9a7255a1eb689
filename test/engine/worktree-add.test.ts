import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorktree } from '../../src/engine/git/worktrees.js';
import { git, makeSandbox } from './helpers.js';
import type { Sandbox } from './helpers.js';

let sandbox: Sandbox;
const realPath = process.env.PATH;

afterEach(() => {
  process.env.PATH = realPath;
  sandbox.cleanup();
});

/**
 * A `git` first on PATH that loses the race for `.git/worktrees/<name>` the first `times` times,
 * as git does when another `git worktree add` took the name at the same moment: it has made the
 * branch, then stops with git's own message. Every other command is the real git.
 */
const gitThatLosesTheRace = (times: number, message = COLLIDED): string => {
  const bin = path.join(sandbox.dir, 'bin');
  mkdirSync(bin);
  const counter = path.join(sandbox.dir, 'lost');
  const realGit = git(sandbox.dir, '--exec-path').trim() + '/git';
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh
for arg in "$@"; do [ "$arg" = worktree ] && wt=1; done
if [ -n "$wt" ] && [ "$(cat '${counter}' 2>/dev/null | wc -c)" -lt ${times} ]; then
  printf x >> '${counter}'
  while [ "$1" != "-b" ]; do shift; done
  '${realGit}' branch "$2" "$4"
  echo "${message}" >&2
  exit 128
fi
exec '${realGit}' "$@"
`,
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  return bin;
};

/** What git 2.39 says when it lost the race, in the two ways seen. */
const COLLIDED = "fatal: could not create directory of '.git/worktrees/claude': File exists";
const HALF_MADE = 'fatal: failed to read .git/worktrees/claude/commondir: Success';

describe('git worktree add', () => {
  it.each([
    ['took the same administrative directory', COLLIDED],
    ['had not finished writing its administrative directory', HALF_MADE],
  ])('tries again when another worktree %s at that moment', async (_case, message) => {
    sandbox = makeSandbox();
    process.env.PATH = `${gitThatLosesTheRace(2, message)}:${realPath}`;
    const dir = path.join(sandbox.worktreeRoot, 'run1', 'claude');

    await createWorktree(sandbox.repo, dir, 'hydra/run1/claude', 'HEAD');

    expect(existsSync(path.join(dir, '.git'))).toBe(true);
    expect(git(sandbox.repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/hydra').trim()).toBe(
      'hydra/run1/claude',
    );
  });

  it('gives up after a few tries and leaves the branch for the caller to remove', async () => {
    sandbox = makeSandbox();
    process.env.PATH = `${gitThatLosesTheRace(10)}:${realPath}`;
    const dir = path.join(sandbox.worktreeRoot, 'run1', 'claude');

    await expect(createWorktree(sandbox.repo, dir, 'hydra/run1/claude', 'HEAD')).rejects.toThrow(
      /could not create directory of/,
    );
    expect(existsSync(dir)).toBe(false);
  });
});
