/**
 * Whether a run's hydra still runs (`hydra runs`' running or dead, what `hydra clean` leaves alone):
 * its recorded pid, told from a process that got that pid since by its start time, read from /proc
 * on Linux and from ps where there is none (both ways: test/support/portable.ts).
 */
import { describe, expect, it } from 'vitest';
import { ownerAlive } from '../../../../src/engine/records/runs.js';
import type { RunMeta } from '../../../../src/engine/records/schema.js';
import { processInfo } from '../../../../src/engine/process/index.js';
import { earlierStart, inProcessWay, WAYS } from '../../../support/portable.js';

describe.each(WAYS)("a run's hydra ($way)", ({ env }) => {
  inProcessWay(env);

  const meta = (pidStartTime: string | null): RunMeta => ({ pid: process.pid, pidStartTime }) as RunMeta;

  it('runs while its pid is the process that started the run', () => {
    const now = processInfo(process.pid)?.startTime ?? '';
    expect(now).toMatch(/^s?\d+$/);
    expect(ownerAlive(meta(now))).toBe(true);
  });

  it('is dead once its pid names a process that started later (a reused pid)', () => {
    const now = processInfo(process.pid)?.startTime ?? '';
    expect(ownerAlive(meta(earlierStart(now)))).toBe(false);
  });
});
