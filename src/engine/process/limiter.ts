/** A race's limit on checks running at once: each waits for a free slot, in the order asked. */
export interface Limiter {
  run<T>(work: () => Promise<T>): Promise<T>;
}

export const createLimiter = (slots: number): Limiter => {
  const limit = Math.max(1, Math.floor(slots));
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = (): void => {
    running -= 1;
    waiting.shift()?.();
  };
  return {
    async run(work) {
      if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      running += 1;
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
};
