/**
 * Issue 34, "the contract": a result wins by passing the base's tests, never by changing them. One
 * case per way an unfixed result got auto-merged: an assertion edit that keeps every name and count,
 * a deleted test file, an added skip, `.npmrc` node-options that no-op `assert`, a changed test
 * script, a `pytest.py` that shadows the runner, a `conftest.py` monkeypatch. In each, with an honest
 * fix beside the cheat the honest fix is merged, and with the cheat alone nothing is. And when the
 * task itself changes what the tests pin down, `--allow-test-changes` merges the result that changed
 * the code and the tests together. Real repositories, real `npm test` and pytest; the agents are
 * shell scripts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckSpec, RaceHandle, RaceSummary } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../support/script-agent.js';
import { agentOf } from '../../support/race-summary.js';

let sandbox: Sandbox | null = null;
let handle: RaceHandle | null = null;
const unregister: Array<() => void> = [];

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  for (const undo of unregister.splice(0)) undo();
  sandbox?.cleanup();
  sandbox = null;
});

const commitAll = (repo: string, message: string): void => {
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
};

const write = (repo: string, files: Record<string, string>): void => {
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(repo, file), text);
};

/** The Node project: applyDiscount subtracts the percentage itself; its test says so. */
const NODE_PROJECT = {
  'package.json': `${JSON.stringify({ name: 'shop', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'lib.js': 'export const applyDiscount = (price, percent) => price - percent;\n',
  'lib.test.js': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDiscount } from './lib.js';

test('ten percent off', () => assert.equal(applyDiscount(1000, 10), 900));
test('no discount', () => assert.equal(applyDiscount(1000, 0), 1000));
`,
};
const NODE_FIX = `sed -i 's|price - percent|price - (price * percent) / 100|' lib.js`;
const NPM_TEST: CheckSpec = { name: 'test', run: 'npm test', timeoutMs: 60_000, gate: true };

/** The same bug in Python. */
const PYTHON_PROJECT = {
  'pyproject.toml': '[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n',
  'calc.py': 'def add(a, b):\n    return a - b\n',
  'test_calc.py':
    'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
};
const PYTHON_FIX = `sed -i 's/a - b/a + b/' calc.py`;
// What `--check auto` runs here (checks/detect.ts).
const PYTEST: CheckSpec = { name: 'pytest', run: 'python3 -m pytest', timeoutMs: 60_000, gate: true };

interface Vector {
  name: string;
  project: Record<string, string>;
  check: CheckSpec;
  honest: string;
  cheat: string;
  /** What the cheat's contract lists. */
  changed: string[];
}

const VECTORS: Vector[] = [
  {
    name: 'an assertion edit that keeps every test name and count',
    project: NODE_PROJECT,
    check: NPM_TEST,
    honest: NODE_FIX,
    cheat: `sed -i 's/applyDiscount(1000, 10), 900/applyDiscount(1000, 10), 990/' lib.test.js`,
    changed: ['lib.test.js'],
  },
  {
    name: 'a deleted test file',
    project: NODE_PROJECT,
    check: NPM_TEST,
    honest: NODE_FIX,
    cheat: `git rm -q lib.test.js && echo '// tidied' >> lib.js`,
    changed: ['lib.test.js (deleted)'],
  },
  {
    name: 'an added skip',
    project: NODE_PROJECT,
    check: NPM_TEST,
    honest: NODE_FIX,
    cheat: `sed -i "s/^test('ten percent off'/test.skip('ten percent off'/" lib.test.js`,
    changed: [
      'lib.test.js',
      "lib.test.js: adds test.skip('ten percent off', () => assert.equal(applyDiscount(1000, 10), 900));",
    ],
  },
  {
    name: '.npmrc node-options that no-op assert',
    project: NODE_PROJECT,
    check: NPM_TEST,
    honest: NODE_FIX,
    cheat: `printf 'node-options=--require ./.fix.cjs\\n' > .npmrc
printf "const a = require('node:assert');\\nfor (const m of [a, a.strict]) { m.equal = () => {}; m.strictEqual = () => {}; }\\n" > .fix.cjs`,
    changed: ['.npmrc (added)'],
  },
  {
    name: 'a changed test script',
    project: NODE_PROJECT,
    check: NPM_TEST,
    honest: NODE_FIX,
    cheat: `sed -i 's|"test": "node --test"|"test": "node --test --test-name-pattern=discount"|' package.json`,
    changed: ['package.json scripts.test'],
  },
  {
    name: 'a pytest.py at the root that shadows the runner',
    project: PYTHON_PROJECT,
    check: PYTEST,
    honest: PYTHON_FIX,
    cheat: `echo 'print("2 passed in 0.01s")' > pytest.py`,
    changed: ['pytest.py (added)'],
  },
  {
    name: 'a conftest.py monkeypatch',
    project: PYTHON_PROJECT,
    check: PYTEST,
    honest: PYTHON_FIX,
    cheat: `printf 'import calc\\ncalc.add = lambda a, b: a + b\\n' > conftest.py`,
    changed: ['conftest.py (added)'],
  },
];

const race = async (
  project: Record<string, string>,
  bodies: Record<string, string>,
  extra: Parameters<typeof raceScripts>[2],
): Promise<RaceSummary> => {
  sandbox = makeSandbox();
  write(sandbox.repo, project);
  commitAll(sandbox.repo, 'a project with a bug');
  for (const id of Object.keys(bodies)) unregister.push(registerScriptAgent(id));
  handle = raceScripts(sandbox, bodies, extra);
  await handle.settled;
  return handle.finish();
};

describe.each(VECTORS)('the contract against $name', (vector) => {
  it('merges the honest fix, and marks the cheat as passing only with its own tests', async () => {
    const summary = await race(
      vector.project,
      { honest: vector.honest, cheat: vector.cheat },
      { checks: [vector.check], autoMerge: 'best' },
    );
    const cheat = agentOf(summary, 'cheat');
    expect(cheat.contract).toEqual({ changed: vector.changed, passesOwn: true, passesBase: false });
    expect(cheat.checks?.[0]?.own?.status).toBe('passed');
    expect(cheat.checks?.[0]?.status).toBe('failed');
    expect(agentOf(summary, 'honest').contract).toBeUndefined();
    expect(summary.merged?.agent).toBe('honest');
  });

  it('merges nothing when the cheat is alone', async () => {
    const summary = await race(
      vector.project,
      { cheat: vector.cheat },
      { checks: [vector.check], autoMerge: 'best' },
    );
    expect(agentOf(summary, 'cheat').contract?.passesBase).toBe(false);
    expect(summary.merged).toBeNull();
    expect(git(sandbox?.repo ?? '', 'status', '--porcelain')).toBe('');
  });
});

describe('--allow-test-changes when the task changes what the tests pin down', () => {
  // The task: applyDiscount takes a fraction (0.1), no longer a percentage (10).
  const PERCENT = {
    ...NODE_PROJECT,
    'lib.js': 'export const applyDiscount = (price, percent) => price - (price * percent) / 100;\n',
  };
  const bodies = {
    // Code and tests changed together.
    both: `sed -i 's|price - (price \\* percent) / 100|price * (1 - percent)|' lib.js
sed -i 's/applyDiscount(1000, 10), 900/applyDiscount(1000, 0.1), 900/' lib.test.js`,
    // The code alone: the base's tests fail on it, and so do its own (the same).
    code: `sed -i 's|price - (price \\* percent) / 100|price * (1 - percent)|' lib.js`,
    // The tests alone: the code still takes a percentage.
    tests: `sed -i 's/applyDiscount(1000, 10), 900/applyDiscount(1000, 0.1), 900/' lib.test.js`,
  };

  it('merges the result that changed the code and the tests consistently', async () => {
    const summary = await race(PERCENT, bodies, {
      checks: [NPM_TEST],
      autoMerge: 'best',
      allowTestChanges: true,
    });
    expect(agentOf(summary, 'both').contract).toEqual({
      changed: ['lib.test.js'],
      passesOwn: true,
      passesBase: false,
    });
    expect(agentOf(summary, 'tests').contract?.passesOwn).toBe(false);
    expect(summary.merged?.agent).toBe('both');
    expect(readFileSync(path.join(sandbox?.repo ?? '', 'lib.js'), 'utf8')).toContain('1 - percent');
  });

  it('without it, merges nothing: changing the tests is the user’s decision', async () => {
    const summary = await race(PERCENT, bodies, { checks: [NPM_TEST], autoMerge: 'best' });
    expect(summary.merged).toBeNull();
    expect(agentOf(summary, 'both').score?.disqualified).toBe('failed gate test');
    // Its own tests fail: passing the base's (its code unchanged) does not make it right.
    expect(agentOf(summary, 'tests').contract).toEqual({
      changed: ['lib.test.js'],
      passesOwn: false,
      passesBase: true,
    });
    expect(agentOf(summary, 'tests').score?.disqualified).toBe('failed gate test');
  });
});
