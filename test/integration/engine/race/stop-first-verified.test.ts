/**
 * `--stop first-verified` with cross-testing (issue 38): a result is verified once it passes every
 * check and the reproductions its settled rivals wrote. Script agents, real git, real `node --test`;
 * the agents wait for a file the test writes, so the order they finish in is the test's, not the
 * clock's.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RaceHandle, RaceSnapshot } from '../../../../src/engine/index.js';
import { makeSandbox, waitForSnapshot } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../../support/script-agent.js';
import { agentOf } from '../../../support/race-summary.js';
import { sedInPlace } from '../../../support/posix-edit.js';

import { makeProject, NODE_TEST, FIX, writeTest } from '../../../support/add-project.js';
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

/** Fixes add and proves it (a reproduction), but breaks mul: its checks (the base's suite) fail. */
const REPRODUCER = [
  FIX,
  sedInPlace('s/a [*] b/a * b + 1/', 'lib.js'),
  writeTest('add.test.js', "test('adds', () => assert.equal(add(2, 3), 5));"),
].join('\n');

/** Passes the suite without fixing add: every check passes, the reproduction does not. */
const FAKER = writeTest('ok.test.js', "test('works', () => assert.ok(true));");

/** Waits for the test to write `flag` (in the sandbox), then runs `body`. */
const after = (flag: string, body: string): string =>
  `while [ ! -e '${flag}' ]; do sleep 0.05; done\n${body}`;

const settledWithChecks = (snapshot: RaceSnapshot, agent: string): boolean => {
  const item = snapshot.agents.find((entry) => entry.agent === agent);
  return item?.status === 'completed' && item.checks !== null && !item.checking;
};

const start = (box: Sandbox, bodies: Record<string, string>): RaceHandle => {
  for (const id of Object.keys(bodies)) unregister.push(registerScriptAgent(id));
  handle = raceScripts(box, bodies, { checks: [NODE_TEST], stopFirstVerified: { graceMs: 0 } });
  return handle;
};

describe('--stop first-verified with cross-testing', () => {
  it("does not stop the others for a result that passes the checks but fails a rival's reproduction", async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const goFaker = path.join(sandbox.dir, 'go-faker');
    const goSlow = path.join(sandbox.dir, 'go-slow');
    const race = start(sandbox, {
      reproducer: REPRODUCER,
      faker: after(goFaker, FAKER),
      slow: after(goSlow, FIX),
    });

    await waitForSnapshot(race, (snapshot) => settledWithChecks(snapshot, 'reproducer'), 60_000);
    writeFileSync(goFaker, '');
    const judged = await waitForSnapshot(
      race,
      (snapshot) => snapshot.warnings.some((warning) => warning.startsWith("faker's result passed")),
      60_000,
    );
    expect(judged.warnings).toContain(
      "faker's result passed every check but not reproducer's add.test.js: it is not verified, and the others race on (--stop first-verified)",
    );
    expect(judged.agents.find((agent) => agent.agent === 'slow')?.status).toBe('running');
    writeFileSync(goSlow, '');
    const summary = await race.settled;

    expect(agentOf(summary, 'faker').checks?.[0]?.status).toBe('passed');
    expect(agentOf(summary, 'slow').status).toBe('completed');
    expect(summary.stoppedEarly).toBeUndefined();
    // The race's own cross-testing ran as usual once everyone was in; its check-out left nothing.
    expect(agentOf(summary, 'reproducer').newTests?.reproductions).toBe(1);
    const left = readdirSync(sandbox.worktreeRoot, { recursive: true }).map(String);
    expect(left.filter((entry) => entry.includes('.verify'))).toEqual([]);
  }, 240_000);

  it("stops the others once a result passes the checks and every settled rival's reproduction", async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const goFixer = path.join(sandbox.dir, 'go-fixer');
    const never = path.join(sandbox.dir, 'never');
    const race = start(sandbox, {
      reproducer: REPRODUCER,
      fixer: after(goFixer, FIX),
      slow: after(never, FIX),
    });

    await waitForSnapshot(race, (snapshot) => settledWithChecks(snapshot, 'reproducer'), 60_000);
    writeFileSync(goFixer, '');
    const summary = await race.settled;

    expect(summary.stoppedEarly).toEqual({ by: 'fixer', agents: ['slow'] });
    expect(agentOf(summary, 'slow').status).toBe('cancelled');
    expect(summary.agents.map((agent) => agent.agent)).toEqual(['reproducer', 'fixer', 'slow']);
  }, 240_000);
});
