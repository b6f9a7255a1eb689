/**
 * Issue 9, case 3: the stash is never lost. `refs/stash` is shared by every worktree of a
 * repository, so an agent's `git stash` commands act on the user's stash list. hydra snapshots it
 * when the race starts and, when the agent settles, puts it back entry for entry and says so.
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
import { raceScript, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
  // The user's stash: two entries, the newest with a message of its own.
  writeFileSync(path.join(sandbox.repo, 'app.txt'), 'line 1\nuser change one\n');
  git(sandbox.repo, 'stash', 'push', '-q');
  writeFileSync(path.join(sandbox.repo, 'app.txt'), 'line 1\nuser change two\n');
  git(sandbox.repo, 'stash', 'push', '-q', '-m', 'half-done refactor');
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

describe("an agent's stash commands", () => {
  it.each([
    ['stash then pop in a clean worktree (pops the user’s entry)', 'git stash\ngit stash pop'],
    ['stash then pop, and fail', 'git stash\ngit stash pop\nexit 3'],
    ['stash drop', 'git stash drop'],
    ['stash clear', 'git stash clear'],
    ['stash pop twice', 'git stash pop\ngit reset -q --hard\ngit stash pop'],
  ])('%s: the user’s stash list is as it was, and the agent is told', async (_name, body) => {
    const before = captureUserState(sandbox.repo);
    expect(before.stash.trim().split('\n')).toHaveLength(2);
    handle = raceScript(sandbox, body);
    const summary = await handle.settled;
    const agent = handle.getSnapshot().agents[0]!;
    expect(agent.warnings.join('\n')).toMatch(/The stash changed during the race .*put the list back/);
    expect(summary.agents[0]?.warnings?.join('\n')).toMatch(/The stash changed/);
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
    expect(git(sandbox.repo, 'stash', 'list')).toMatch(/stash@\{0\}: On main: half-done refactor/);
    expectNoProcessOfRun(handle.runId);
    expectRecordsReadable(sandbox.repo);
  });

  it("an entry the agent stashed and left is taken off the user's list and named, so it can be applied", async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(
      sandbox,
      'echo "agent work" > agent.txt\ngit add agent.txt\ngit stash push -q -m agent-wip',
    );
    await handle.settled;
    const warning = handle.getSnapshot().agents[0]!.warnings.join('\n');
    const sha = /git stash apply ([0-9a-f]{12})/.exec(warning)?.[1];
    expect(sha).toBeDefined();
    expect(git(sandbox.repo, 'show', `${sha}:agent.txt`)).toBe('agent work\n');
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it('a race whose agent leaves the stash alone says nothing about it', async () => {
    const before = captureUserState(sandbox.repo);
    handle = raceScript(sandbox, 'echo hi > hi.txt');
    await handle.settled;
    expect(handle.getSnapshot().agents[0]!.warnings).toEqual([]);
    await handle.finish();
    expectUserStateUnchanged(sandbox.repo, before);
  });
});
