/**
 * Cross-testing's pure parts (issue 26): the runners' naming rules, the command that runs one test
 * file (derived from the race's check), the evidence part and its warnings, and what the score
 * makes of it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  RUNNER_RULES,
  crossTestWarnings,
  evidenceParts,
  planTests,
  projectRunners,
} from '../../../../../src/engine/checks/cross-test/index.js';
import type { RunnerId } from '../../../../../src/engine/checks/cross-test/index.js';
import { MAX_TEST_FILES } from '../../../../../src/engine/checks/cross-test/plan.js';
import { writeInside } from '../../../../../src/engine/checks/cross-test/tree.js';
import { scoreAgents } from '../../../../../src/engine/checks/index.js';
import type { ScoreInput } from '../../../../../src/engine/checks/index.js';
import type { CheckSpec, NewTestRun, NewTestsSummary } from '../../../../../src/engine/index.js';

const rule = (runner: RunnerId) => {
  const found = RUNNER_RULES.find((item) => item.runner === runner);
  if (found === undefined) throw new Error(`no rule for ${runner}`);
  return found;
};

const check = (run: string): CheckSpec => ({ name: 'test', run, timeoutMs: 90_000, gate: true });

const commandsFor = (
  checks: CheckSpec[],
  files: string[],
  packageJson: Record<string, unknown> | null = null,
  content = '',
): string[] =>
  planTests(projectRunners(checks, packageJson), files, () => content).tests.map((test) => test.run);

describe("the runners' naming rules", () => {
  it.each([
    ['node', ['lib.test.js', 'a/b-test.mjs', 'c_test.cjs', 'test-x.js', 'test.js', 'test/helpers/x.js']],
    ['vitest', ['src/a.test.ts', 'b.spec.tsx', 'c.test.mjs']],
    ['jest', ['src/__tests__/a.ts', 'a.spec.js', 'test.jsx']],
    ['mocha', ['test/a.js', 'test/b.mjs']],
    ['pytest', ['test_a.py', 'pkg/tests/test_b.py', 'c_test.py']],
    ['go', ['a_test.go', 'pkg/x/b_test.go']],
    ['cargo', ['tests/it.rs', 'crates/core/tests/it.rs']],
  ] as const)('%s finds its own tests', (runner, files) => {
    for (const file of files) expect(rule(runner).matches(file), file).toBe(true);
  });

  it.each([
    ['node', ['lib.js', 'node_modules/x/a.test.js', 'latest.js', 'src/a.test.ts']],
    ['vitest', ['a.ts', 'test/a.ts', 'node_modules/a.test.ts']],
    ['mocha', ['test/deep/a.js', 'a.test.js']],
    ['pytest', ['a.py', 'conftest.py', 'testing.py']],
    ['go', ['a.go']],
    ['cargo', ['src/lib.rs', 'tests/common/mod.rs']],
  ] as const)('%s leaves other files alone', (runner, files) => {
    for (const file of files) expect(rule(runner).matches(file), file).toBe(false);
  });
});

describe('the command that runs one test file', () => {
  it("borrows the check's runner and its --flag=value words", () => {
    expect(
      commandsFor([check('node --import=tsx --test --test-reporter=spec test/')], ['a.test.js']),
    ).toEqual(['node --import=tsx --test --test-reporter=spec a.test.js']);
    expect(commandsFor([check('pnpm vitest run --reporter=dot')], ['a.test.ts'])).toEqual([
      'pnpm vitest run --reporter=dot a.test.ts',
    ]);
    expect(commandsFor([check('npm run build && python3 -m pytest -q tests')], ['tests/test_a.py'])).toEqual([
      'python3 -m pytest tests/test_a.py',
    ]);
  });

  it("reads `npm test` through the base's package.json, and never lets npx download a runner", () => {
    expect(commandsFor([check('npm test')], ['a.test.ts'], { scripts: { test: 'vitest' } })).toEqual([
      'npx --no-install vitest run a.test.ts',
    ]);
  });

  it('without a check that names one, takes the JavaScript runner package.json depends on, else node --test', () => {
    expect(commandsFor([check('make test')], ['a.test.js'], { devDependencies: { jest: '^29' } })).toEqual([
      'npx --no-install jest --runTestsByPath a.test.js',
    ]);
    expect(commandsFor([check('make test')], ['a.test.js'])).toEqual(['node --test a.test.js']);
  });

  it("runs only a Go file's own tests, in its package", () => {
    const content =
      'package x\n\nfunc TestAdd(t *testing.T) {}\nfunc TestSub(tt *testing.T) {}\nfunc helper() {}\n';
    expect(commandsFor([check('go test ./...')], ['pkg/x/add_test.go'], null, content)).toEqual([
      "go test ./pkg/x -run '^(TestAdd|TestSub)$'",
    ]);
    expect(commandsFor([check('go test ./...')], ['pkg/x/helpers_test.go'], null, 'package x\n')).toEqual([]);
  });

  it('runs a Cargo integration test by its target, in its crate', () => {
    expect(commandsFor([check('cargo test')], ['tests/it.rs', 'crates/core/tests/api.rs'])).toEqual([
      'cargo test --test it',
      'cargo test --manifest-path crates/core/Cargo.toml --test api',
    ]);
  });

  it("quotes a file name for the shell and keeps it from reading as a flag (an agent's names are anything)", () => {
    expect(commandsFor([check('node --test')], ["it's $(x).test.js", '-rf.test.js'])).toEqual([
      `node --test 'it'\\''s $(x).test.js'`,
      'node --test ./-rf.test.js',
    ]);
  });

  it('runs at most MAX_TEST_FILES files of an agent, copies the rest and what they need', () => {
    const files = Array.from({ length: MAX_TEST_FILES + 2 }, (_, index) => `t${index}.test.js`);
    const plan = planTests(
      projectRunners([check('node --test')], null),
      [...files, 'test/fixtures/a.json', 'lib.js'],
      () => '',
    );
    expect(plan.tests).toHaveLength(MAX_TEST_FILES);
    expect(plan.notRun).toBe(2);
    expect(plan.copied).toEqual([...files, 'test/fixtures/a.json']);
    expect(plan.tests[0]?.timeoutMs).toBe(90_000);
  });
});

const run = (
  file: string,
  onBase: NewTestRun['onBase'],
  onSelf: NewTestRun['onSelf'],
  onOthers: NewTestRun['onOthers'],
): NewTestRun => ({
  file,
  runner: 'node',
  onBase,
  onSelf,
  onOthers,
});

const summary = (tests: NewTestRun[]): NewTestsSummary => ({
  count: tests.length,
  failOnBase: tests.filter((test) => test.onBase === 'failed').length,
  passOnSelf: tests.filter((test) => test.onSelf === 'passed').length,
  reproductions: tests.filter((test) => test.onBase === 'failed' && test.onSelf === 'passed').length,
  onOthers: {},
  tests,
});

/** The issue's race: a reproduction with the fix, a fix alone, a test that proves nothing. */
const ISSUE_RACE = [
  {
    agent: 'fixer',
    newTests: summary([run('add.test.js', 'failed', 'passed', { quiet: 'passed', faker: 'failed' })]),
  },
  { agent: 'quiet' },
  {
    agent: 'faker',
    newTests: summary([run('ok.test.js', 'passed', 'passed', { fixer: 'passed', quiet: 'passed' })]),
  },
];

describe('the evidence part', () => {
  it('is absent when no new test reproduces anything', () => {
    expect(evidenceParts([{ agent: 'quiet' }, ISSUE_RACE[2] ?? { agent: 'x' }])).toBeNull();
  });

  it("counts a reproduction most, a rival's passed next, and a rival's failed not at all", () => {
    expect(Object.fromEntries(evidenceParts(ISSUE_RACE) ?? [])).toEqual({ fixer: 1, quiet: 1 / 3, faker: 0 });
  });

  it('a reproduction that errored on a rival (it could not run there) neither confirms nor condemns it', () => {
    const race = [
      { agent: 'a', newTests: summary([run('a.test.js', 'failed', 'passed', { b: 'error' })]) },
      { agent: 'b' },
    ];
    expect(Object.fromEntries(evidenceParts(race) ?? [])).toEqual({ a: 1, b: 1 / 3 });
  });

  it('flags a result that fails a reproduction in both panes', () => {
    expect(Object.fromEntries(crossTestWarnings(ISSUE_RACE))).toEqual({
      faker: ["fails fixer's reproduction add.test.js (it fails on the base, passes on fixer's result)"],
      fixer: ["faker's result fails its reproduction add.test.js"],
    });
  });

  it('makes the reproduction win over a smaller fix without a test, which would win without it', () => {
    const input = (agent: string, lines: number, evidence?: number): ScoreInput => ({
      agent,
      completed: true,
      checks: [{ name: 'test', gate: true, passed: true, tests: { passed: 2, failed: 0 } }],
      diff: { files: lines > 2 ? 2 : 1, lines },
      outsideAllowed: null,
      durationMs: 1000,
      costUsd: null,
      ...(evidence === undefined ? {} : { evidence }),
    });
    const withoutEvidence = scoreAgents([input('fixer', 8), input('quiet', 2), input('faker', 6)]);
    expect(withoutEvidence.map((score) => score.total)).toEqual([91.2, 100, 92.2]);
    expect(withoutEvidence[0]?.parts).not.toHaveProperty('evidence');
    const parts = evidenceParts(ISSUE_RACE);
    const withEvidence = scoreAgents([
      input('fixer', 8, parts?.get('fixer')),
      input('quiet', 2, parts?.get('quiet')),
      input('faker', 6, parts?.get('faker')),
    ]);
    const [fixer, quiet, faker] = withEvidence.map((score) => score.total);
    expect(fixer).toBeGreaterThan(quiet ?? 0);
    expect(quiet).toBeGreaterThan(faker ?? 0);
    expect(withEvidence[0]?.parts.evidence).toBe(1);
  });
});

describe('a guard: a new test that passes on the base (issue 34)', () => {
  /** fixer reproduces the bug and guards mul; breaker fixes add but changes what mul did. */
  const race = [
    {
      agent: 'fixer',
      newTests: summary([
        run('add.test.js', 'failed', 'passed', { breaker: 'passed' }),
        run('mul.test.js', 'passed', 'passed', { breaker: 'failed' }),
      ]),
    },
    { agent: 'breaker' },
  ];

  it('counts against a rival that fails it: that rival broke behaviour the base had', () => {
    // breaker passes the reproduction and fails the guard: half of fixer's tests.
    expect(Object.fromEntries(evidenceParts(race) ?? [])).toEqual({ fixer: 1, breaker: 0.5 / 3 });
  });

  it('is named in both panes', () => {
    expect(Object.fromEntries(crossTestWarnings(race))).toEqual({
      breaker: [
        "fails fixer's test mul.test.js, which passes on the base (it changed behaviour the base had)",
      ],
      fixer: ["breaker's result fails its test mul.test.js, which passes on the base"],
    });
  });

  it('weighs nothing when its author reproduced nothing: a test that pins the bug is no evidence against the fixes', () => {
    const pinning = [
      { agent: 'pinner', newTests: summary([run('add.test.js', 'passed', 'passed', { fixer: 'failed' })]) },
      { agent: 'fixer' },
    ];
    expect(evidenceParts(pinning)).toBeNull();
    // A reproduction elsewhere in the race does not give the pinner's guard weight either.
    const withReproduction = [
      ...pinning.slice(0, 1),
      { agent: 'fixer', newTests: summary([run('fix.test.js', 'failed', 'passed', { pinner: 'failed' })]) },
    ];
    expect(Object.fromEntries(evidenceParts(withReproduction) ?? [])).toEqual({ pinner: 0, fixer: 1 });
    expect(crossTestWarnings(pinning).get('fixer')).toEqual([
      "fails pinner's test add.test.js, which passes on the base (it changed behaviour the base had)",
    ]);
  });
});

describe('a test that changes the tree it runs in (issue 34)', () => {
  /** vandal's test deletes lib.js where it is not its author's: it "fails" on the base and on honest. */
  const vandal: NewTestRun = {
    ...run('vandal.test.js', 'failed', 'passed', { honest: 'failed' }),
    changesTree: { base: ['lib.js'], others: { honest: ['lib.js'] } },
  };
  const race = [{ agent: 'vandal', newTests: summary([vandal]) }, { agent: 'honest' }];

  it('proves nothing: no reproduction, no evidence against the rival', () => {
    expect(evidenceParts(race)).toBeNull();
    const withRealOne = [
      {
        agent: 'vandal',
        newTests: summary([vandal, run('add.test.js', 'failed', 'passed', { honest: 'passed' })]),
      },
      { agent: 'honest' },
    ];
    // honest passes the real reproduction; the vandal's test is not counted against it.
    expect(Object.fromEntries(evidenceParts(withRealOne) ?? [])).toEqual({ vandal: 1, honest: 1 / 3 });
  });

  it('is named, with what it changed where', () => {
    expect(Object.fromEntries(crossTestWarnings(race))).toEqual({
      vandal: [
        "its test vandal.test.js changed the tree it ran in: the base (lib.js); honest's result (lib.js); it proves nothing",
      ],
      honest: ["vandal's test vandal.test.js changed this result's files as it ran: not counted"],
    });
  });
});

describe('copying a test onto another tree', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it('never follows a symlink a result planted, in a folder or as the file', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-cross-'));
    const tree = path.join(dir, 'tree');
    const outside = path.join(dir, 'outside');
    mkdirSync(tree);
    mkdirSync(outside);
    symlinkSync(outside, path.join(tree, 'test'));
    await expect(writeInside(tree, 'test/a.test.js', 'x')).rejects.toThrow(/test is not a directory here/);
    symlinkSync(path.join(outside, 'b.test.js'), path.join(tree, 'b.test.js'));
    await writeInside(tree, 'b.test.js', 'mine');
    expect(readFileSync(path.join(tree, 'b.test.js'), 'utf8')).toBe('mine');
    await writeInside(tree, 'deep/er/c.test.js', 'c');
    expect(readFileSync(path.join(tree, 'deep/er/c.test.js'), 'utf8')).toBe('c');
    expect(() => readFileSync(path.join(outside, 'b.test.js'))).toThrow();
  });
});
