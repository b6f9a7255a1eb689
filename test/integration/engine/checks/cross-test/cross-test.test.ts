/**
 * Issue 26, "Tests that prove the fix": in a project whose suite passes on the base (the bug has no
 * test yet), each agent's new tests run on the base, on its own result and on the others' results.
 * Three agents that are shell scripts: one fixes the bug and adds a test that fails on the base
 * (a reproduction), one fixes it without a test, one adds a test that passes everywhere and fixes
 * nothing. Real git, real `node --test`.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRun } from '../../../../../src/engine/index.js';
import { scoreRace } from '../../../../../src/engine/checks/index.js';
import { summaryLine } from '../../../../../src/cli/headless.js';
import type { RaceHandle, RaceSummary } from '../../../../../src/engine/index.js';
import { extraWorktrees } from '../../../../support/fault-invariants.js';
import { makeSandbox, processesOfRun, waitForSnapshot } from '../../../../support/engine-helpers.js';
import type { Sandbox } from '../../../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../../../support/script-agent.js';
import { agentOf } from '../../../../support/race-summary.js';

import { makeProject, NODE_TEST, FIX, writeTest } from '../../../../support/add-project.js';
let sandbox: Sandbox | null = null;
let handle: RaceHandle | null = null;
const unregister: Array<() => void> = [];

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  for (const undo of unregister.splice(0)) undo();
  sandbox?.cleanup();
  sandbox = null;
});

const REPRODUCTION = writeTest('add.test.js', "test('adds', () => assert.equal(add(2, 3), 5));");
const PROVES_NOTHING = writeTest('ok.test.js', "test('works', () => assert.ok(true));");

const race = async (
  bodies: Record<string, string>,
  extra: Parameters<typeof raceScripts>[2],
): Promise<RaceSummary> => {
  const box = sandbox;
  if (box === null) throw new Error('no sandbox');
  for (const id of Object.keys(bodies)) unregister.push(registerScriptAgent(id));
  handle = raceScripts(box, bodies, extra);
  await handle.settled;
  return handle.finish();
};

describe('cross-testing (issue 26)', () => {
  it("gives each agent its tests' evidence, and the reproduction's author wins --auto-merge best", async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const summary = await race(
      { fixer: `${FIX}\n${REPRODUCTION}`, quiet: FIX, faker: PROVES_NOTHING },
      { checks: [NODE_TEST], autoMerge: 'best' },
    );
    const fixer = agentOf(summary, 'fixer');
    const quiet = agentOf(summary, 'quiet');
    const faker = agentOf(summary, 'faker');
    // Every result passes the suite: the checks alone cannot tell them apart.
    for (const agent of [fixer, quiet, faker]) expect(agent.checks?.[0]?.status).toBe('passed');

    expect(fixer.newTests).toMatchObject({
      count: 1,
      failOnBase: 1,
      passOnSelf: 1,
      reproductions: 1,
      onOthers: { quiet: { passed: 1, failed: 0 }, faker: { passed: 0, failed: 1 } },
    });
    expect(fixer.newTests?.tests).toEqual([
      {
        file: 'add.test.js',
        runner: 'node',
        onBase: 'failed',
        onSelf: 'passed',
        onOthers: { quiet: 'passed', faker: 'failed' },
      },
    ]);
    expect(quiet.newTests).toBeUndefined();
    expect(faker.newTests).toMatchObject({
      count: 1,
      failOnBase: 0,
      passOnSelf: 1,
      reproductions: 0,
      onOthers: { fixer: { passed: 1, failed: 0 }, quiet: { passed: 1, failed: 0 } },
    });

    // The evidence part: a reproduction counts most, passing a rival's comes next, failing it loses.
    expect(fixer.score?.parts.evidence).toBe(1);
    expect(quiet.score?.parts.evidence).toBeCloseTo(1 / 3);
    expect(faker.score?.parts.evidence).toBe(0);
    const total = (agent: { score?: { total: number } }): number => agent.score?.total ?? -1;
    expect(total(fixer)).toBeGreaterThan(total(quiet));
    expect(total(quiet)).toBeGreaterThan(total(faker));

    // Flagged in both panes.
    expect(faker.warnings).toContain(
      "fails fixer's reproduction add.test.js (it fails on the base, passes on fixer's result)",
    );
    expect(fixer.warnings).toContain("faker's result fails its reproduction add.test.js");
    expect(quiet.warnings ?? []).toEqual([]);

    expect(summary.merged?.agent).toBe('fixer');

    // In the headless summary line too.
    expect(summaryLine(summary).agents.map((agent) => agent.newTests)).toEqual(
      summary.agents.map((agent) => agent.newTests),
    );

    // Reproducible from the run record.
    const box = sandbox;
    const record = await readRun(box.repo, summary.runId);
    expect(record.summary?.agents.map((agent) => agent.newTests)).toEqual(
      summary.agents.map((agent) => agent.newTests),
    );
    expect(
      scoreRace(record.summary?.agents ?? [], record.summary?.scoreWeights).map((score) => score.total),
    ).toEqual(summary.agents.map((agent) => agent.score?.total));

    // The cross-testing checkouts are gone, and no process of the run is left.
    expect(extraWorktrees(box.repo)).toEqual([]);
    expect(processesOfRun(summary.runId)).toEqual([]);
    const runDir = path.join(box.worktreeRoot);
    const leftovers = readdirSync(runDir, { recursive: true }).map(String);
    expect(leftovers.filter((entry) => /(?:^|\/)\.cross/.test(entry))).toEqual([]);
  }, 180_000);

  it('a race without new tests has no evidence part and no newTests', async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const summary = await race({ quiet: FIX }, { checks: [NODE_TEST] });
    const quiet = agentOf(summary, 'quiet');
    expect(quiet.newTests).toBeUndefined();
    expect(quiet.score?.parts).not.toHaveProperty('evidence');
  }, 60_000);

  it('a cancel while cross-testing stops the runs and leaves no checkout or process behind', async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const box = sandbox;
    unregister.push(registerScriptAgent('hanger'));
    // Its test hangs on the base (the bug is there) and passes on its result.
    const hang = writeTest(
      'hang.test.js',
      "test('adds', async () => { if (add(2, 3) !== 5) await new Promise((done) => setTimeout(done, 120_000)); });",
    );
    handle = raceScripts(
      box,
      { hanger: `${FIX}\n${hang}` },
      { checks: [{ ...NODE_TEST, timeoutMs: 120_000 }] },
    );
    const racing = handle;
    const settled = await waitForSnapshot(
      racing,
      (snapshot) =>
        snapshot.phase === 'cross_testing' &&
        snapshot.agents.every(
          (agent) => agent.status === 'completed' && agent.checks !== null && !agent.checking,
        ),
      90_000,
    );
    // The base's run of hang.test.js has started (its checkout is there).
    const crossBase = path.join(
      box.worktreeRoot,
      readdirSync(box.worktreeRoot)[0] ?? '',
      settled.runId,
      '.cross',
    );
    for (let i = 0; i < 200 && !existsSync(path.join(crossBase, 'hang.test.js')); i += 1)
      await new Promise((done) => setTimeout(done, 100));
    expect(existsSync(path.join(crossBase, 'hang.test.js'))).toBe(true);
    const started = Date.now();
    await racing.cancel();
    await racing.settled;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(racing.getSnapshot().phase).toBe('cancelled');
    expect(extraWorktrees(box.repo)).toEqual([]);
    expect(processesOfRun(settled.runId)).toEqual([]);
    expect(existsSync(crossBase)).toBe(false);
  }, 180_000);
});
