/**
 * Test counts read from a check's output, for the runners people use most, in their usual output
 * modes (fixtures/checks/): node's test runner (TAP and spec), vitest and jest (default and
 * verbose), mocha (spec), pytest (default, `-v`, `-q`, `-qq`, `-rA`), go test (`-v`, `-json`), cargo test
 * (default and `-q`). Pure: text in, counts out; null when no runner's summary is recognisable
 * (then a check is judged by its exit code alone). Plain `go test` prints only its failures, so
 * what passed cannot be counted: null.
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
    // The verbose reporter names every test with its file (the default names only a lone file's).
    passedNames: sortedUnique(all(text, /^\s*✓ (\S+ > .+?)(?: \d+m?s)?\s*$/gm).map((m) => m[1] ?? '')),
  };
};

/**
 * The tests a reporter lists one per line under their suites, nesting by indentation (jest's and
 * mocha's verbose listings): each test's full name is its suites' titles and its own, joined.
 */
const listedTests = (
  lines: readonly string[],
  testOf: (text: string) => { outcome: 'passed' | 'failed' | 'skipped'; name: string } | null,
  separator: string,
): { passedNames: string[]; failedNames: string[] } => {
  const suites: Array<{ indent: number; title: string }> = [];
  const passedNames: string[] = [];
  const failedNames: string[] = [];
  for (const line of lines) {
    const text = line.trim();
    if (text === '') continue;
    const indent = line.length - line.trimStart().length;
    while (suites.length > 0 && (suites[suites.length - 1]?.indent ?? 0) >= indent) suites.pop();
    const test = testOf(text);
    if (test === null) {
      suites.push({ indent, title: text });
      continue;
    }
    const name = [...suites.map((suite) => suite.title), test.name].join(separator);
    if (test.outcome === 'passed') passedNames.push(name);
    if (test.outcome === 'failed') failedNames.push(name);
  }
  return { passedNames: sortedUnique(passedNames), failedNames: sortedUnique(failedNames) };
};

/** The indented lines after a line matching `start`, up to the first line at column 0. */
const blocksAfter = (text: string, start: RegExp): string[] => {
  const lines = text.split('\n');
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (start.test(line)) inside = true;
    else if (inside && line !== '' && !/^\s/.test(line)) inside = false;
    else if (inside) out.push(line);
  }
  return out;
};

/** jest --verbose: `✓ adds (1 ms)` / `✕ fails` under their `describe` titles, per file. */
const jestListing = (text: string): string[] =>
  listedTests(
    blocksAfter(text, /^(?:PASS|FAIL) \S/),
    (line) => {
      const match = /^([✓✕○✎]) (.+?)(?: \(\d+ m?s\))?$/.exec(line);
      if (match === null) return null;
      const outcome = match[1] === '✓' ? 'passed' : match[1] === '✕' ? 'failed' : 'skipped';
      return { outcome, name: match[2] ?? '' };
    },
    ' › ',
  ).passedNames;

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
    passedNames: jestListing(text),
  };
};

/** mocha (spec): `  2 passing (4ms)`, `  1 failing`, `  1 pending`, after a listing of the tests. */
const mochaRunner = (text: string): TestCounts | null => {
  const passing = last(all(text, /^\s*(\d+) passing\b/gm));
  if (passing === undefined) return null;
  const field = (word: string): number =>
    num(last(all(text, new RegExp(`^\\s*(\\d+) ${word}\\b`, 'gm')))?.[1]);
  // The listing runs from the top to the summary: `✔ adds`, `1) fails`, `- skipped`.
  const listing = text.slice(0, passing.index).split('\n');
  const names = listedTests(
    listing,
    (line) => {
      const passed = /^[✔✓] (.+?)(?: \(\d+ms\))?$/.exec(line);
      if (passed !== null) return { outcome: 'passed', name: passed[1] ?? '' };
      const failed = /^\d+\) (.+)$/.exec(line);
      if (failed !== null) return { outcome: 'failed', name: failed[1] ?? '' };
      const pending = /^- (.+)$/.exec(line);
      return pending === null ? null : { outcome: 'skipped', name: pending[1] ?? '' };
    },
    ' ',
  );
  return {
    runner: 'mocha',
    passed: num(passing[1]),
    failed: field('failing'),
    skipped: field('pending'),
    failedNames: names.failedNames,
    passedNames: names.passedNames,
  };
};

/**
 * pytest's summary: `===== 1 failed, 4 passed, 2 skipped in 0.12s =====`, without the borders under
 * `-q`; `-qq` prints none, and then the progress lines (`.Fsx   [100%]`) are counted.
 */
const PYTEST_SUMMARY =
  /^(?:=+ )?((?:\d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|warnings?|errors?|rerun)(?:, )?)+|no tests ran) in [\d.]+s(?: \([^)]*\))?(?: =+)?$/gm;

const pytestProgress = (text: string): Record<string, number> | null => {
  const lines = all(text, /^(?:\S+\.py )?([.FEsxXR]+)\s+\[\s*\d+%\]$/gm);
  if (lines.length === 0) return null;
  const marks = lines.map((m) => m[1] ?? '').join('');
  const count = (mark: string): number => [...marks].filter((char) => char === mark).length;
  return {
    passed: count('.') + count('X'),
    failed: count('F') + count('E'),
    skipped: count('s') + count('x'),
  };
};

const pytestRunner = (text: string): TestCounts | null => {
  const line = last(all(text, PYTEST_SUMMARY));
  const part = (word: string): number => num(new RegExp(`(\\d+) ${word}\\b`).exec(line?.[1] ?? '')?.[1]);
  const counts =
    line === undefined
      ? pytestProgress(text)
      : {
          passed: part('passed') + part('xpassed'),
          failed: part('failed') + part('errors?'),
          skipped: part('skipped') + part('xfailed'),
        };
  if (counts === null) return null;
  return {
    runner: 'pytest',
    passed: counts.passed ?? 0,
    failed: counts.failed ?? 0,
    skipped: counts.skipped ?? 0,
    failedNames: sortedUnique(all(text, /^(?:FAILED|ERROR) (\S+::\S+)/gm).map((m) => m[1] ?? '')),
    // `-v` prints `name PASSED`, `-rA` `PASSED name`.
    passedNames: sortedUnique(
      all(text, /^(\S+::\S+) PASSED|^PASSED (\S+::\S+)/gm).map((m) => m[1] ?? m[2] ?? ''),
    ),
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

/** One event of `go test -json` (go doc test2json; `build-output`/`build-fail` since Go 1.24). */
interface GoEvent {
  Action: string;
  Package?: string;
  Test?: string;
  Output?: string;
  ImportPath?: string;
  FailedBuild?: string;
}

const GO_ACTIONS = new Set([
  'start',
  'run',
  'pause',
  'cont',
  'pass',
  'bench',
  'fail',
  'output',
  'skip',
  'build-output',
  'build-fail',
]);

/** A line of `go test -json`, or null (other output: build errors on stderr before Go 1.24). */
const goEvent = (line: string): GoEvent | null => {
  if (!line.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return null;
    const event = value as Partial<GoEvent>;
    const named = typeof event.Package === 'string' || typeof event.ImportPath === 'string';
    return typeof event.Action === 'string' && GO_ACTIONS.has(event.Action) && named
      ? (event as GoEvent)
      : null;
  } catch {
    return null;
  }
};

/** `example [example.test]` (a build's import path) → `example`. */
const packageOf = (path: string): string => path.replace(/ \[[^\]]*\]$/, '');

/**
 * go test -json: each test's last `pass`/`fail`/`skip` event (named `<package>.<test>`, subtests
 * `TestX/case`). A package that failed with no failing test of its own (its build failed: a
 * `build-fail` event or `FailedBuild` since Go 1.24, a `FAIL <pkg> [build failed]` output line
 * before; a panic outside a test; TestMain exiting) counts as one failure, named after the package.
 */
const goJsonRunner = (text: string): TestCounts | null => {
  const events = text.split('\n').flatMap((line) => goEvent(line.trim()) ?? []);
  if (events.length === 0) return null;
  const outcomes = new Map<string, string>();
  const failedPackages = new Set<string>();
  const brokenBuilds = new Set<string>();
  for (const event of events) {
    const pkg = packageOf(event.Package ?? event.ImportPath ?? '');
    if (event.Action === 'build-fail' || (event.FailedBuild ?? '') !== '') brokenBuilds.add(pkg);
    if (event.Action === 'output' && /\[build failed\]/.test(event.Output ?? '')) brokenBuilds.add(pkg);
    if (event.Test === undefined || event.Test === '') {
      if (event.Action === 'fail') failedPackages.add(pkg);
      continue;
    }
    if (event.Action === 'pass' || event.Action === 'fail' || event.Action === 'skip')
      outcomes.set(`${pkg}.${event.Test}`, event.Action);
  }
  const named = (action: string): string[] =>
    sortedUnique([...outcomes].filter(([, outcome]) => outcome === action).map(([name]) => name));
  const failingTests = named('fail');
  // A package whose failure no test of it explains: its build, or something outside every test.
  const packageFailures = [...new Set([...failedPackages, ...brokenBuilds])]
    .filter((pkg) => brokenBuilds.has(pkg) || !failingTests.some((name) => name.startsWith(`${pkg}.`)))
    .map((pkg) => (brokenBuilds.has(pkg) ? `${pkg} [build failed]` : `${pkg} [failed]`));
  const failedNames = sortedUnique([...failingTests, ...packageFailures]);
  const passedNames = named('pass');
  return {
    runner: 'go',
    passed: passedNames.length,
    failed: failedNames.length,
    skipped: named('skip').length,
    failedNames,
    passedNames,
  };
};

/** cargo test: one `test result: ok. 4 passed; 1 failed; 0 ignored; ...` line per test binary. */
const cargoRunner = (text: string): TestCounts | null => {
  const lines = all(text, /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm);
  if (lines.length === 0) return null;
  const sum = (index: number): number => lines.reduce((total, m) => total + num(m[index]), 0);
  // `test x ... ok` by default; `-q` prints only the failures, as `x --- FAILED`.
  const named = (kind: string): string[] =>
    sortedUnique(
      all(text, new RegExp(`^(?:test (\\S+) \\.\\.\\. ${kind}|(\\S+) --- ${kind})$`, 'gm')).map(
        (m) => m[1] ?? m[2] ?? '',
      ),
    );
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
const RUNNERS = [
  goJsonRunner,
  vitestRunner,
  jestRunner,
  cargoRunner,
  pytestRunner,
  mochaRunner,
  nodeRunner,
  goRunner,
] as const;

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
