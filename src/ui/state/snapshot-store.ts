/**
 * A throttled view of a race handle for React's useSyncExternalStore.
 *
 * The engine may publish a snapshot for every event (hundreds a second with three busy agents).
 * The store coalesces them: after a change it waits `intervalMs` and then publishes the latest
 * snapshot once, so the dashboard renders at most 1000 / intervalMs times a second for engine
 * updates. `getSnapshot` returns the same object until the next publish, as React requires.
 */
import type { RaceHandle, RaceSnapshot } from '../../engine/index.js';

export interface ReceivedSnapshot {
  snapshot: RaceSnapshot;
  /** Local clock time when the store published it (lets the UI advance elapsed times). */
  receivedAt: number;
}

export interface SnapshotStore {
  subscribe(listener: () => void): () => void;
  getSnapshot(): ReceivedSnapshot;
}

export const DEFAULT_THROTTLE_MS = 100;

export const createSnapshotStore = (
  handle: Pick<RaceHandle, 'getSnapshot' | 'subscribe'>,
  intervalMs: number = DEFAULT_THROTTLE_MS,
  clock: () => number = Date.now,
): SnapshotStore => {
  let current: ReceivedSnapshot = { snapshot: handle.getSnapshot(), receivedAt: clock() };
  let latest: RaceSnapshot | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let unsubscribe: (() => void) | null = null;
  const listeners = new Set<() => void>();

  const publish = (): void => {
    timer = null;
    current = { snapshot: latest ?? handle.getSnapshot(), receivedAt: clock() };
    latest = null;
    for (const listener of [...listeners]) listener();
  };

  const schedule = (): void => {
    if (timer === null) timer = setTimeout(publish, intervalMs);
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (unsubscribe === null) {
        unsubscribe = handle.subscribe((snapshot) => {
          latest = snapshot;
          schedule();
        });
        // Whatever changed between the first read and subscribing is picked up on the next publish.
        schedule();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size > 0) return;
        unsubscribe?.();
        unsubscribe = null;
        if (timer !== null) clearTimeout(timer);
        timer = null;
      };
    },
    getSnapshot: () => current,
  };
};
