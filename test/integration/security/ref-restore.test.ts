/**
 * Issue 21, cases 1 and 6: the ref restore cannot destroy, and guards every shared ref. An agent
 * that renames `dev` to `dev/x` (a ref in the way of `dev`), renames the checked-out `main`, moves
 * a tag under a folder of its own name, forges `origin/main`, adds `origin/release`, a replacement
 * object or a note, or points the user's HEAD at another branch: each is put back (a renamed branch
 * with its reflog) and named; what cannot be put back is said with the `git update-ref` commands
 * that would, and nothing else is lost.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { captureUserState, expectUserStateUnchanged } from '../../support/fault-invariants.js';
import { raceScript, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;
let devTip: string;

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
  git(sandbox.repo, 'tag', 'v1');
  git(sandbox.repo, 'checkout', '-q', '-b', 'dev');
  writeFileSync(path.join(sandbox.repo, 'dev.txt'), 'the user’s dev work\n');
  git(sandbox.repo, 'add', 'dev.txt');
  git(sandbox.repo, 'commit', '-q', '-m', 'dev work');
  devTip = git(sandbox.repo, 'rev-parse', 'dev').trim();
  git(sandbox.repo, 'checkout', '-q', 'main');
  // A remote-tracking branch, as a clone has.
  git(sandbox.repo, 'update-ref', 'refs/remotes/origin/main', 'main');
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

const warningsOf = (): string => handle!.getSnapshot().agents[0]!.warnings.join('\n');
const reflogOf = (ref: string): string[] =>
  git(sandbox.repo, 'reflog', 'show', '--format=%gs', ref, '--')
    .split('\n')
    .filter((line) => line !== '');
/** The agent's way to the user's checkout: the repository its worktree belongs to. */
const USER_REPO = 'repo=$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")';

describe('a restore that cannot destroy', () => {
  it('git branch -m dev dev/x: dev comes back with its reflog, dev/x is gone', async () => {
    const before = captureUserState(sandbox.repo);
    const reflog = reflogOf('dev');
    handle = raceScript(sandbox, 'git branch -m dev dev/x\necho a > a.txt');
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    expect(warningsOf()).toMatch(/dev was renamed to dev\/x during the race .*renamed it back/);
    expect(git(sandbox.repo, 'rev-parse', 'dev').trim()).toBe(devTip);
    expect(git(sandbox.repo, 'for-each-ref', 'refs/heads/dev/').trim()).toBe('');
    // The user's reflog of dev is kept (git adds the renames to it).
    expect(reflogOf('dev').slice(-reflog.length)).toEqual(reflog);
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it('the checked-out main renamed to main/x: main and the checkout on it come back', async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(sandbox, `${USER_REPO}\ngit -C "$repo" branch -m main main/x`);
    await handle.settled;
    expect(warningsOf()).toMatch(/main was renamed to main\/x .*renamed it back/);
    expect(git(sandbox.repo, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it('a deleted branch and tag with an agent’s ref in their way (dev/x, v1/x at other commits): both come back', async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(
      sandbox,
      [
        'echo a > a.txt && git add a.txt && git commit -q -m "agent work"',
        'git branch -D dev',
        'git branch dev/x HEAD',
        'git tag -d v1',
        'git tag v1/x HEAD',
      ].join('\n'),
    );
    await handle.settled;
    const warnings = warningsOf();
    expect(warnings).toMatch(/dev was deleted during the race .*restored it/);
    expect(warnings).toMatch(/v1 was deleted during the race .*restored it/);
    expect(warnings).toMatch(/dev\/x was created .*deleted it/);
    expect(warnings).not.toMatch(/could not put back/);
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it('a moved and a created tag: put back, with the git tag commands that set the agent’s again', async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(
      sandbox,
      [
        'echo a > a.txt && git add a.txt && git commit -q -m "agent work"',
        'git tag -f v1 HEAD',
        'git tag v2 HEAD',
      ].join('\n'),
    );
    await handle.settled;
    const agentTip = /v2 was created during the race at ([0-9a-f]+)/.exec(warningsOf())?.[1] ?? '';
    const warnings = warningsOf();
    expect(warnings).toMatch(
      new RegExp(`v1 was moved .*moved it back \\(\`git tag -f v1 [0-9a-f]+\` sets the agent's again\\)`),
    );
    expect(warnings).toContain(`hydra deleted it (\`git tag v2 ${agentTip}`);
    expect(warnings).not.toMatch(/git reflog v1|git branch|update-ref refs\/tags/);
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it('what cannot be put back stops the restore and names the exact git update-ref commands', async () => {
    // dev/x is checked out in a worktree of the user's: hydra leaves it, so dev cannot come back.
    const other = path.join(sandbox.dir, 'other');
    git(sandbox.repo, 'worktree', 'add', '-q', '--detach', other, 'main');
    handle = raceScript(sandbox, `git branch -D dev\ngit -C ${other} checkout -q -b dev/x`);
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    const warnings = warningsOf();
    expect(warnings).toMatch(/hydra could not put back every ref changed during the race/);
    expect(warnings).toContain(`git update-ref refs/heads/dev ${devTip}`);
    // Following the advice brings dev back once dev/x is out of the way.
    git(other, 'checkout', '-q', '--detach');
    git(sandbox.repo, 'update-ref', '-d', 'refs/heads/dev/x');
    git(sandbox.repo, 'update-ref', 'refs/heads/dev', devTip);
    expect(git(sandbox.repo, 'show', 'dev:dev.txt')).toBe('the user’s dev work\n');
  });
});

describe('every shared ref is guarded', () => {
  it('a forged origin/main, a new origin/release, a replacement and a note: all put back and named', async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(
      sandbox,
      [
        'forged=$(git commit-tree -m "forged" "HEAD^{tree}")',
        'git update-ref refs/remotes/origin/main "$forged"',
        'git update-ref refs/remotes/origin/release "$forged"',
        'git replace "$(git rev-parse HEAD)" "$forged"',
        'git notes add -m "agent note" HEAD',
      ].join('\n'),
    );
    await handle.settled;
    const warnings = warningsOf();
    expect(warnings).toMatch(/origin\/main was moved during the race .*moved it back/);
    expect(warnings).toMatch(/origin\/release was created during the race .*deleted it/);
    expect(warnings).toMatch(/refs\/replace\/[0-9a-f]+ was created/);
    expect(warnings).toMatch(/refs\/notes\/commits was created/);
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
    // `git checkout release` has nothing to check out.
    expect(() => git(sandbox.repo, 'rev-parse', '--verify', '-q', 'origin/release')).toThrow();
  });

  it("the user's HEAD pointed at another branch without its files changing: pointed back", async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(sandbox, `${USER_REPO}\ngit -C "$repo" symbolic-ref HEAD refs/heads/dev`);
    await handle.settled;
    expect(warningsOf()).toMatch(/pointed from main at dev during the race .*pointed it back/);
    expect(git(sandbox.repo, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it('a branch the agent adds under hydra/<a name no run has>/ is deleted too', async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(sandbox, 'git branch hydra/nobody/x HEAD');
    await handle.settled;
    expect(warningsOf()).toMatch(/hydra\/nobody\/x was created .*deleted it/);
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it('a ref the agent adds in a namespace of its own (refs/evil/x) is deleted too', async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(sandbox, 'git update-ref refs/evil/x HEAD');
    await handle.settled;
    expect(warningsOf()).toMatch(/refs\/evil\/x was created .*deleted it/);
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
  });
});
