/**
 * Issue 9, case 4: the user's refs are protected. Branches and tags are shared by every worktree,
 * so an agent can move, delete or create them from its own. hydra snapshots them when the race
 * starts and, when the agent settles, puts every change back, keeps what the agent committed on its
 * own branch, and says what it found (in the agent's pane and in the summary).
 */
import { writeFileSync } from 'node:fs';
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
} from '../../support/fault-invariants.js';
import { SCRIPT_AGENT, raceScript, raceScripts, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
  // The user's own branches and tags: `dev` has a commit of its own, `old` and two tags sit on main.
  git(sandbox.repo, 'branch', 'old');
  git(sandbox.repo, 'tag', 'v1');
  git(sandbox.repo, 'tag', '-a', '-m', 'release 2', 'v2');
  git(sandbox.repo, 'checkout', '-q', '-b', 'dev');
  writeFileSync(path.join(sandbox.repo, 'dev.txt'), 'the user’s dev work\n');
  git(sandbox.repo, 'add', 'dev.txt');
  git(sandbox.repo, 'commit', '-q', '-m', 'dev work');
  git(sandbox.repo, 'checkout', '-q', 'main');
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

const warningsOf = (): string => handle!.getSnapshot().agents[0]!.warnings.join('\n');

describe('an agent that touches the user’s refs', () => {
  it('checkout dev && commit: dev is put back, and the result keeps every commit the agent made', async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(
      sandbox,
      [
        'echo a > a.txt && git add a.txt && git commit -q -m "agent A on its branch"',
        'git checkout -q dev',
        'echo b > b.txt && git add b.txt && git commit -q -m "agent B on dev"',
        'echo c > c.txt',
      ].join('\n'),
    );
    const summary = await handle.settled;
    const branch = `hydra/${handle.runId}/${SCRIPT_AGENT}`;
    expect(summary.agents[0]?.status).toBe('completed');
    // The result: the agent's own branch with what it did on dev replayed on top, none of dev's own commits.
    const files = git(sandbox.repo, 'ls-tree', '-r', '--name-only', branch).trim().split('\n').sort();
    expect(files).toEqual(['README.md', 'a.txt', 'app.txt', 'b.txt', 'c.txt']);
    const subjects = git(sandbox.repo, 'log', '--format=%s', `main..${branch}`).trim().split('\n');
    expect(subjects.slice(1)).toEqual(['agent B on dev', 'agent A on its branch']);
    expect(subjects[0]).toMatch(/^hydra: scripted result/);
    expect(summary.agents[0]?.diff.filesChanged).toBe(3);
    expect(warningsOf()).toMatch(/dev was moved during the race .*hydra moved it back/);
    expect(warningsOf()).toMatch(/switched its worktree to dev; its result is its own branch/);
    expect(summary.agents[0]?.warnings?.join('\n')).toMatch(/dev was moved/);
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
    expectNoProcessOfRun(handle.runId);
    expectRecordsReadable(sandbox.repo);
  });

  it('when what the agent did on dev does not apply on its own branch, it says so and dev is still put back', async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(
      sandbox,
      [
        'echo mine > app.txt && git commit -q -am "agent A on its branch"',
        'git checkout -q dev',
        'echo theirs > app.txt && git commit -q -am "agent B on dev"',
      ].join('\n'),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    const branch = `hydra/${handle.runId}/${SCRIPT_AGENT}`;
    const own = /before the switch is ([0-9a-f]{12})/.exec(warningsOf())?.[1];
    expect(own).toBeDefined();
    expect(git(sandbox.repo, 'log', '-1', '--format=%s', own!).trim()).toBe('agent A on its branch');
    expect(git(sandbox.repo, 'show', `${branch}:app.txt`)).toBe('theirs\n');
    expect(warningsOf()).toMatch(/dev was moved during the race/);
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it('tags created, moved and deleted, branches deleted, moved and created: all put back and named', async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(
      sandbox,
      [
        'echo a > a.txt && git add a.txt && git commit -q -m "agent work"',
        'git tag -d v1',
        'git tag -f v2 HEAD',
        'git tag evil',
        'git branch -D old',
        'git branch -f dev HEAD',
        'git branch stray',
        'git update-ref refs/notes/commits HEAD',
      ].join(' ; '),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    const warnings = warningsOf();
    expect(warnings).toMatch(/v1 was deleted during the race .*restored it/);
    expect(warnings).toMatch(/v2 was moved during the race/);
    expect(warnings).toMatch(/evil was created during the race .*hydra deleted it/);
    expect(warnings).toMatch(/old was deleted during the race/);
    expect(warnings).toMatch(/dev was moved during the race/);
    expect(warnings).toMatch(/stray was created during the race/);
    expect(warnings).toMatch(/refs\/notes\/commits was created/);
    const branch = `hydra/${handle.runId}/${SCRIPT_AGENT}`;
    expect(git(sandbox.repo, 'show', `${branch}:a.txt`)).toBe('a\n');
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
    // The annotated tag is the same tag object as before, not a lightweight copy.
    expect(git(sandbox.repo, 'cat-file', '-t', 'v2').trim()).toBe('tag');
  });

  it("switching the user's own checkout is reported and left as it is", async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(
      sandbox,
      'repo=$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")\ngit -C "$repo" checkout -q dev',
    );
    const summary = await handle.settled;
    expect(warningsOf()).toMatch(
      /The checkout in .* was switched from main to dev during the race .*hydra left it as it is .*`git switch main` goes back/,
    );
    expect(summary.agents[0]?.warnings?.join('\n')).toMatch(/switched from main to dev/);
    expect(git(sandbox.repo, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/dev');
    await handle.finish();
    git(sandbox.repo, 'checkout', '-q', 'main');
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it("moving the branch checked out in the user's worktree is reported, not rewritten under them", async () => {
    const main = git(sandbox.repo, 'rev-parse', 'main').trim();
    handle = raceScript(sandbox, 'git update-ref refs/heads/main refs/heads/dev');
    await handle.settled;
    expect(warningsOf()).toMatch(
      new RegExp(
        `main changed during the race .*left it as it is because it is checked out in .*git reset --keep ${main.slice(0, 12)}`,
      ),
    );
    await handle.finish();
  });

  it('two agents settling together: each change is put back once and told once', async () => {
    const unregisterSecond = registerScriptAgent('scripted2');
    try {
      const before = captureUserState(sandbox.repo);
      handle = raceScripts(sandbox, {
        [SCRIPT_AGENT]: 'git tag -d v1 || true\ngit branch -f dev HEAD\necho one > one.txt',
        scripted2: 'git tag -d v1 || true\ngit branch -D old\necho two > two.txt',
      });
      const summary = await handle.settled;
      expect(summary.agents.map((agent) => agent.status)).toEqual(['completed', 'completed']);
      const all = handle
        .getSnapshot()
        .agents.flatMap((agent) => agent.warnings)
        .join('\n');
      expect(all.match(/v1 was deleted/g)).toHaveLength(1);
      expect(all.match(/dev was moved/g)).toHaveLength(1);
      expect(all.match(/old was deleted/g)).toHaveLength(1);
      expect(git(sandbox.repo, 'show', `hydra/${handle.runId}/scripted2:two.txt`)).toBe('two\n');
      await handle.finish();
      expectUserStateUnchanged(sandbox.repo, before);
    } finally {
      unregisterSecond();
    }
  });
});
