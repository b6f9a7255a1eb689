/**
 * The agent machine with a fake process and fake commit step, driven by fake timers: every
 * transition (spawning → running → stopping → finalizing → settled) and every stop reason.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ev } from '../../../../src/core/events.js';
import type {
  AgentLaunch,
  AgentProcessCommand,
  AgentProcessEvent,
  FinalizeInput,
} from '../../../../src/engine/agent/agent-types.js';
import { startAgent, testLaunch } from '../../../support/agent-harness.js';

interface FakeProcess {
  sendBack: (event: AgentProcessEvent) => void;
  commands: AgentProcessCommand[];
  tornDown: boolean;
}

let processes: FakeProcess[];
let finalized: FinalizeInput[];
let finalizeFails: boolean;
let actor: { stop: () => void } | null;

const start = (overrides: Partial<AgentLaunch> = {}, extra: { stopAtStart?: boolean } = {}) => {
  const run = startAgent(
    {
      process: ({ sendBack, receive }) => {
        const fake: FakeProcess = { sendBack, commands: [], tornDown: false };
        processes.push(fake);
        receive((command) => fake.commands.push(command));
        return () => {
          fake.tornDown = true;
        };
      },
      finalize: async (input) => {
        finalized.push(input);
        if (finalizeFails) throw new Error('disk full');
        return {
          commit: 'c0ffee',
          diff: {
            filesChanged: 1,
            insertions: 2,
            deletions: 0,
            files: [{ path: 'a', insertions: 2, deletions: 0 }],
          },
        };
      },
    },
    testLaunch(overrides),
    extra,
  );
  actor = run;
  return {
    errors: run.errors,
    proc: () => processes[0]!,
    agentState: run.state,
    reports: run.reports,
    send: run.send,
  };
};

const completed = ev({ kind: 'completed', result: 'done' });
const failed = ev({ kind: 'failed', error: { kind: 'AgentFailed', message: 'boom', hint: 'h' } });

beforeEach(() => {
  vi.useFakeTimers();
  processes = [];
  finalized = [];
  finalizeFails = false;
  actor = null;
});

afterEach(() => {
  actor?.stop();
  vi.useRealTimers();
});

describe('agent machine', () => {
  it('goes spawning → running → finalizing → settled(completed) and reports each step', async () => {
    const run = start();
    expect(run.agentState()).toEqual({ live: 'spawning' });
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    expect(run.agentState()).toEqual({ live: { running: 'watching' } });
    run
      .proc()
      .sendBack({ type: 'OUTPUT', at: 2, events: [ev({ kind: 'message', role: 'assistant', text: 'hi' })] });
    run.proc().sendBack({ type: 'EXITED', at: 3, terminal: completed, exitCode: 0, stoppedBy: null });
    await vi.advanceTimersByTimeAsync(0);

    expect(run.reports().map((report) => report.type)).toEqual([
      'AGENT.SPAWNED',
      'AGENT.OUTPUT',
      'AGENT.EXITED',
      'AGENT.SETTLED',
    ]);
    expect(run.reports()[3]).toMatchObject({
      status: 'completed',
      commit: 'c0ffee',
      diff: { filesChanged: 1 },
    });
    expect(finalized[0]).toMatchObject({ worktree: '/w', branch: 'hydra/x/claude', baseRef: 'base' });
    expect(finalized[0]?.message).toMatch(/claude result \(completed\)/);
    expect(run.proc().tornDown).toBe(true);
    expect(run.errors).toEqual([]);
  });

  it('settles as failed when the process ends with a failed event', async () => {
    const run = start();
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    run.proc().sendBack({ type: 'EXITED', at: 3, terminal: failed, exitCode: 1, stoppedBy: null });
    await vi.advanceTimersByTimeAsync(0);
    expect(run.reports().at(-1)).toMatchObject({ type: 'AGENT.SETTLED', status: 'failed' });
  });

  it('handles a process that fails to spawn (EXITED while spawning)', async () => {
    const run = start();
    run.proc().sendBack({ type: 'EXITED', at: 1, terminal: failed, exitCode: null, stoppedBy: null });
    await vi.advanceTimersByTimeAsync(0);
    expect(run.reports().map((report) => report.type)).toEqual(['AGENT.EXITED', 'AGENT.SETTLED']);
  });

  it('stops an idle agent after its idle timeout, and output re-arms the timer', async () => {
    const run = start({ idleTimeoutMs: 1000 });
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    await vi.advanceTimersByTimeAsync(900);
    run.proc().sendBack({ type: 'OUTPUT', at: 2, events: [] });
    await vi.advanceTimersByTimeAsync(900);
    expect(run.proc().commands).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    expect(run.proc().commands).toEqual([{ type: 'TERMINATE', reason: 'idle_timeout' }]);
    expect(run.agentState()).toEqual({ live: 'stopping' });
  });

  it('sends KILL when the process outlives the grace period after TERMINATE', async () => {
    const run = start({ idleTimeoutMs: 1000, graceMs: 300 });
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(299);
    expect(run.proc().commands).toEqual([{ type: 'TERMINATE', reason: 'idle_timeout' }]);
    await vi.advanceTimersByTimeAsync(1);
    expect(run.proc().commands).toEqual([{ type: 'TERMINATE', reason: 'idle_timeout' }, { type: 'KILL' }]);
    run
      .proc()
      .sendBack({ type: 'EXITED', at: 5, terminal: failed, exitCode: null, stoppedBy: 'idle_timeout' });
    await vi.advanceTimersByTimeAsync(0);
    expect(run.reports().at(-1)).toMatchObject({ type: 'AGENT.SETTLED', status: 'timed_out' });
  });

  it('never stops an agent for idleness when the idle timeout is 0', async () => {
    const run = start({ idleTimeoutMs: 0 });
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(run.proc().commands).toEqual([]);
  });

  it('a limit longer than a Node timer can hold (about 24.8 days) does not stop the agent at once', async () => {
    const run = start({ idleTimeoutMs: 3_000_000_000, timeoutMs: 3_000_000_000 });
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(run.proc().commands).toEqual([]);
    expect(run.agentState()).toEqual({ live: { running: 'watching' } });
  });

  it('stops an agent that runs past the overall time limit, even while it keeps talking', async () => {
    const run = start({ idleTimeoutMs: 1000, timeoutMs: 5000 });
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    for (let i = 0; i < 9; i += 1) {
      await vi.advanceTimersByTimeAsync(500);
      run.proc().sendBack({ type: 'OUTPUT', at: i, events: [] });
    }
    expect(run.proc().commands).toEqual([]);
    await vi.advanceTimersByTimeAsync(500);
    expect(run.proc().commands).toEqual([{ type: 'TERMINATE', reason: 'timeout' }]);
    run.proc().sendBack({ type: 'EXITED', at: 9, terminal: failed, exitCode: null, stoppedBy: 'timeout' });
    await vi.advanceTimersByTimeAsync(0);
    expect(run.reports().at(-1)).toMatchObject({ status: 'timed_out' });
  });

  it('stops a process that lingers after printing its result, and still settles as completed', async () => {
    const run = start({ idleTimeoutMs: 60_000, resultGraceMs: 2000 });
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    run.proc().sendBack({ type: 'RESULT', at: 2, terminal: completed });
    // More output does not extend the grace.
    await vi.advanceTimersByTimeAsync(1000);
    run.proc().sendBack({ type: 'OUTPUT', at: 3, events: [] });
    await vi.advanceTimersByTimeAsync(999);
    expect(run.proc().commands).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(run.proc().commands).toEqual([{ type: 'TERMINATE', reason: 'after_result' }]);
    run
      .proc()
      .sendBack({ type: 'EXITED', at: 3, terminal: completed, exitCode: null, stoppedBy: 'after_result' });
    await vi.advanceTimersByTimeAsync(0);
    expect(run.reports().at(-1)).toMatchObject({ type: 'AGENT.SETTLED', status: 'completed' });
  });

  it('a process that exits on its own after its result is not stopped', async () => {
    const run = start({ resultGraceMs: 2000 });
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    run.proc().sendBack({ type: 'RESULT', at: 2, terminal: completed });
    await vi.advanceTimersByTimeAsync(500);
    run.proc().sendBack({ type: 'EXITED', at: 3, terminal: completed, exitCode: 0, stoppedBy: null });
    await vi.advanceTimersByTimeAsync(5000);
    expect(run.proc().commands).toEqual([]);
    expect(run.reports().at(-1)).toMatchObject({ type: 'AGENT.SETTLED', status: 'completed' });
  });

  it('STOP during the result grace stops the process but keeps the result', async () => {
    const run = start({ resultGraceMs: 30_000 });
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    run.proc().sendBack({ type: 'RESULT', at: 2, terminal: completed });
    run.send({ type: 'STOP' });
    expect(run.proc().commands).toEqual([{ type: 'TERMINATE', reason: 'after_result' }]);
    run
      .proc()
      .sendBack({ type: 'EXITED', at: 3, terminal: completed, exitCode: null, stoppedBy: 'after_result' });
    await vi.advanceTimersByTimeAsync(0);
    expect(run.reports().at(-1)).toMatchObject({ type: 'AGENT.SETTLED', status: 'completed' });
  });

  it('a failed result followed by a hang settles failed, not timed out', async () => {
    const run = start({ idleTimeoutMs: 60_000, resultGraceMs: 1000 });
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    run.proc().sendBack({ type: 'RESULT', at: 2, terminal: failed });
    expect(run.reports().at(-1)).toMatchObject({ type: 'AGENT.RESULT', terminal: { kind: 'failed' } });
    await vi.advanceTimersByTimeAsync(1000);
    expect(run.proc().commands).toEqual([{ type: 'TERMINATE', reason: 'after_result' }]);
    run
      .proc()
      .sendBack({ type: 'EXITED', at: 3, terminal: failed, exitCode: null, stoppedBy: 'after_result' });
    await vi.advanceTimersByTimeAsync(0);
    expect(run.reports().at(-1)).toMatchObject({ type: 'AGENT.SETTLED', status: 'failed' });
  });

  it('STOP while running terminates the process and settles as cancelled', async () => {
    const run = start();
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    run.send({ type: 'STOP' });
    expect(run.proc().commands).toEqual([{ type: 'TERMINATE', reason: 'cancel' }]);
    // Idle timers no longer apply while stopping.
    await vi.advanceTimersByTimeAsync(200);
    expect(run.proc().commands).toHaveLength(1);
    run.proc().sendBack({ type: 'EXITED', at: 2, terminal: failed, exitCode: null, stoppedBy: 'cancel' });
    await vi.advanceTimersByTimeAsync(0);
    expect(run.reports().at(-1)).toMatchObject({ type: 'AGENT.SETTLED', status: 'cancelled' });
  });

  it('an agent stopped before it started (while the worktrees were made) settles cancelled; nothing runs', async () => {
    const run = start({}, { stopAtStart: true });
    await vi.advanceTimersByTimeAsync(0);

    expect(processes).toEqual([]);
    expect(finalized).toEqual([]);
    expect(run.reports().map((report) => [report.type, 'status' in report ? report.status : null])).toEqual([
      ['AGENT.SETTLED', 'cancelled'],
    ]);
  });

  it('STOP while spawning terminates too', () => {
    const run = start();
    run.send({ type: 'STOP' });
    expect(run.proc().commands).toEqual([{ type: 'TERMINATE', reason: 'cancel' }]);
  });

  it('a stop that raced a natural exit keeps the real outcome (the process decides stoppedBy)', async () => {
    const run = start();
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    run.send({ type: 'STOP' });
    run.proc().sendBack({ type: 'EXITED', at: 2, terminal: completed, exitCode: 0, stoppedBy: null });
    await vi.advanceTimersByTimeAsync(0);
    expect(run.reports().at(-1)).toMatchObject({ status: 'completed' });
  });

  it('fails, with a warning, when the result cannot be committed (nothing committed is never completed)', async () => {
    finalizeFails = true;
    const run = start();
    run.proc().sendBack({ type: 'EXITED', at: 2, terminal: completed, exitCode: 0, stoppedBy: null });
    await vi.advanceTimersByTimeAsync(0);
    expect(run.reports().at(-1)).toMatchObject({
      status: 'failed',
      error: expect.objectContaining({ kind: 'AgentFailed', message: expect.stringMatching(/disk full/) }),
      diff: null,
      warnings: [expect.stringMatching(/disk full/)],
    });
  });

  it('tears the process down when the machine is stopped from outside', () => {
    const run = start();
    run.proc().sendBack({ type: 'SPAWNED', at: 1, pid: 42 });
    actor!.stop();
    expect(run.proc().tornDown).toBe(true);
  });
});
