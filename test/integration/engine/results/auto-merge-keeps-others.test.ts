/**
 * Issue 21, case 16: `--auto-merge best` keeps the other results like a manual merge (their
 * branches stay until `hydra clean`); once merged, the race ends as a headless one does, so no
 * worktree is left behind.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../../src/engine/index.js';
import type { CheckSpec, RaceHandle } from '../../../../src/engine/index.js';
import { extraWorktrees } from '../../../support/fault-invariants.js';
import { git, installAgents, makeSandbox, plan, raceOptions } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

const BUGGY = 'export const add = (a, b) => a - b;\n';
const FIXED = 'export const add = (a, b) => a + b;\n';
const TESTS = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add } from './lib.js';
test('adds', () => assert.equal(add(2, 3), 5));
`;
const CHECKS: CheckSpec[] = [{ name: 'test', run: 'node --test lib.test.js', timeoutMs: 60_000, gate: true }];

describe('--auto-merge best', () => {
  it('merges the best result and keeps the other results’ branches', async () => {
    sandbox = makeSandbox();
    writeFileSync(path.join(sandbox.repo, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(path.join(sandbox.repo, 'lib.js'), BUGGY);
    writeFileSync(path.join(sandbox.repo, 'lib.test.js'), TESTS);
    git(sandbox.repo, 'add', '.');
    git(sandbox.repo, 'commit', '-q', '-m', 'a bug');
    await installAgents(sandbox, {
      claude: { edits: [{ path: 'lib.js', content: FIXED }] },
      codex: { edits: [{ path: 'notes.txt', content: 'looked at it\n' }] },
    });
    handle = startRace(
      raceOptions(
        sandbox,
        ['claude', 'codex'].map((agent) => plan(sandbox, agent)),
        { checks: CHECKS, autoMerge: 'best' },
      ),
    );
    await handle.settled;
    const summary = await handle.finish();

    expect(summary.merged?.agent).toBe('claude');
    expect(readFileSync(path.join(sandbox.repo, 'lib.js'), 'utf8')).toBe(FIXED);
    const branches = git(
      sandbox.repo,
      'branch',
      '--list',
      `hydra/${handle.runId}/*`,
      '--format=%(refname:short)',
    );
    expect(branches.trim().split('\n')).toEqual([`hydra/${handle.runId}/codex`]);
    expect(summary.agents.find((agent) => agent.agent === 'codex')?.branch).toBe(
      `hydra/${handle.runId}/codex`,
    );
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
  }, 60_000);
});
