/**
 * Issue 23, shared dependencies: `[setup] share = ["node_modules"]` with no setup command. The
 * baseline's and the agents' checks (`node test.js`, which requires a package that is only in the
 * user's ignored node_modules) pass through the share; agents that write into and delete from
 * node_modules see their own writes, not each other's, and leave the user's copy byte for byte as
 * it was; nothing of the shares is left once the race is done.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../../src/engine/index.js';
import { runWorktreesDir } from '../../../../src/engine/records/index.js';
import { shareSupport } from '../../../../src/engine/setup/index.js';
import { hydra } from '../../../support/cli-helpers.js';
import { makeSandbox } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../../support/script-agent.js';
import { branchFile, makeNodeProject, treeState } from '../../../support/share-project.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
const unregister: Array<() => void> = [];

beforeEach(() => {
  sandbox = makeSandbox();
  unregister.push(registerScriptAgent('share-a'), registerScriptAgent('share-b'));
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  for (const undo of unregister.splice(0)) undo();
  sandbox.cleanup();
});

/** An agent that changes node_modules, waits for the other to have done the same, and lists what it sees. */
const agentBody = (me: string): string =>
  [
    `echo ${me} > node_modules/wrote-by-${me}`,
    'echo "// changed" >> node_modules/leftpad/index.js',
    'rm node_modules/leftpad/extra.txt',
    'rm -rf node_modules/unused',
    'sleep 1',
    'ls node_modules > seen.txt',
    'git add seen.txt',
    `git commit -q -m "what ${me} saw"`,
  ].join('\n');

describe('[setup] share (issue 23)', () => {
  it('shares node_modules copy-on-write: checks pass through it, agents keep their writes apart, the checkout is untouched', async () => {
    expect(shareSupport().kind).toBe('overlay');
    makeNodeProject(sandbox.repo);
    const before = treeState(path.join(sandbox.repo, 'node_modules'));

    handle = raceScripts(
      sandbox,
      { 'share-a': agentBody('share-a'), 'share-b': agentBody('share-b') },
      {
        setup: { run: [], runSource: null, timeoutMs: 60_000, copy: [], share: ['node_modules'] },
        checks: [{ name: 'test', run: 'node test.js', timeoutMs: 60_000, gate: true }],
      },
    );
    await handle.settled;
    const summary = await handle.finish();

    expect(summary.baseline?.checks.map((check) => [check.status, check.output])).toEqual([
      ['passed', 'leftpad ok'],
    ]);
    for (const agent of summary.agents) {
      expect(agent.status).toBe('completed');
      expect(agent.checks?.map((check) => [check.status, check.output])).toEqual([['passed', 'leftpad ok']]);
    }
    // Each saw its own write and its deletion, not the other's write.
    const seenA = branchFile(sandbox.repo, summary.agents[0]?.branch ?? '', 'seen.txt');
    const seenB = branchFile(sandbox.repo, summary.agents[1]?.branch ?? '', 'seen.txt');
    expect(seenA.split('\n')).toEqual(['leftpad', 'wrote-by-share-a', '']);
    expect(seenB.split('\n')).toEqual(['leftpad', 'wrote-by-share-b', '']);
    // Each pane says how its directories were shared.
    for (const agent of handle.getSnapshot().agents)
      expect(agent.recentEvents).toContainEqual(
        expect.objectContaining({
          kind: 'progress',
          stage: 'shared',
          detail: 'node_modules by overlay (copy-on-write)',
        }),
      );
    // The user's copy: every file, its bytes and its mode, as before.
    expect(treeState(path.join(sandbox.repo, 'node_modules'))).toEqual(before);
    expect(handle.getSnapshot().warnings.filter((warning) => warning.includes('share'))).toEqual([]);
    // The layers went with the worktrees.
    expect(existsSync(runWorktreesDir(sandbox.worktreeRoot, sandbox.repo, summary.runId))).toBe(false);
  });

  it('hydra doctor says the share is an overlay here', async () => {
    const doctor = await hydra(['doctor'], { cwd: sandbox.repo, env: process.env });
    expect(doctor.stdout).toContain(
      "[setup] share: overlay (copy-on-write) in each agent's mount namespace: no copy, the checkout's copy is read-only to agents",
    );
  });

  it('refuses a shared directory git tracks, before any worktree is made', async () => {
    makeNodeProject(sandbox.repo);
    handle = raceScripts(
      sandbox,
      { 'share-a': 'true' },
      { setup: { run: [], runSource: null, timeoutMs: 60_000, copy: [], share: ['lib'] } },
    );
    await handle.settled;
    const summary = await handle.finish();
    expect(summary.error?.kind).toBe('InvalidConfig');
    expect(summary.error?.message).toContain('[setup] share = "lib": lib holds files git tracks');
  });
});
