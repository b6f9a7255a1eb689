/**
 * Issue 21, "The verdict", cases 14 and 15: checks judge what a result committed, in a clean
 * checkout of its commit (never the agent's worktree, with its index flags and uncommitted edits),
 * and a result that removes or skips the tests the baseline ran, or changes what a check runs, is
 * flagged, scores below an honest fix and is not auto-merged unless the user allows test changes.
 * Real repositories, real `node --test` and `npm test`, agents that are shell scripts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckSpec, RaceHandle, RaceSummary } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../support/script-agent.js';
import { agentOf } from '../../support/race-summary.js';
import { sedInPlace } from '../../support/posix-edit.js';

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

const BUGGY = 'export const add = (a, b) => a - b;\nexport const mul = (a, b) => a * b;\n';

const TESTS = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add, mul } from './lib.js';

test('adds', () => assert.equal(add(2, 3), 5));
test('multiplies', () => assert.equal(mul(2, 3), 6));
test('multiplies by zero', () => assert.equal(mul(7, 0), 0));
`;

/** A project whose suite has one failing test ('adds') at the base commit. */
const makeProject = (box: Sandbox, scripts: Record<string, string> = {}): void => {
  writeFileSync(
    path.join(box.repo, 'package.json'),
    `${JSON.stringify({ name: 'p', private: true, type: 'module', scripts }, null, 2)}\n`,
  );
  writeFileSync(path.join(box.repo, 'lib.js'), BUGGY);
  writeFileSync(path.join(box.repo, 'lib.test.js'), TESTS);
  git(box.repo, 'add', '.');
  git(box.repo, 'commit', '-q', '-m', 'a library with a bug');
};

const NODE_TEST: CheckSpec = { name: 'test', run: 'node --test lib.test.js', timeoutMs: 60_000, gate: false };

/** A script that deletes the test of `add` (a check that cannot fail). */
const DELETE_TEST = sedInPlace("/test('adds'/d", 'lib.test.js');

/** The honest fix: one line of lib.js. */
const FIX = sedInPlace('s/a - b/a + b/', 'lib.js');

const race = async (
  bodies: Record<string, string>,
  extra: Parameters<typeof raceScripts>[2],
): Promise<RaceSummary> => {
  const box = sandbox;
  if (box === null) throw new Error('no sandbox');
  for (const id of Object.keys(bodies)) unregister.push(registerScriptAgent(id));
  handle = raceScripts(box, bodies, extra);
  await handle.settled;
  return handle.finish();
};

describe('checks judge the committed result (issue 21, case 14)', () => {
  it('an agent that neuters the tests in its worktree and hides it with skip-worktree fails its gate and is not merged', async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const mainBefore = git(sandbox.repo, 'rev-parse', 'main').trim();
    const summary = await race(
      {
        // The suite it leaves in its worktree passes; what it commits is a comment.
        neuter: `cat > lib.test.js <<'EOF'
import { test } from 'node:test';
test('adds', () => {});
test('multiplies', () => {});
test('multiplies by zero', () => {});
EOF
git update-index --skip-worktree lib.test.js
echo '// tidied' >> lib.js`,
      },
      { checks: [{ ...NODE_TEST, gate: true }], autoMerge: 'best' },
    );
    const cheat = agentOf(summary, 'neuter');
    expect(cheat.status).toBe('completed');
    expect(cheat.diff.filesChanged).toBe(1);
    expect(cheat.checks?.[0]?.status).toBe('failed');
    expect(cheat.checks?.[0]?.tests).toEqual({ passed: 2, failed: 1, skipped: 0 });
    expect(cheat.score?.disqualified).toBe('failed gate test');
    expect(summary.merged).toBeNull();
    expect(git(sandbox.repo, 'rev-parse', 'main').trim()).toBe(mainBefore);
  });
});

describe('a result that changes what its checks run is flagged (issue 21, case 15)', () => {
  it('deleting the failing test scores below the honest fix, which is merged', async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const summary = await race(
      {
        honest: FIX,
        // One line fewer than the fix: without the flag its diff alone would win.
        deleter: DELETE_TEST,
      },
      { checks: [NODE_TEST], autoMerge: 'best' },
    );
    const honest = agentOf(summary, 'honest');
    const cheat = agentOf(summary, 'deleter');
    // With its own version of the tests it passes; with the base's (the contract) it fails.
    expect(cheat.checks?.[0]?.own?.status).toBe('passed');
    expect(cheat.checks?.[0]?.own?.tampered).toEqual([
      'ran 2 tests; the baseline ran 3',
      'no longer runs adds',
    ]);
    expect(cheat.checks?.[0]?.status).toBe('failed');
    expect(cheat.contract).toEqual({ changed: ['lib.test.js'], passesOwn: true, passesBase: false });
    expect(cheat.score?.flags).toEqual([
      "test: passes only with its own versions of the base's tests (it changed lib.test.js)",
    ]);
    expect(cheat.score?.parts.checks).toBe(0);
    expect(honest.contract).toBeUndefined();
    expect(honest.checks?.[0]?.tampered).toBeUndefined();
    expect(honest.score?.flags).toBeUndefined();
    expect(cheat.score?.total ?? 100).toBeLessThan(honest.score?.total ?? 0);
    expect(summary.merged?.agent).toBe('honest');
  });

  it('replacing scripts.test with an echo of passing counts is flagged for `npm test`, and the honest fix wins', async () => {
    sandbox = makeSandbox();
    makeProject(sandbox, { test: 'node --test lib.test.js' });
    const echo = `printf '# tests 3\\\\n# pass 3\\\\n# fail 0\\\\n'`;
    const summary = await race(
      {
        honest: FIX,
        echoer: `node -e "const fs=require('fs');const p=JSON.parse(fs.readFileSync('package.json'));p.scripts.test=process.argv[1];fs.writeFileSync('package.json',JSON.stringify(p,null,2)+'\\n')" "${echo}"`,
      },
      { checks: [{ name: 'npm', run: 'npm test', timeoutMs: 60_000, gate: true }], autoMerge: 'best' },
    );
    const cheat = agentOf(summary, 'echoer');
    expect(cheat.checks?.[0]?.own?.status).toBe('passed');
    // Its counts match the baseline's: only the changed command gives it away.
    expect(cheat.checks?.[0]?.own?.tests).toEqual({ passed: 3, failed: 0, skipped: 0 });
    expect(cheat.checks?.[0]?.own?.tampered).toEqual(['changed package.json scripts.test']);
    // The contract runs the base's scripts.test on its result: the bug is still there.
    expect(cheat.checks?.[0]?.status).toBe('failed');
    expect(cheat.contract?.changed).toEqual(['package.json scripts.test']);
    expect(cheat.score?.disqualified).toBe('failed gate npm');
    expect(cheat.score?.total ?? 100).toBeLessThan(agentOf(summary, 'honest').score?.total ?? 0);
    expect(summary.merged?.agent).toBe('honest');
  });

  it('a flagged result alone is not auto-merged, and says how to allow it', async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const summary = await race({ deleter: DELETE_TEST }, { checks: [NODE_TEST], autoMerge: 'best' });
    expect(summary.merged).toBeNull();
    expect(summary.mergeReason).toMatch(
      /deleter .*changed the base's tests or what its checks run.*passes only with its own versions.*--allow-test-changes/,
    );
  });

  it('with --allow-test-changes the user lets such a result win', async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const summary = await race(
      { deleter: DELETE_TEST },
      { checks: [NODE_TEST], autoMerge: 'best', allowTestChanges: true },
    );
    const cheat = agentOf(summary, 'deleter');
    // Both runs are kept; the score reads its own.
    expect(cheat.contract).toEqual({ changed: ['lib.test.js'], passesOwn: true, passesBase: false });
    expect(cheat.score?.flags).toEqual([
      'test: ran 2 tests; the baseline ran 3',
      'test: no longer runs adds',
      "test: passes only with its own versions of the base's tests (it changed lib.test.js)",
    ]);
    expect(cheat.score?.parts.checks).toBe(1);
    expect(summary.allowTestChanges).toBe(true);
    expect(summary.merged?.agent).toBe('deleter');
  });

  it('a check that writes tracked files of its checkout is noticed and not auto-merged', async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const summary = await race(
      { honest: FIX },
      {
        checks: [
          { name: 'writer', run: 'sh -c "echo changed >> README.md"', timeoutMs: 60_000, gate: false },
        ],
        autoMerge: 'best',
      },
    );
    const honest = agentOf(summary, 'honest');
    expect(honest.checks?.[0]?.checkoutChanged).toEqual(['README.md']);
    expect(summary.baseline?.checks[0]?.checkoutChanged).toEqual(['README.md']);
    expect(honest.score?.flags?.[0]).toMatch(/writer: its checkout changed while it ran \(README\.md\)/);
    expect(summary.merged).toBeNull();
  });
});
