/**
 * Issue 21, case 10: a SHA-256 repository (`git init --object-format=sha256`) races, restores the
 * user's refs and merges like a SHA-1 one; `hydra merge --only <a deleted file>` uses the
 * repository's own null object id, not a 40-digit one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../../src/engine/index.js';
import { git, makeSandbox } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';
import { SCRIPT_AGENT, raceScript, registerScriptAgent } from '../../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;

beforeEach(() => {
  sandbox = makeSandbox({ commit: false });
  // The same repository, in SHA-256.
  execFileSync('rm', ['-rf', path.join(sandbox.repo, '.git')]);
  git(sandbox.repo, 'init', '-q', '-b', 'main', '--object-format=sha256');
  writeFileSync(path.join(sandbox.repo, 'README.md'), '# test repo\n');
  writeFileSync(path.join(sandbox.repo, 'app.txt'), 'line 1\nline 2\n');
  git(sandbox.repo, 'add', '.');
  git(sandbox.repo, 'commit', '-q', '-m', 'init');
  git(sandbox.repo, 'branch', 'dev');
  unregister = registerScriptAgent();
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

const AGENT_WORK = 'git rm -q README.md\necho "line 3" >> app.txt\necho new > new.txt';

describe('a SHA-256 repository', () => {
  it('merge --only a file the agent deleted deletes just that file', async () => {
    expect(git(sandbox.repo, 'rev-parse', 'HEAD').trim()).toHaveLength(64);
    handle = raceScript(sandbox, AGENT_WORK);
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    expect(summary.agents[0]?.diff.filesChanged).toBe(3);
    const result = await handle.merge(SCRIPT_AGENT, { only: ['README.md'] });
    expect(result.commit).toHaveLength(64);
    expect(existsSync(path.join(sandbox.repo, 'README.md'))).toBe(false);
    expect(git(sandbox.repo, 'ls-tree', '-r', '--name-only', 'main').trim().split('\n')).toEqual(['app.txt']);
    expect(git(sandbox.repo, 'show', 'main:app.txt')).toBe('line 1\nline 2\n');
  });

  it('a whole race and merge, with a branch the agent deleted put back', async () => {
    const dev = git(sandbox.repo, 'rev-parse', 'dev').trim();
    handle = raceScript(sandbox, `${AGENT_WORK}\ngit branch -D dev`);
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    expect(handle.getSnapshot().agents[0]?.warnings.join('\n')).toMatch(/dev was deleted .*restored it/);
    expect(git(sandbox.repo, 'rev-parse', 'dev').trim()).toBe(dev);
    const result = await handle.merge(SCRIPT_AGENT);
    expect(result.method).toBe('fast-forward');
    expect(git(sandbox.repo, 'ls-tree', '-r', '--name-only', 'main').trim().split('\n')).toEqual([
      'app.txt',
      'new.txt',
    ]);
  });
});
