/** Medians and ratios: every figure the bench prints is a median of a few repeats. */

export const median = (values: number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

export const ratio = (value: number, baseline: number): number =>
  baseline > 0 ? value / baseline : Number.NaN;

export const medianOf = <T>(samples: T[], pick: (sample: T) => number): number => median(samples.map(pick));

/** Rounds for display and JSON (the machine's noise makes more digits meaningless). */
export const round = (value: number, digits = 1): number => {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};
