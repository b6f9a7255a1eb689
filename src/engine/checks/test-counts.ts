/**
 * Test counts read from a check's output, for the runners people use most (node's test runner,
 * vitest, jest, pytest, go test, cargo test). Pure: text in, counts out; null when no runner's
 * summary is recognisable (then a check is judged by its exit code alone).
 */
import { stripEscapes } from '../../core/text.js';
import type { TestCounts } from '../check-types.js';

const num = (value: string | undefined): number => (value === undefined ? 0 : Number(value));
const sortedUnique = (names: Iterable<string>): string[] => [...new Set(names)].sort();

/** Every match of a global pattern, in order. */
const all = (text: string, pattern: RegExp): RegExpExecArray[] => [...text.matchAll(pattern)];
const last = <T>(items: readonly T[]): T | undefined => items[items.length - 1];

/** node --test: `# tests 3` / `ℹ tests 3` summary lines (TAP or spec reporter). */
const nodeRunner = (text: string): TestCounts | null => {
  const field = (name: string): number | undefined => {
    const match = last(all(text, new RegExp(`^[#ℹ] ${name} (\\d+)$`, 'gm')));
    return match === undefined ? undefined : Number(match[1]);
  };
  const tests = field('tests');
  const pass = field('pass');
  const fail = field('fail');
  if (tests === undefined || pass === undefined || fail === undefined) return null;
  const failedNames = [
    ...all(text, /^\s*not ok \d+ - (.+?)(?: # .*)?$/gm).map((m) => m[1] ?? ''),
    ...all(text, /^\s*✖ (.+?)(?: \([\d.]+m?s\))?$/gm)
      .map((m) => m[1] ?? '')
      .filter((name) => name !== 'failing tests:'),
  ];
  const passedNames = [
    ...all(text, /^\s*ok \d+ - (.+?)$/gm)
      .map((m) => m[1] ?? '')
      .filter((name) => !/ # (SKIP|TODO)\b/i.test(name)),
    ...all(text, /^\s*✔ (.+?)(?: \([\d.]+m?s\))?$/gm).map((m) => m[1] ?? ''),
  ];
  return {
    runner: 'node',
    passed: pass,
    failed: fail + (field('cancelled') ?? 0),
    skipped: (field('skipped') ?? 0) + (field('todo') ?? 0),
    failedNames: sortedUnique(failedNames),
    passedNames: sortedUnique(passedNames.filter((name) => !failedNames.includes(name))),
  };
};

/** vitest: `Tests  1 failed | 5 passed | 1 skipped (7)`. */
const vitestRunner = (text: string): TestCounts | null => {
  const line = last(all(text, /^\s*Tests\s+(.+)\((\d+)\)\s*$/gm));
  if (line === undefined || line[1] === undefined) return null;
  const part = (word: string): number => num(new RegExp(`(\\d+) ${word}`).exec(line[1] ?? '')?.[1]);
  return {
    runner: 'vitest',
    passed: part('passed'),
    failed: part('failed'),
    skipped: part('skipped') + part('todo'),
    failedNames: sortedUnique(all(text, /^\s*FAIL\s+(\S+ > .+?)\s*$/gm).map((m) => m[1] ?? '')),
    passedNames: [],
  };
};

/** jest: `Tests:       1 failed, 1 skipped, 4 passed, 6 total`. */
const jestRunner = (text: string): TestCounts | null => {
  const line = last(all(text, /^Tests:\s+(.+ total)\s*$/gm));
  if (line === undefined) return null;
  const part = (word: string): number => num(new RegExp(`(\\d+) ${word}`).exec(line[1] ?? '')?.[1]);
  return {
    runner: 'jest',
    passed: part('passed'),
    failed: part('failed'),
    skipped: part('skipped') + part('todo'),
    failedNames: sortedUnique(all(text, /^\s*● (.+?)\s*$/gm).map((m) => m[1] ?? '')),
    passedNames: [],
  };
};

/** pytest: `===== 1 failed, 4 passed, 2 skipped in 0.12s =====`. */
const pytestRunner = (text: string): TestCounts | null => {
  const line = last(all(text, /^=+ (.*\b(?:passed|failed|error|errors|skipped)\b.*) in [\d.]+s.* =+$/gm));
  if (line === undefined) return null;
  const part = (word: string): number => num(new RegExp(`(\\d+) ${word}`).exec(line[1] ?? '')?.[1]);
  return {
    runner: 'pytest',
    passed: part('passed'),
    failed: part('failed') + part('errors?'),
    skipped: part('skipped') + part('xfailed'),
    failedNames: sortedUnique(all(text, /^(?:FAILED|ERROR) (\S+)/gm).map((m) => m[1] ?? '')),
    passedNames: sortedUnique(all(text, /^(\S+::\S+) PASSED/gm).map((m) => m[1] ?? '')),
  };
};

/**
 * go test -v: `=== RUN` and `--- PASS/FAIL/SKIP: TestX` lines. Without -v go prints only the
 * failures, so the passing count is unknowable: then null (the exit code decides).
 */
const goRunner = (text: string): TestCounts | null => {
  if (!/^=== RUN\s/m.test(text)) return null;
  const results = all(text, /^\s*--- (PASS|FAIL|SKIP): (\S+)/gm);
  const named = (kind: string): string[] =>
    sortedUnique(results.filter((m) => m[1] === kind).map((m) => m[2] ?? ''));
  const failedNames = named('FAIL');
  const passedNames = named('PASS');
  return {
    runner: 'go',
    passed: passedNames.length,
    failed: failedNames.length,
    skipped: named('SKIP').length,
    failedNames,
    passedNames,
  };
};

/** cargo test: one `test result: ok. 4 passed; 1 failed; 0 ignored; ...` line per test binary. */
const cargoRunner = (text: string): TestCounts | null => {
  const lines = all(text, /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm);
  if (lines.length === 0) return null;
  const sum = (index: number): number => lines.reduce((total, m) => total + num(m[index]), 0);
  const named = (kind: string): string[] =>
    sortedUnique(all(text, new RegExp(`^test (\\S+) \\.\\.\\. ${kind}$`, 'gm')).map((m) => m[1] ?? ''));
  return {
    runner: 'cargo',
    passed: sum(1),
    failed: sum(2),
    skipped: sum(3),
    failedNames: named('FAILED'),
    passedNames: named('ok'),
  };
};

/** Most specific first: a vitest run also prints lines a looser pattern would take. */
const RUNNERS = [vitestRunner, jestRunner, cargoRunner, pytestRunner, nodeRunner, goRunner] as const;

/** The counts of the first runner whose summary the output carries, or null. */
export const readTestCounts = (output: string): TestCounts | null => {
  const text = stripEscapes(output).replace(/\r\n?/g, '\n');
  for (const runner of RUNNERS) {
    const counts = runner(text);
    if (counts !== null) return counts;
  }
  return null;
};

export interface TestChanges {
  /** Failing here, not failing on the baseline. */
  newlyFailing: string[];
  /** Failing on the baseline, passing here. */
  newlyPassing: string[];
}

/** What changed against the baseline, by test name; null when either side names no tests. */
export const compareTests = (baseline: TestCounts | null, result: TestCounts | null): TestChanges | null => {
  if (baseline === null || result === null) return null;
  const baseNamed = baseline.failedNames.length + baseline.passedNames.length > 0;
  const resultNamed = result.failedNames.length + result.passedNames.length > 0;
  if (!baseNamed || !resultNamed) return null;
  const baseFailing = new Set(baseline.failedNames);
  const failing = new Set(result.failedNames);
  return {
    newlyFailing: result.failedNames.filter((name) => !baseFailing.has(name)),
    newlyPassing: baseline.failedNames.filter(
      (name) => !failing.has(name) && result.passedNames.includes(name),
    ),
  };
};
