/**
 * The end of a race: from an agent's exit to the command's end. Each agent's result is taken with
 * a handful of git processes (not a dozen), every worktree of the race is removed at once with no
 * `worktree prune` when git removed them itself, branches go in one `git branch -D`, and the wait
 * for a killed process group ends as soon as the group is gone. Every git command still goes
 * through runGit; a logging `git` first on PATH shows which ones a race runs.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../../src/engine/index.js';
import type { RaceHandle } from '../../../../src/engine/index.js';
import { createWorktree, deleteBranches, removeWorktrees } from '../../../../src/engine/git/worktrees.js';
import { pinWorktree } from '../../../../src/engine/git/pinned.js';
import { commitAgentResult, detachFromForeignBranch } from '../../../../src/engine/git/result-commit.js';
import { restoreUserRefs, snapshotRefs } from '../../../../src/engine/git/refs.js';
import { waitForGroupExit } from '../../../../src/engine/process/process-table.js';
import {
  git,
  groupMembers,
  installAgents,
  makeSandbox,
  plan,
  raceOptions,
} from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
const realPath = process.env.PATH;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  process.env.PATH = realPath;
  sandbox.cleanup();
});

/**
 * A `git` first on PATH that logs each command's arguments and runs the real git; with
 * `refuseWorktreePath`, it answers a `%(worktreepath)` format as git before 2.23 does. Each command
 * is one line, written at once (hydra runs several git commands at the same time).
 */
const loggingGit = (
  options: { refuseWorktreePath?: boolean } = {},
): { log: string; commands(): string[] } => {
  const bin = path.join(sandbox.dir, 'git-bin');
  mkdirSync(bin, { recursive: true });
  const log = path.join(sandbox.dir, 'git.log');
  const realGit = git(sandbox.dir, '--exec-path').trim() + '/git';
  const refuse = options.refuseWorktreePath
    ? `case "$*" in *worktreepath*) echo "fatal: unknown field name: worktreepath" >&2; exit 128;; esac\n`
    : '';
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\nline=$(printf '%s' "$*" | tr '\\n' ' ')\nprintf '%s\\n' "$line" >> '${log}'\n${refuse}exec '${realGit}' "$@"\n`,
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  process.env.PATH = `${bin}${path.delimiter}${realPath ?? ''}`;
  return {
    log,
    commands: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
        : [],
  };
};

/** hydra's prefix of a command on an agent's worktree (pinned to its git directory). */
const PINNED =
  /^--git-dir \S+ --work-tree \S+ --no-optional-locks -c core\.hooksPath=\/dev\/null -c submodule\.recurse=false -c diff\.ignoreSubmodules=dirty -c status\.submoduleSummary=false /;

/**
 * The commands of the agents' settling and the clean-up: from the first one on an agent's pinned
 * worktree on, each without hydra's pinning prefix.
 */
const fromSettling = (commands: string[]): string[] =>
  commands
    .slice(commands.findIndex((command) => PINNED.test(command)))
    .map((command) => command.replace(PINNED, ''));

describe('taking an agent’s result', () => {
  it('costs six git processes: no index check, no second HEAD check, no branch lookup, no prune', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {} });
    const logged = loggingGit();
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    const summary = await handle.settled;
    const all = logged.commands();
    const settling = fromSettling(all);
    const marked = all.length;
    await handle.finish();
    const cleaning = logged.commands().slice(marked);
    expect(summary.agents[0]?.status).toBe('completed');
    const branch = `hydra/${handle.runId}/claude`;
    // The result is committed on the agent's branch and diffed against the base.
    expect(git(sandbox.repo, 'log', '-1', '--format=%an', branch).trim()).toBe('hydra');
    const changed = git(sandbox.repo, 'diff', '--name-only', 'main', branch).trim().split('\n');
    expect(summary.agents[0]?.diff.filesChanged).toBe(changed.length);

    const named = (prefix: string): string[] => settling.filter((command) => command.startsWith(prefix));
    // What git says of the repository was asked while the agent ran, once.
    expect(all.filter((command) => command.startsWith('rev-parse --git-common-dir'))).toHaveLength(1);
    expect(named('rev-parse --git-common-dir')).toEqual([]);
    expect(named('symbolic-ref -q HEAD')).toHaveLength(1);
    expect(named('add -A')).toHaveLength(1);
    expect(settling.filter((command) => / commit --no-verify /.test(` ${command}`))).toHaveLength(1);
    expect(named('diff --cached')).toEqual([]);
    expect(named('rev-parse --verify -q refs/heads/')).toEqual([]);
    // The user's refs, stash, checkouts and HEAD: one read.
    expect(named('for-each-ref')).toHaveLength(1);
    expect(named('worktree list')).toEqual([]);
    expect(named('diff --numstat')).toHaveLength(1);
    expect(named('rev-parse HEAD')).toHaveLength(1);
    expect(settling).toHaveLength(6);
    // Clean-up: one read of the refs (a ref store damaged after the agents settled is repaired,
    // issue 21 case 5), then git removes the worktree and its entry; nothing is left to prune.
    expect(cleaning).toHaveLength(2);
    expect(cleaning[0]).toMatch(/^for-each-ref /);
    expect(cleaning[1]).toMatch(/^worktree remove /);
    expect(git(sandbox.repo, 'worktree', 'list', '--porcelain')).not.toContain(sandbox.worktreeRoot);
    expect(git(sandbox.repo, 'worktree', 'prune', '--dry-run', '-v')).toBe('');
  });

  it('two agents: the repository’s git directory is asked for once per race, both worktrees go at once, no prune', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {}, codex: {} });
    const logged = loggingGit();
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
    const summary = await handle.settled;
    await handle.finish();
    const all = logged.commands();
    const settling = fromSettling(all);
    expect(summary.agents.map((agent) => agent.status)).toEqual(['completed', 'completed']);
    expect(all.filter((command) => command.startsWith('rev-parse --git-common-dir'))).toHaveLength(1);
    expect(settling.filter((command) => command.startsWith('worktree remove'))).toHaveLength(2);
    expect(settling.filter((command) => command.startsWith('worktree prune'))).toEqual([]);
    expect(git(sandbox.repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    for (const agent of ['claude', 'codex'])
      expect(git(sandbox.repo, 'log', '-1', '--format=%an', `hydra/${handle.runId}/${agent}`).trim()).toBe(
        'hydra',
      );
  });

  it('an agent that changed nothing: no commit is made and the result is the base', async () => {
    sandbox = makeSandbox();
    const base = git(sandbox.repo, 'rev-parse', 'HEAD').trim();
    const worktree = path.join(sandbox.worktreeRoot, 'quiet');
    await createWorktree(sandbox.repo, worktree, 'hydra/t/quiet', base);
    const pinned = await pinWorktree(sandbox.repo, worktree);
    const result = await commitAgentResult(pinned, 'hydra/t/quiet', 'hydra: nothing');
    expect(result.commit).toBe(base);
    expect(git(sandbox.repo, 'rev-parse', 'hydra/t/quiet').trim()).toBe(base);
  });

  it('an agent that detached its HEAD and changed files: the result is committed on its own branch', async () => {
    sandbox = makeSandbox();
    const base = git(sandbox.repo, 'rev-parse', 'HEAD').trim();
    const worktree = path.join(sandbox.worktreeRoot, 'detached');
    await createWorktree(sandbox.repo, worktree, 'hydra/t/detached', base);
    git(worktree, 'checkout', '-q', '--detach');
    writeFileSync(path.join(worktree, 'new.txt'), 'made while detached\n');
    const pinned = await pinWorktree(sandbox.repo, worktree);
    const head = await detachFromForeignBranch(pinned, 'hydra/t/detached');
    expect(head).toEqual({ onOwnBranch: false, switchedTo: null });
    const result = await commitAgentResult(pinned, 'hydra/t/detached', 'hydra: detached', { head });
    expect(result.commit).not.toBe(base);
    expect(git(sandbox.repo, 'rev-parse', 'hydra/t/detached').trim()).toBe(result.commit);
    expect(git(sandbox.repo, 'show', `${result.commit}:new.txt`)).toBe('made while detached\n');
  });

  it('a commit that fails with changes staged is an error, not "nothing to commit"', async () => {
    sandbox = makeSandbox();
    const base = git(sandbox.repo, 'rev-parse', 'HEAD').trim();
    const worktree = path.join(sandbox.worktreeRoot, 'locked');
    await createWorktree(sandbox.repo, worktree, 'hydra/t/locked', base);
    writeFileSync(path.join(worktree, 'new.txt'), 'work\n');
    const pinned = await pinWorktree(sandbox.repo, worktree);
    // An empty message: git refuses it with exit 1, as it says "nothing to commit".
    await expect(commitAgentResult(pinned, 'hydra/t/locked', '')).rejects.toThrow(/empty commit message/);
    expect(git(sandbox.repo, 'rev-parse', 'hydra/t/locked').trim()).toBe(base);
  });
});

describe('a merge that discards the other results', () => {
  it('removes every worktree at once with no prune, and every branch in one `git branch -D`', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {}, codex: {} });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
    await handle.settled;
    const logged = loggingGit();
    const result = await handle.merge('claude', { discardOthers: true });
    expect(result.method).toBe('fast-forward');
    const commands = logged.commands();
    expect(commands.filter((command) => command.startsWith('worktree remove'))).toHaveLength(2);
    expect(commands.filter((command) => command.startsWith('worktree prune'))).toEqual([]);
    expect(commands.filter((command) => command.includes('branch -D'))).toHaveLength(1);
    expect(git(sandbox.repo, 'branch', '--list', 'hydra/*').trim()).toBe('');
    expect(git(sandbox.repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(git(sandbox.repo, 'worktree', 'prune', '--dry-run', '-v')).toBe('');
  });
});

describe('the user’s refs, read at once', () => {
  it('with git older than 2.23 (no %(worktreepath)), the same snapshot and the same restore', async () => {
    sandbox = makeSandbox();
    git(sandbox.repo, 'branch', 'dev');
    git(sandbox.repo, 'tag', 'v1');
    git(sandbox.repo, 'stash', 'list');
    writeFileSync(path.join(sandbox.repo, 'app.txt'), 'stashed\n');
    git(sandbox.repo, 'stash', 'push', '-q', '-m', 'user work');
    const userTree = path.join(sandbox.dir, 'user-tree');
    git(sandbox.repo, 'worktree', 'add', '-q', '-b', 'side', userTree);
    const fast = await snapshotRefs(sandbox.repo, 'run1');
    const logged = loggingGit({ refuseWorktreePath: true });
    const slow = await snapshotRefs(sandbox.repo, 'run1');
    expect(slow).toEqual(fast);
    expect(logged.commands().some((command) => command.startsWith('worktree list'))).toBe(true);
    // An agent moves dev and side, and drops the stash entry.
    const other = git(sandbox.repo, 'commit-tree', '-m', 'agent', 'HEAD^{tree}').trim();
    git(sandbox.repo, 'update-ref', 'refs/heads/dev', other);
    git(sandbox.repo, 'update-ref', 'refs/heads/side', other);
    git(sandbox.repo, 'stash', 'drop', '-q');
    const warnings = await restoreUserRefs({
      root: sandbox.repo,
      snapshot: slow,
      agent: 'claude',
      runDir: null,
    });
    expect(git(sandbox.repo, 'rev-parse', 'dev').trim()).toBe(fast.refs['refs/heads/dev']);
    // side is checked out in the user's own worktree: reported, left as it is.
    expect(git(sandbox.repo, 'rev-parse', 'side').trim()).toBe(other);
    expect(warnings.join('\n')).toMatch(/dev was moved/);
    expect(warnings.join('\n')).toMatch(/side changed .* checked out in/);
    expect(git(sandbox.repo, 'stash', 'list', '--format=%gs').trim()).toBe('On main: user work');
  });
});

describe('removing a race’s worktrees', () => {
  it('all at once, round after round: each is gone with its entry, and nothing is left to prune', async () => {
    sandbox = makeSandbox();
    const base = git(sandbox.repo, 'rev-parse', 'HEAD').trim();
    for (let round = 0; round < 6; round += 1) {
      const area = path.join(sandbox.worktreeRoot, `run-${round}`);
      const dirs = Array.from({ length: 6 }, (_, index) => path.join(area, `agent-${index}`));
      for (const [index, dir] of dirs.entries()) {
        await createWorktree(sandbox.repo, dir, `hydra/${round}/${index}`, base);
        writeFileSync(path.join(dir, 'left.txt'), 'uncommitted\n');
      }
      await removeWorktrees(
        sandbox.repo,
        dirs.map((dir) => ({ dir, area })),
      );
      for (const dir of dirs) expect(existsSync(dir)).toBe(false);
      expect(git(sandbox.repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      expect(git(sandbox.repo, 'worktree', 'prune', '--dry-run', '-v')).toBe('');
    }
  });

  it('a worktree whose directory is already gone: its entry is pruned', async () => {
    sandbox = makeSandbox();
    const base = git(sandbox.repo, 'rev-parse', 'HEAD').trim();
    const area = path.join(sandbox.worktreeRoot, 'run');
    const kept = path.join(area, 'kept');
    const gone = path.join(area, 'gone');
    await createWorktree(sandbox.repo, kept, 'hydra/r/kept', base);
    await createWorktree(sandbox.repo, gone, 'hydra/r/gone', base);
    rmSync(gone, { recursive: true, force: true });
    await removeWorktrees(sandbox.repo, [
      { dir: kept, area },
      { dir: gone, area },
    ]);
    expect(git(sandbox.repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    // With the entry gone, its branch can be deleted.
    expect(await deleteBranches(sandbox.repo, ['hydra/r/gone', 'hydra/r/kept'])).toEqual([
      'hydra/r/gone',
      'hydra/r/kept',
    ]);
  });
});

describe('deleting a race’s branches', () => {
  it('deletes those that exist in one go and names them', async () => {
    sandbox = makeSandbox();
    git(sandbox.repo, 'branch', 'hydra/r/a');
    git(sandbox.repo, 'branch', 'hydra/r/b');
    const logged = loggingGit();
    expect(await deleteBranches(sandbox.repo, ['hydra/r/b', 'hydra/r/missing', 'hydra/r/a'])).toEqual([
      'hydra/r/b',
      'hydra/r/a',
    ]);
    expect(logged.commands().filter((command) => command.includes('branch -D'))).toHaveLength(1);
    expect(git(sandbox.repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/hydra').trim()).toBe('');
  });

  it('one git refuses (checked out somewhere): the others are still deleted, and the refusal is thrown', async () => {
    sandbox = makeSandbox();
    git(sandbox.repo, 'branch', 'hydra/r/a');
    git(sandbox.repo, 'branch', 'hydra/r/c');
    const busy = path.join(sandbox.dir, 'busy');
    git(sandbox.repo, 'worktree', 'add', '-q', '-b', 'hydra/r/b', busy);
    await expect(deleteBranches(sandbox.repo, ['hydra/r/a', 'hydra/r/b', 'hydra/r/c'])).rejects.toThrow(
      /hydra\/r\/b/,
    );
    expect(git(sandbox.repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/hydra').trim()).toBe(
      'hydra/r/b',
    );
  });
});

describe('waiting for a process group to end', () => {
  it('resolves once nothing in the group runs, and only then', async () => {
    sandbox = makeSandbox();
    // A leader that exits at once and a member that lives on for a while, in a group of their own.
    const child = spawn('/bin/sh', ['-c', 'sleep 0.4 & exit 0'], { detached: true, stdio: 'ignore' });
    const pgid = child.pid!;
    await new Promise((resolve) => child.once('exit', resolve));
    expect(groupMembers(pgid).length).toBeGreaterThan(0);
    expect(await waitForGroupExit(pgid, 10_000)).toBe(true);
    expect(groupMembers(pgid)).toEqual([]);
  });

  it('gives up after its limit while the group still runs', async () => {
    sandbox = makeSandbox();
    const child = spawn('/bin/sh', ['-c', 'exec sleep 30'], { detached: true, stdio: 'ignore' });
    const pgid = child.pid!;
    try {
      expect(await waitForGroupExit(pgid, 100)).toBe(false);
      expect(groupMembers(pgid)).toEqual([pgid]);
    } finally {
      process.kill(-pgid, 'SIGKILL');
    }
  });
});
