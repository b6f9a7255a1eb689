/**
 * A race without `[setup] share` never asks whether this machine mounts overlays: the check runs
 * processes synchronously (unshare, mount), and it stalled every race's start before its record
 * was written (issue 33).
 */
import { describe, expect, it, vi } from 'vitest';
import type * as ShareSupport from '../../../../src/engine/setup/share-support.js';

const asked = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../../src/engine/setup/share-support.js', async (original) => ({
  ...(await original<typeof ShareSupport>()),
  shareSupport: () => {
    asked.count += 1;
    return { kind: 'copy', reason: 'test' };
  },
}));

const { shareWarning, worktreeShares } = await import('../../../../src/engine/setup/share.js');

describe('no shared directories', () => {
  it('no warning and no mounts, without checking the machine', () => {
    expect(shareWarning([])).toBeNull();
    expect(worktreeShares([], '/tmp/worktree')).toEqual([]);
    expect(asked.count).toBe(0);
  });

  it('a shared directory still asks the machine', () => {
    const dirs = [{ name: 'node_modules', source: '/repo/node_modules' }];
    expect(shareWarning(dirs)).toMatch(/copied into each worktree/);
    expect(worktreeShares(dirs, '/tmp/worktree')).toEqual([
      expect.objectContaining({ target: '/tmp/worktree/node_modules', how: 'copy' }),
    ]);
    expect(asked.count).toBe(2);
  });
});
