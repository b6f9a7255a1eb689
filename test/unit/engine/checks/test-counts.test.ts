/** Test counts from real runner output (fixtures/checks/, captured from the real runners). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareTests, readTestCounts } from '../../../../src/engine/checks/test-counts.js';

const fixture = (name: string): string => readFileSync(`fixtures/checks/${name}`, 'utf8');

describe('readTestCounts', () => {
  it.each([
    ['node-tap.txt', 'node', 2, 1, 1, ['parses dates']],
    ['node-spec.txt', 'node', 2, 1, 1, ['parses dates']],
    ['vitest.txt', 'vitest', 1, 1, 1, ['a.test.ts > math > fails']],
    ['jest.txt', 'jest', 1, 1, 1, ['math › fails']],
    ['pytest.txt', 'pytest', 1, 1, 1, ['test_math.py::test_fails']],
    ['pytest-verbose.txt', 'pytest', 1, 1, 1, ['test_math.py::test_fails']],
    ['go-verbose.txt', 'go', 1, 1, 1, ['TestFails']],
    ['cargo.txt', 'cargo', 1, 1, 1, ['tests::it_fails']],
    // Issue 34: every usual output mode.
    ['pytest-q.txt', 'pytest', 1, 1, 2, ['test_math.py::test_fails']],
    ['pytest-qq.txt', 'pytest', 1, 1, 2, ['test_math.py::test_fails']],
    ['pytest-rA.txt', 'pytest', 1, 1, 2, ['test_math.py::test_fails']],
    ['vitest-verbose.txt', 'vitest', 1, 1, 2, ['a.test.ts > math > fails']],
    ['jest-verbose.txt', 'jest', 1, 1, 2, ['math › fails']],
    ['mocha.txt', 'mocha', 1, 1, 1, ['math fails']],
    ['cargo-q.txt', 'cargo', 1, 1, 1, ['tests::it_fails']],
  ] as const)('%s: %s, %i passed, %i failed, %i skipped', (file, runner, passed, failed, skipped, names) => {
    const counts = readTestCounts(fixture(file));
    expect(counts).toMatchObject({ runner, passed, failed, skipped });
    expect(counts?.failedNames).toEqual(names);
  });

  it('names the passing tests where the runner lists them', () => {
    expect(readTestCounts(fixture('node-tap.txt'))?.passedNames).toContain('adds numbers');
    expect(readTestCounts(fixture('node-tap.txt'))?.passedNames).not.toContain('skipped one');
    expect(readTestCounts(fixture('pytest-verbose.txt'))?.passedNames).toEqual(['test_math.py::test_adds']);
    expect(readTestCounts(fixture('go-verbose.txt'))?.passedNames).toEqual(['TestAdds']);
    expect(readTestCounts(fixture('cargo.txt'))?.passedNames).toEqual(['tests::it_adds']);
    expect(readTestCounts(fixture('pytest-rA.txt'))?.passedNames).toEqual(['test_math.py::test_adds']);
    expect(readTestCounts(fixture('vitest-verbose.txt'))?.passedNames).toEqual(['a.test.ts > math > adds']);
    expect(readTestCounts(fixture('jest-verbose.txt'))?.passedNames).toEqual(['math › adds']);
    expect(readTestCounts(fixture('mocha.txt'))?.passedNames).toEqual(['math adds']);
  });

  it('counts a test a result marked xfail as not run, so the run is short of the baseline (pytest -q)', () => {
    const marked = fixture('pytest-q.txt').replace(
      '1 failed, 1 passed, 1 skipped, 1 xfailed in',
      '1 passed, 1 skipped, 2 xfailed in',
    );
    expect(readTestCounts(marked)).toMatchObject({ passed: 1, failed: 0, skipped: 3 });
  });

  it('reads go test -json: each test by package, subtests, skips (fixtures written from the documented format)', () => {
    expect(readTestCounts(fixture('go-json.txt'))).toEqual({
      runner: 'go',
      passed: 3,
      failed: 1,
      skipped: 1,
      failedNames: ['example.com/demo.TestFails'],
      passedNames: [
        'example.com/demo.TestAdds',
        'example.com/demo.TestTable',
        'example.com/demo.TestTable/zero',
      ],
    });
  });

  it.each(['go-json-build-failed.txt', 'go-json-build-failed-go1.23.txt'])(
    'counts a package whose tests fail to build as a failure under go test -json (%s)',
    (file) => {
      expect(readTestCounts(fixture(file))).toEqual({
        runner: 'go',
        passed: 1,
        failed: 1,
        skipped: 0,
        failedNames: ['example.com/demo/calc [build failed]'],
        passedNames: ['example.com/demo.TestAdds'],
      });
    },
  );

  it('counts a package that failed outside every test (go test -json), and ignores JSON that is not an event', () => {
    const panicked = [
      '{"Action":"start","Package":"example.com/demo"}',
      '{"Action":"output","Package":"example.com/demo","Output":"panic: init failed\n"}',
      '{"Action":"fail","Package":"example.com/demo","Elapsed":0.01}',
    ].join('\n');
    expect(readTestCounts(panicked)).toMatchObject({
      passed: 0,
      failed: 1,
      failedNames: ['example.com/demo [failed]'],
    });
    expect(readTestCounts('{"Action":"deploy","Status":"ok"}\n{"level":"info"}\n')).toBeNull();
  });

  it('gives no counts for go test without -v (it does not print what passed) or for plain output', () => {
    expect(readTestCounts(fixture('go.txt'))).toBeNull();
    expect(readTestCounts('All good!\nDone in 3s\n')).toBeNull();
    expect(readTestCounts('')).toBeNull();
  });

  it('sums the result lines of every cargo test binary', () => {
    const twice = `${fixture('cargo.txt')}\ntest result: ok. 3 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out\n`;
    expect(readTestCounts(twice)).toMatchObject({ passed: 4, failed: 1, skipped: 3 });
  });
});

describe('compareTests', () => {
  const counts = (failedNames: string[], passedNames: string[]) => ({
    runner: 'node' as const,
    passed: passedNames.length,
    failed: failedNames.length,
    skipped: 0,
    failedNames,
    passedNames,
  });

  it('names tests that fail only in the result, and tests the result fixed', () => {
    const baseline = counts(['b'], ['a', 'c']);
    const result = counts(['c'], ['a', 'b']);
    expect(compareTests(baseline, result)).toEqual({ newlyFailing: ['c'], newlyPassing: ['b'] });
  });

  it('says nothing when either side has no names', () => {
    expect(compareTests(counts([], []), counts(['x'], []))).toBeNull();
    expect(compareTests(null, counts(['x'], []))).toBeNull();
  });
});
