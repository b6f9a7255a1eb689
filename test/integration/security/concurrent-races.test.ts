/**
 * Issue 35, case 10: two races at once in one repository never touch each other's refs. The slower
 * race's ref restore once deleted the faster race's result branch as "created during the race" (and
 * `hydra merge` on it then failed), and brought back a branch the other race had deleted itself.
 * Each race's agent is a script; the slow one waits at a gate the test opens, so the overlap is
 * certain, not timing luck.
 */
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { git, makeSandbox, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { registerScriptAgent, writeScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
const handles: RaceHandle[] = [];
const unregister: Array<() => void> = [];
let gate: string;

beforeEach(() => {
  sandbox = makeSandbox();
  gate = path.join(sandbox.dir, 'gate');
  for (const id of ['slow', 'fast', 'broken']) unregister.push(registerScriptAgent(id));
});

afterEach(async () => {
  writeFileSync(gate, '');
  for (const handle of handles.splice(0)) await handle.cancel();
  for (const undo of unregister.splice(0)) undo();
  sandbox.cleanup();
});

const agentPlan = (id: string, binary: string) => ({
  adapterId: id,
  binary,
  extraArgs: [],
  env: {},
  idleTimeoutMs: 30_000,
});

/** A race of `slow`, which writes `started` and then waits for the gate. */
function startSlowRace(): RaceHandle {
  const started = path.join(sandbox.dir, 'slow-started');
  const body = `: > '${started}'\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\necho slow > slow.txt`;
  const handle = startRace(
    raceOptions(sandbox, [agentPlan('slow', writeScriptAgent(sandbox, body, 'slow'))], { runId: 'slow-run' }),
  );
  handles.push(handle);
  return handle;
}

/** A race of `fast` (a result) and, when asked, `broken` (exits 1 without one: its branch goes at the end). */
function startFastRace(withBroken: boolean): RaceHandle {
  const agents = [agentPlan('fast', writeScriptAgent(sandbox, 'echo fast > fast.txt', 'fast'))];
  if (withBroken) {
    const broken = path.join(sandbox.dir, 'broken-agent');
    writeFileSync(broken, '#!/bin/sh\nexit 1\n');
    chmodSync(broken, 0o755);
    agents.push(agentPlan('broken', broken));
  }
  const handle = startRace(raceOptions(sandbox, agents, { runId: 'fast-run' }));
  handles.push(handle);
  return handle;
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const branchTip = (ref: string): string | null => {
  try {
    return git(sandbox.repo, 'rev-parse', '--verify', '-q', ref).trim();
  } catch {
    return null;
  }
};

describe('two races at once in one repository', () => {
  it("the slower race's restore keeps the faster race's result branch, which then merges", async () => {
    const slow = startSlowRace();
    await waitFor(() => existsSync(path.join(sandbox.dir, 'slow-started')), 'the slow agent starting');
    // The fast race starts after the slow one's snapshot and ends before the slow agent settles.
    const fast = startFastRace(false);
    const fastSummary = await fast.settled;
    expect(fastSummary.agents[0]?.status).toBe('completed');
    await fast.finish();
    const fastTip = branchTip('refs/heads/hydra/fast-run/fast');
    expect(fastTip).not.toBeNull();

    writeFileSync(gate, '');
    const slowSummary = await slow.settled;
    expect(slowSummary.agents[0]?.status).toBe('completed');
    expect(slow.getSnapshot().agents[0]?.warnings.join('\n')).not.toMatch(/fast-run/);
    await slow.finish();
    expect(branchTip('refs/heads/hydra/fast-run/fast')).toBe(fastTip);
    expect(git(sandbox.repo, 'show', 'hydra/fast-run/fast:fast.txt')).toBe('fast\n');
    // The result merges as any other.
    git(sandbox.repo, 'merge', '-q', '--no-edit', 'hydra/fast-run/fast');
    expect(git(sandbox.repo, 'show', 'HEAD:fast.txt')).toBe('fast\n');
  });

  it('a branch the other race deletes itself (a failed agent’s, at its end) is not brought back', async () => {
    const fast = startFastRace(true);
    await waitFor(() => branchTip('refs/heads/hydra/fast-run/broken') !== null, 'the broken agent’s branch');
    const slow = startSlowRace();
    await waitFor(() => existsSync(path.join(sandbox.dir, 'slow-started')), 'the slow agent starting');
    // The slow race's snapshot holds the fast race's branches; the fast race ends and deletes broken's.
    const fastSummary = await fast.settled;
    expect(fastSummary.agents.find((agent) => agent.agent === 'broken')?.status).toBe('failed');
    await fast.finish();
    expect(branchTip('refs/heads/hydra/fast-run/broken')).toBeNull();

    writeFileSync(gate, '');
    await slow.settled;
    expect(slow.getSnapshot().agents[0]?.warnings.join('\n')).not.toMatch(/fast-run/);
    await slow.finish();
    expect(branchTip('refs/heads/hydra/fast-run/broken')).toBeNull();
    expect(branchTip('refs/heads/hydra/fast-run/fast')).not.toBeNull();
  });
});
