/**
 * Issue 23: `[setup] share` inside the OS sandbox. bubblewrap runs in the agent's namespace, after
 * the init mounted the overlay on `<worktree>/node_modules`, and binds the worktree recursively:
 * the agent (and its sandboxed checks) must see the shared packages there and write over them,
 * while the user's copy stays as it was. Needs bubblewrap, socat and ripgrep (.ci/run installs them).
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../src/engine/index.js';
import { makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScript, registerScriptAgent } from '../../support/script-agent.js';
import { branchFile, makeNodeProject, treeState } from '../../support/share-project.js';

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

describe('[setup] share in the sandbox (issue 23)', () => {
  it(
    'shows the overlay inside bubblewrap, writable, to the agent and its checks',
    { timeout: 90_000 },
    async () => {
      makeNodeProject(sandbox.repo);
      const before = treeState(path.join(sandbox.repo, 'node_modules'));
      handle = raceScript(
        sandbox,
        [
          'echo mine > node_modules/wrote-by-agent',
          'echo "module.exports = () => \'ok\';" > node_modules/leftpad/index.js',
          'rm node_modules/leftpad/extra.txt',
          'ls node_modules node_modules/leftpad > seen.txt',
          'git add seen.txt',
          'git commit -q -m "what it saw"',
        ].join('\n'),
        {
          sandbox: { mode: 'auto', allowHosts: [], allowWrite: [] },
          setup: { run: [], runSource: null, timeoutMs: 60_000, copy: [], share: ['node_modules'] },
          checks: [{ name: 'test', run: 'node test.js', timeoutMs: 60_000, gate: true }],
        },
      );
      await handle.settled;
      const snapshot = handle.getSnapshot();
      const summary = await handle.finish();

      // Sandboxed, and shared by overlay.
      expect(snapshot.warnings).toEqual([]);
      expect(snapshot.agents[0]?.recentEvents).toContainEqual(
        expect.objectContaining({ stage: 'shared', detail: 'node_modules by overlay (copy-on-write)' }),
      );
      expect(branchFile(sandbox.repo, summary.agents[0]?.branch ?? '', 'seen.txt')).toBe(
        'node_modules:\nleftpad\nunused\nwrote-by-agent\n\nnode_modules/leftpad:\nindex.js\npackage.json\n',
      );
      expect(summary.agents[0]?.checks?.map((check) => [check.status, check.output])).toEqual([
        ['passed', 'leftpad ok'],
      ]);
      expect(treeState(path.join(sandbox.repo, 'node_modules'))).toEqual(before);
    },
  );
});
