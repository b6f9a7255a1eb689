import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { activeContainment, startRace } from '../../../../src/engine/index.js';
import type { AgentEventRecord, RaceHandle } from '../../../../src/engine/index.js';
import {
  alive,
  eventually,
  groupMembers,
  installAgents,
  makeSandbox,
  pidRecords,
  plan,
  processesOfRun,
  raceOptions,
  waitForSnapshot,
} from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

/** Running and past its first output line (so the fake agent's signal handlers are installed). */
const allRunning = (agents: string[]) => (snapshot: ReturnType<RaceHandle['getSnapshot']>) =>
  agents.every((agent) => {
    const item = snapshot.agents.find((candidate) => candidate.agent === agent);
    return item?.status === 'running' && item.lastOutputAt !== null;
  });

describe('process supervision', () => {
  it('stops an agent that goes quiet for longer than its idle timeout, with the reason', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {}, codex: { hangAfterLines: 2 } });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex', { idleTimeoutMs: 400 })]),
    );

    const summary = await handle.settled;

    const codex = summary.agents.find((agent) => agent.agent === 'codex')!;
    expect(codex.status).toBe('timed_out');
    expect(codex.error?.kind).toBe('TimedOut');
    expect(codex.error?.message).toMatch(/no output for 0\.4 s.*idle timeout/);
    // The hint names a flag and a config key that exist.
    expect(codex.error?.hint).toContain(
      '--idle-timeout <seconds>, or agents.codex.idle_timeout_s in hydra.toml',
    );
    expect(summary.agents.find((agent) => agent.agent === 'claude')?.status).toBe('completed');
    expect(processesOfRun(handle.runId)).toEqual([]);
  });

  it('stops an agent that runs past the overall time limit', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, {
      claude: { lines: Array.from({ length: 400 }, () => '{"type":"ping"}'), delayMs: 20 },
    });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')], { timeoutMs: 500 }));

    const summary = await handle.settled;

    expect(summary.agents[0]).toMatchObject({ status: 'timed_out', error: { kind: 'TimedOut' } });
    expect(summary.agents[0]?.error?.message).toMatch(/time limit/);
    // The hint names a flag and a config key that exist.
    expect(summary.agents[0]?.error?.hint).toContain('--timeout <seconds>, or race.timeout_s in hydra.toml');
    expect(processesOfRun(handle.runId)).toEqual([]);
  });

  it('cancelling mid-race stops every process, grandchildren included', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, {
      claude: { hangAfterLines: 1 },
      codex: { hangAfterLines: 1, spawnGrandchild: true },
      cursor: { hangAfterLines: 1, ignoreSigterm: true },
    });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex'), plan(sandbox, 'cursor')]),
    );
    await waitForSnapshot(handle, allRunning(['claude', 'codex', 'cursor']));
    await eventually(() => pidRecords(sandbox.repo, handle!.runId).length === 3, 10_000, 'pid records');
    const groups = pidRecords(sandbox.repo, handle.runId).map((record) => record.pgid);
    await eventually(() => groups.flatMap(groupMembers).length >= 4, 10_000, 'the grandchild to start');
    const before = processesOfRun(handle.runId);
    expect(before.length).toBeGreaterThanOrEqual(4);

    await handle.cancel();

    for (const pgid of groups) expect(groupMembers(pgid)).toEqual([]);
    expect(before.filter(alive)).toEqual([]);
    expect(processesOfRun(handle.runId)).toEqual([]);
    const snapshot = handle.getSnapshot();
    expect(snapshot.phase).toBe('cancelled');
    expect(snapshot.agents.map((agent) => agent.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    for (const agent of snapshot.agents) expect(existsSync(agent.worktree!)).toBe(false);
  });

  it('SIGKILLs an agent that ignores SIGTERM once the grace period is over', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: { hangAfterLines: 1, ignoreSigterm: true }, codex: {} });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
    await waitForSnapshot(handle, allRunning(['claude']));
    const events: AgentEventRecord[] = [];
    handle.onEvent((record) => events.push(record));

    handle.stopAgent('claude');
    const summary = await handle.settled;

    expect(summary.agents.find((agent) => agent.agent === 'claude')?.status).toBe('cancelled');
    const failed = events.find((record) => record.agent === 'claude' && record.event.kind === 'failed');
    expect(failed?.event).toMatchObject({
      kind: 'failed',
      signal: 'SIGKILL',
      error: { kind: 'Interrupted' },
    });
    expect(summary.agents.find((agent) => agent.agent === 'codex')?.status).toBe('completed');
    expect(processesOfRun(handle.runId)).toEqual([]);
  });

  it('kills what an agent left running in its group when it exits', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: { spawnGrandchild: true } });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    expect(processesOfRun(handle.runId)).toEqual([]);
  });

  it('turns garbage lines into parse_error events and still completes', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: { garbage: true } });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    const events: AgentEventRecord[] = [];
    handle.onEvent((record) => events.push(record));
    const summary = await handle.settled;
    expect(events.filter((record) => record.event.kind === 'parse_error').length).toBeGreaterThan(0);
    expect(summary.agents[0]?.status).toBe('completed');
  });

  it('marks an agent that crashes without a result as failed', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, {
      codex: { crashAfterLines: 2, stderr: 'segmentation fault (core dumped)\n' },
    });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'codex')]));
    const summary = await handle.settled;
    // The fake exits 139 after a crash: in a PID namespace the init's shell cannot tell that from a
    // death by SIGSEGV (128 + 11) and the signal is named; in a process group the code is exact.
    const agent = summary.agents[0];
    expect(agent?.status).toBe('failed');
    if (activeContainment().kind === 'pid-namespace')
      expect(agent?.error?.message).toContain('killed by SIGSEGV');
    else expect(agent?.exitCode).toBe(139);
  });

  it('reports a line over the size cap as a parse_error and keeps reading', async () => {
    sandbox = makeSandbox();
    const huge = `{"type":"assistant","pad":"${'x'.repeat(1_100_000)}"}`;
    await installAgents(sandbox, {
      cursor: { lines: [huge, '{"type":"result","subtype":"success","is_error":false,"result":"done"}'] },
    });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'cursor')]));
    const events: AgentEventRecord[] = [];
    handle.onEvent((record) => events.push(record));
    const summary = await handle.settled;
    const oversize = events.find((record) => record.event.kind === 'parse_error');
    expect(oversize?.event).toMatchObject({
      kind: 'parse_error',
      reason: expect.stringMatching(/1100\d+ bytes is over/),
    });
    expect(summary.agents[0]?.status).toBe('completed');
  });
});
