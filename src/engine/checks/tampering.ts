/**
 * Whether a result's check still measures what the baseline's did. Deleting the failing tests, or
 * replacing `scripts.test` with an `echo` of passing counts, makes any check pass: such a check is
 * flagged (`checks[].tampered`), its evidence does not count in the score, and the result cannot win
 * `--auto-merge best` unless the user allows test changes (`--allow-test-changes`).
 */
import type { CheckRun } from '../check-types.js';

/** Test names listed per check; at this many a list may be cut, so names are not compared. */
const NAME_LIMIT = 200;
/** Names quoted in one reason. */
const NAMES_SHOWN = 5;

const quoted = (names: readonly string[]): string =>
  names.length <= NAMES_SHOWN
    ? names.join(', ')
    : `${names.slice(0, NAMES_SHOWN).join(', ')} and ${names.length - NAMES_SHOWN} more`;

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Tests the baseline ran that this run does not (fewer run, or named ones gone), when it passed. */
const droppedTests = (run: CheckRun, base: CheckRun): string[] => {
  const before = base.tests;
  if (before === null || run.status !== 'passed') return [];
  const baseRan = before.passed + before.failed;
  const after = run.tests;
  if (after === null)
    return baseRan > 0 ? [`reports no test counts; the baseline ran ${plural(baseRan, 'test')}`] : [];
  const reasons: string[] = [];
  const ran = after.passed + after.failed;
  if (ran < baseRan) reasons.push(`ran ${plural(ran, 'test')}; the baseline ran ${baseRan}`);
  const names = (counts: NonNullable<CheckRun['tests']>): string[] | null =>
    counts.passedNames.length >= NAME_LIMIT || counts.failedNames.length >= NAME_LIMIT
      ? null
      : [...counts.passedNames, ...counts.failedNames];
  const baseNames = names(before);
  const runNames = names(after);
  if (baseNames !== null && runNames !== null && baseNames.length > 0 && runNames.length > 0) {
    const now = new Set(runNames);
    const gone = baseNames.filter((name) => !now.has(name)).sort();
    if (gone.length > 0) reasons.push(`no longer runs ${quoted(gone)}`);
  }
  return reasons;
};

/**
 * Why a result's check is not evidence about the task, or an empty list: tests the baseline's run
 * of the same check ran that it skips or removed, or a change to what its command runs.
 */
export const tamperingOf = (run: CheckRun, base: CheckRun | null): string[] => [
  ...(base === null ? [] : droppedTests(run, base)),
  ...(run.configChanged ?? []).map((what) => `changed ${what}`),
];
