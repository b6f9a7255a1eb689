/**
 * Issue 9, case 2: git runs pinned to the race's repository. An agent that deletes its worktree's
 * `.git`, replaces it with a repository of its own (`git init`) or points it at another repository
 * must not make hydra commit anywhere: that agent fails with a typed error and a hint, nothing is
 * committed in any repository, and its worktree (the only copy of its work) is kept.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
  hydraBranches,
} from '../../support/fault-invariants.js';
import { SCRIPT_AGENT, raceScript, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

/** Refs, HEAD and commit count of a repository that hydra must not touch. */
const repoRefs = (dir: string): string =>
  [
    git(dir, 'for-each-ref', '--format=%(refname) %(objectname)'),
    git(dir, 'rev-parse', 'HEAD'),
    git(dir, 'symbolic-ref', '-q', 'HEAD'),
    git(dir, 'rev-list', '--all', '--count'),
  ].join('');

/** A dotfiles-like repository around the sandbox (as $HOME is for many), with one commit. */
const makeEnclosingRepo = (dir: string): void => {
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, '.bashrc'), 'export EDITOR=vi\n');
  git(dir, 'add', '.bashrc');
  git(dir, 'commit', '-q', '-m', 'dotfiles');
};

async function raceToEnd(body: string): Promise<{ worktree: string; runId: string }> {
  handle = raceScript(sandbox, body);
  await handle.settled;
  const agent = handle.getSnapshot().agents[0]!;
  expect(agent.status).toBe('failed');
  expect(agent.error?.kind).toBe('AgentFailed');
  expect(agent.error?.message).toMatch(
    /broke its worktree .*Hydra committed nothing; the agent's files are kept there/,
  );
  expect(agent.error?.hint).toMatch(/Copy what you need from .*then run `hydra clean`/);
  const worktree = agent.worktree!;
  const runId = handle.runId;
  const summary = await handle.finish();
  expect(summary.agents[0]).toMatchObject({ agent: SCRIPT_AGENT, status: 'failed' });
  expect(summary.agents[0]?.error?.message).toMatch(/broke its worktree/);
  return { worktree, runId };
}

describe('an agent that breaks its worktree', () => {
  it('deleting .git: nothing is committed in the enclosing repository, the agent fails, its work is kept', async () => {
    makeEnclosingRepo(sandbox.dir);
    const enclosing = repoRefs(sandbox.dir);
    const user = captureUserState(sandbox.repo);

    const { worktree, runId } = await raceToEnd('echo "agent work" > work.txt\nrm -f .git');

    expect(repoRefs(sandbox.dir)).toBe(enclosing);
    expect(git(sandbox.dir, 'log', '--all', '--format=%s')).not.toMatch(/hydra/);
    expectUserStateUnchanged(sandbox.repo, user);
    expect(git(sandbox.repo, 'log', '--all', '--format=%s')).not.toMatch(/hydra:/);
    // Its branch, kept with its worktree for `hydra clean`, still points at the base: nothing committed.
    const base = git(sandbox.repo, 'rev-parse', 'main').trim();
    for (const branch of hydraBranches(sandbox.repo))
      expect(git(sandbox.repo, 'rev-parse', branch).trim()).toBe(base);
    // Its worktree holds the only copy of the work: kept.
    expect(readFileSync(path.join(worktree, 'work.txt'), 'utf8')).toBe('agent work\n');
    expectNoProcessOfRun(runId);
    expectRecordsReadable(sandbox.repo);
    // Git still lists the kept worktree, so `hydra clean` (once this hydra is gone) can remove it.
    expect(git(sandbox.repo, 'worktree', 'list', '--porcelain')).toContain(`worktree ${worktree}`);
  });

  it('git init: hydra commits nothing in the new repository either, and says what happened', async () => {
    const user = captureUserState(sandbox.repo);
    const { worktree, runId } = await raceToEnd(
      'echo "agent work" > work.txt\nrm -f .git\ngit init -q -b mine\ngit add -A\ngit commit -q -m mine',
    );

    expect(handle).not.toBeNull();
    // The agent's own repository has its one commit and nothing of hydra's.
    expect(git(worktree, 'rev-list', '--all', '--count').trim()).toBe('1');
    expect(git(worktree, 'for-each-ref', '--format=%(refname)').trim()).toBe('refs/heads/mine');
    expectUserStateUnchanged(sandbox.repo, user);
    expect(git(sandbox.repo, 'log', '--all', '--format=%s')).not.toMatch(/hydra:/);
    expect(readFileSync(path.join(worktree, 'work.txt'), 'utf8')).toBe('agent work\n');
    expectNoProcessOfRun(runId);
  });

  it.each([
    ['a gitdir line', (victimGit: string) => `echo "gitdir: ${victimGit}" > .git`],
    ['a symlink', (victimGit: string) => `rm -f .git && ln -s "${victimGit}" .git`],
  ])('.git pointed at another repository by %s: that repository is left alone', async (_how, repoint) => {
    const victim = path.join(sandbox.dir, 'victim');
    mkdirSync(victim);
    makeEnclosingRepo(victim);
    const before = repoRefs(victim);
    const user = captureUserState(sandbox.repo);

    const { worktree } = await raceToEnd(
      `echo "agent work" > work.txt\n${repoint(path.join(victim, '.git'))}`,
    );

    expect(repoRefs(victim)).toBe(before);
    expect(git(victim, 'status', '--porcelain')).toBe('');
    expectUserStateUnchanged(sandbox.repo, user);
    expect(existsSync(path.join(worktree, 'work.txt'))).toBe(true);
  });

  it('an intact worktree still commits through the pinned git directory', async () => {
    handle = raceScript(sandbox, 'echo "agent work" > work.txt');
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    expect(git(sandbox.repo, 'show', `hydra/${handle.runId}/${SCRIPT_AGENT}:work.txt`)).toBe('agent work\n');
  });
});
