/**
 * Background work of a race that must finish before `cancel()` resolves: e.g. a worktree creation
 * interrupted by a cancel keeps running just long enough to roll itself back.
 */
const pending = new Map<string, Set<Promise<unknown>>>();

export const trackWork = <T>(runId: string, work: Promise<T>): Promise<T> => {
  const set = pending.get(runId) ?? new Set<Promise<unknown>>();
  pending.set(runId, set);
  set.add(work);
  const forget = (): void => {
    set.delete(work);
    if (set.size === 0) pending.delete(runId);
  };
  work.then(forget, forget);
  return work;
};

export const waitForWork = async (runId: string): Promise<void> => {
  for (;;) {
    const set = pending.get(runId);
    if (set === undefined || set.size === 0) return;
    await Promise.allSettled([...set]);
  }
};
