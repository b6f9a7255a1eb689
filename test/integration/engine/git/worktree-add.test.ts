import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorktree, largeCheckout } from '../../../../src/engine/git/worktrees.js';
import { git, makeSandbox } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

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

describe('a large repository', () => {
  /** A commit of `count` files in 100 folders, one with the execute bit and one a symlink. */
  const commitFiles = (count: number): void => {
    for (let index = 0; index < count; index += 1) {
      const dir = path.join(sandbox.repo, `d${String(index % 100)}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `f${String(index)}.txt`), `file ${String(index)}\n`);
    }
    writeFileSync(path.join(sandbox.repo, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    git(sandbox.repo, 'add', '-A');
    git(sandbox.repo, 'commit', '-q', '-m', 'many files');
  };

  it('is told apart from a small one by the size of its index', async () => {
    sandbox = makeSandbox();
    expect(await largeCheckout(sandbox.repo)).toBe(false);
    // 8,000 entries in the index (one blob under 8,000 names), without writing 8,000 files.
    const blob = git(sandbox.repo, 'hash-object', '-w', '--stdin').trim();
    const entries = Array.from({ length: 8000 }, (_, index) => `100644 ${blob}\tmany/f${String(index)}.txt`);
    execFileSync('git', ['update-index', '--index-info'], {
      cwd: sandbox.repo,
      input: `${entries.join('\n')}\n`,
    });
    expect(await largeCheckout(sandbox.repo)).toBe(true);
  });

  it('gets worktrees whose files are checked out after `worktree add`, the same as in one step', async () => {
    sandbox = makeSandbox();
    commitFiles(300);
    const separate = path.join(sandbox.worktreeRoot, 'run1', 'claude');
    const together = path.join(sandbox.worktreeRoot, 'run1', 'codex');

    await createWorktree(sandbox.repo, separate, 'hydra/run1/claude', 'HEAD', { separateCheckout: true });
    await createWorktree(sandbox.repo, together, 'hydra/run1/codex', 'HEAD');

    for (const dir of [separate, together]) expect(git(dir, 'status', '--porcelain')).toBe('');
    const files = (dir: string): string[] => git(dir, 'ls-files', '-s').trim().split('\n');
    expect(files(separate)).toEqual(files(together));
    expect(files(separate).length).toBeGreaterThan(300);
    expect(readFileSync(path.join(separate, 'd7', 'f207.txt'), 'utf8')).toBe('file 207\n');
    expect(git(separate, 'rev-parse', 'HEAD')).toBe(git(sandbox.repo, 'rev-parse', 'HEAD'));
    expect(git(separate, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('hydra/run1/claude');
  });
});
