/**
 * Fault: the path of an agent's worktree, or its branch, already exists when a race starts (an
 * earlier run's left-over, or something of the user's with that name). hydra refuses that agent's
 * worktree with an error that names the path or branch and how to fix it, touches neither, and
 * rolls back the other agents' worktrees.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWorktreesDir } from '../../../src/engine/records/index.js';
import { startRace } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import {
  git,
  installAgents,
  makeSandbox,
  plan,
  raceOptions,
  waitForSnapshot,
} from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
  extraWorktrees,
  hydraBranches,
} from '../../support/fault-invariants.js';

const RUN_ID = '20261123-120000-beef';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

beforeEach(async () => {
  sandbox = makeSandbox();
  await installAgents(sandbox, { claude: {}, codex: {} });
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

const raceToTheEnd = async () => {
  handle = startRace({
    ...raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]),
    runId: RUN_ID,
  });
  return waitForSnapshot(handle, (snapshot) => snapshot.phase === 'failed', 20_000);
};

describe('a worktree path or branch that already exists', () => {
  it('a directory at the worktree path is refused, named, and left as it was', async () => {
    const root = git(sandbox.repo, 'rev-parse', '--show-toplevel').trim();
    const dir = path.join(runWorktreesDir(sandbox.worktreeRoot, root, RUN_ID), 'codex');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'mine.txt'), 'not hydra’s\n');
    const before = captureUserState(sandbox.repo);

    const snapshot = await raceToTheEnd();

    expect(snapshot.error?.message).toBe(`The worktree directory ${dir} already exists.`);
    expect(snapshot.error?.hint).toMatch(/hydra clean/);
    const codex = snapshot.agents.find((agent) => agent.agent === 'codex');
    expect(codex).toMatchObject({ status: 'failed', error: { kind: 'SpawnFailed' } });
    expect(readFileSync(path.join(dir, 'mine.txt'), 'utf8')).toBe('not hydra’s\n');
    expectUserStateUnchanged(sandbox.repo, before);
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
    expect(hydraBranches(sandbox.repo)).toEqual([]);
    expectNoProcessOfRun(RUN_ID);
    expectRecordsReadable(sandbox.repo);
  });

  it('a branch of that name is refused, named, and not moved or deleted', async () => {
    git(sandbox.repo, 'commit', '-q', '--allow-empty', '-m', 'work of mine');
    git(sandbox.repo, 'branch', `hydra/${RUN_ID}/codex`);
    git(sandbox.repo, 'reset', '-q', '--hard', 'HEAD~1');
    const tip = git(sandbox.repo, 'rev-parse', `hydra/${RUN_ID}/codex`).trim();
    const before = captureUserState(sandbox.repo);

    const snapshot = await raceToTheEnd();

    expect(snapshot.error?.message).toBe(`Branch hydra/${RUN_ID}/codex already exists.`);
    expect(snapshot.error?.hint).toMatch(/hydra clean.*git branch -m/);
    expect(snapshot.agents.find((agent) => agent.agent === 'codex')).toMatchObject({ status: 'failed' });
    expect(git(sandbox.repo, 'rev-parse', `hydra/${RUN_ID}/codex`).trim()).toBe(tip);
    expectUserStateUnchanged(sandbox.repo, before);
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
    expect(hydraBranches(sandbox.repo)).toEqual([`hydra/${RUN_ID}/codex`]);
    expectNoProcessOfRun(RUN_ID);
  });
});
