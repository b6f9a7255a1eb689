/** `--notify`: what is written, when, and where (src/cli/notify.ts). */
/* eslint-disable no-control-regex -- the sequences under test are control characters */
import { describe, expect, it } from 'vitest';
import { notificationSequence, notifyOnPhases, phaseMessage } from '../../../src/cli/notify.js';
import type { RaceHandle, RacePhase, RaceSnapshot } from '../../../src/engine/index.js';

const snapshot = (phase: RacePhase): RaceSnapshot =>
  ({
    runId: '20261101-100000-ab01',
    phase,
    agents: [{ status: 'completed' }, { status: 'failed' }],
  }) as unknown as RaceSnapshot;

/** A handle whose phase the test moves on. */
const fakeHandle = (): { handle: RaceHandle; go(phase: RacePhase): void } => {
  let current = snapshot('racing');
  const listeners = new Set<(next: RaceSnapshot) => void>();
  const handle = {
    getSnapshot: () => current,
    subscribe: (listener: (next: RaceSnapshot) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  } as unknown as RaceHandle;
  return {
    handle,
    go(phase) {
      current = snapshot(phase);
      for (const listener of listeners) listener(current);
    },
  };
};

const terminal = (isTTY: boolean) => {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
};

describe('the notification', () => {
  it('is a bell, an OSC 9 and an OSC 777 notification, each ended by BEL', () => {
    expect(notificationSequence('race x finished')).toBe(
      '\u0007\u001B]9;hydra: race x finished\u0007\u001B]777;notify;hydra;race x finished\u0007',
    );
  });

  it('carries no control character or separator a text could bring', () => {
    const sequence = notificationSequence('a\u001B]52;c;evil\u0007b');
    expect(sequence).toContain(']9;hydra: a ]52 c evil b\u0007');
    expect(sequence.match(/\u001B/g)).toHaveLength(2);
  });
});

describe('when the race tells the user', () => {
  it('in the dashboard: when it waits for a decision, and not again when the user ends it', () => {
    const { handle, go } = fakeHandle();
    const out = terminal(true);
    const stop = notifyOnPhases(handle, out, 'dashboard');
    go('cross_testing');
    go('reviewing');
    go('merging');
    go('done');
    stop();
    expect(out.written).toEqual([
      notificationSequence('race 20261101-100000-ab01 is ready for review (1 completed, 1 failed)'),
    ]);
  });

  it('in the dashboard with --attempts: the review is told once the attempts ran, not before', async () => {
    const { handle, go } = fakeHandle();
    const out = terminal(true);
    let attemptsDone: () => void = () => {};
    const attempts = new Promise<void>((resolve) => (attemptsDone = resolve));
    notifyOnPhases(handle, out, 'dashboard', attempts);
    go('reviewing');
    go('racing');
    go('reviewing');
    expect(out.written).toEqual([]);
    attemptsDone();
    await attempts;
    await Promise.resolve();
    expect(out.written).toEqual([
      notificationSequence('race 20261101-100000-ab01 is ready for review (1 completed, 1 failed)'),
    ]);
  });

  it('in the dashboard with --attempts: nothing held is told when the user ended the race first', async () => {
    const { handle, go } = fakeHandle();
    const out = terminal(true);
    let attemptsDone: () => void = () => {};
    const attempts = new Promise<void>((resolve) => (attemptsDone = resolve));
    notifyOnPhases(handle, out, 'dashboard', attempts);
    go('reviewing');
    go('merging');
    go('done');
    attemptsDone();
    await attempts;
    await Promise.resolve();
    expect(out.written).toEqual([]);
  });

  it('headless: when it ends', () => {
    const { handle, go } = fakeHandle();
    const out = terminal(true);
    notifyOnPhases(handle, out, 'headless');
    go('done');
    expect(out.written).toEqual([
      notificationSequence('race 20261101-100000-ab01 finished (1 completed, 1 failed)'),
    ]);
    expect(phaseMessage(snapshot('failed'), 'headless', false)).toBe('race 20261101-100000-ab01 failed');
  });

  it('never into a pipe', () => {
    const { handle, go } = fakeHandle();
    const pipe = terminal(false);
    notifyOnPhases(handle, pipe, 'headless');
    go('done');
    expect(pipe.written).toEqual([]);
  });
});
