/**
 * Issue 34: the contract's checkout is sandboxed like the result's own. A sandboxed agent's checks
 * run in bubblewrap with their checkout writable; the contract's second checkout
 * (`.contract-<agent>`) must be writable to its checks in the same way, or a check that writes in
 * its tree fails there and an honest result that added a test reads as failing the contract.
 * Needs bubblewrap, socat and ripgrep (.ci/run installs them).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScript, registerScriptAgent } from '../../support/script-agent.js';
import { agentOf } from '../../support/race-summary.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void = () => undefined;

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

describe('the contract in the sandbox', () => {
  it('runs the base’s tests in a checkout its sandboxed checks can write', { timeout: 90_000 }, async () => {
    writeFileSync(path.join(sandbox.repo, 'lib.js'), 'exports.add = (a, b) => a - b;\n');
    writeFileSync(
      path.join(sandbox.repo, 'lib.test.js'),
      "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('./lib.js');\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
    );
    git(sandbox.repo, 'add', '-A');
    git(sandbox.repo, 'commit', '-q', '-m', 'a bug');
    handle = raceScript(
      sandbox,
      [
        // The fix, and one more test in the base's test file: an honest change to the tests.
        "sed -i 's/a - b/a + b/' lib.js",
        'echo "test(\'adds zero\', () => assert.equal(add(2, 0), 2));" >> lib.test.js',
      ].join('\n'),
      {
        sandbox: { mode: 'auto', allowHosts: [], allowWrite: [] },
        // The check writes in its checkout before it tests.
        checks: [
          { name: 'test', run: 'sh -c "echo ran > .ran && node --test"', timeoutMs: 60_000, gate: true },
        ],
      },
    );
    await handle.settled;
    expect(handle.getSnapshot().warnings).toEqual([]);
    const summary = await handle.finish();
    const agent = agentOf(summary, 'scripted');
    expect(agent.sandbox).toBe('bubblewrap');
    expect(agent.contract).toEqual({ changed: ['lib.test.js'], passesOwn: true, passesBase: true });
    expect(agent.score?.disqualified).toBeNull();
  });
});
