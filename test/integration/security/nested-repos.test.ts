/**
 * Issue 35, cases 2 and 3: hydra's own git on a directory an agent or a check wrote runs nothing
 * that directory configured. An agent that makes `sub/` a repository with a clean filter in
 * `sub/.git/config` and commits it as a gitlink: hydra's staging and commit never look into `sub`
 * (git would run `git status` there, and the filter with it, as the user). A check that rewrites its
 * checkout's `.git` to point at a git directory with a filter: hydra's look at the checkout after
 * the checks goes through the checkout's entry in the repository, and names the rewritten `.git`.
 * In each, the filter's marker never appears; the filter writes it only once armed, after the
 * agent's or the check's own git is done.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { sh } from '../../support/security-helpers.js';
import { SCRIPT_AGENT, raceScript, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;
let marker: string;
let armed: string;
let filter: string;

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
  marker = path.join(sandbox.dir, 'filter-ran');
  armed = path.join(sandbox.dir, 'armed');
  filter = path.join(sandbox.dir, 'evil-filter.sh');
  // A clean filter that passes its input through and, once armed, leaves a mark where it ran.
  writeFileSync(filter, `#!/bin/sh\n[ -e ${sh(armed)} ] && pwd >> ${sh(marker)}\ncat\n`, { mode: 0o755 });
});

afterEach(async () => {
  delete process.env['HYDRA_PRIVATE_GIT'];
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

const ran = (): string => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

/**
 * The agent's nested repository: committed as a gitlink, its filter set, then (after `more`) its
 * file's time changed, so a `git status` there would have to read it, through the filter.
 */
const nestedRepo = (more: readonly string[] = []): string =>
  [
    'mkdir sub',
    'cd sub',
    'git init -q',
    'echo one > f.txt',
    'git add f.txt',
    'git commit -q -m sub',
    `git config filter.evil.clean ${sh(filter)}`,
    "echo '* filter=evil' > .gitattributes",
    'cd ..',
    'git add sub',
    'git commit -q -m "a gitlink"',
    'echo top > top.txt',
    ...more,
    'touch -d 2001-01-01 sub/f.txt',
    `touch ${sh(armed)}`,
  ].join('\n');

describe('a nested repository in the worktree (case 2)', () => {
  for (const privateGit of [false, true]) {
    it(`is never looked into by hydra's git${privateGit ? ' (in its private repository)' : ''}: its filter does not run, the gitlink is committed`, async () => {
      if (privateGit) process.env['HYDRA_PRIVATE_GIT'] = '1';
      handle = raceScript(sandbox, nestedRepo());
      const summary = await handle.settled;
      expect(summary.agents[0]?.status).toBe('completed');
      expect(ran()).toBe('');
      const branch = `hydra/${handle.runId}/${SCRIPT_AGENT}`;
      // The agent's gitlink and its other file are its result.
      expect(git(sandbox.repo, 'ls-tree', branch, 'sub')).toMatch(/^160000 commit [0-9a-f]{40}\tsub\n$/);
      expect(git(sandbox.repo, 'show', `${branch}:top.txt`)).toBe('top\n');
    });
  }

  it('a later commit of the nested repository is what its gitlink records', async () => {
    handle = raceScript(
      sandbox,
      nestedRepo([
        'cd sub',
        'echo two > g.txt',
        'git add g.txt',
        'git -c filter.evil.clean=cat commit -q -m again',
        'git rev-parse HEAD > ../sub-head',
        'cd ..',
      ]),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    expect(ran()).toBe('');
    const branch = `hydra/${handle.runId}/${SCRIPT_AGENT}`;
    const head = git(sandbox.repo, 'show', `${branch}:sub-head`).trim();
    expect(git(sandbox.repo, 'rev-parse', `${branch}:sub`).trim()).toBe(head);
  });
});

describe("a check that rewrites its checkout's .git (case 3)", () => {
  it("hydra's look at the checkout runs nothing of the git directory it points at, and names the rewrite", async () => {
    // One per checkout (the baseline's and the agent's), named after it.
    const evil = `${sh(sandbox.dir)}/"evil$(basename "$PWD").git"`;
    // The check: a copy of the repository with a filter on every file, the checkout's .git pointed there.
    const check = [
      `git clone -q --bare ${sh(sandbox.repo)} ${evil}`,
      `git --git-dir=${evil} read-tree HEAD`,
      `git --git-dir=${evil} config filter.evil.clean ${sh(filter)}`,
      `mkdir -p ${evil}/info`,
      `echo '* filter=evil' > ${evil}/info/attributes`,
      `printf 'gitdir: %s\\n' ${evil} > .git`,
      `touch ${sh(armed)}`,
    ].join(' && ');
    handle = raceScript(sandbox, 'echo top > top.txt', {
      checks: [{ name: 'rewriter', run: check, timeoutMs: 60_000, gate: false }],
    });
    const summary = await handle.settled;
    const agent = summary.agents[0];
    expect(agent?.status).toBe('completed');
    expect(agent?.checks?.[0]?.status, JSON.stringify(agent?.checks)).toBe('passed');
    expect(ran()).toBe('');
    expect(agent?.checks?.[0]?.checkoutChanged?.[0]).toMatch(
      /^\.git \(rewritten: points at .*evil.*\.git instead of /,
    );
  });
});
