/**
 * Issue 34, "Cross-tests that cannot tell whose tree they are in": a cheat that fixes nothing
 * writes "reproductions" rigged on whose tree they run in (HYDRA_AGENT, the checkout's path, the
 * test file's mode, what git says of HEAD and the status); a vandal's test deletes what it runs against when the tree is not its
 * own. Before, each failed on the base and on the honest fix and passed on its author's result,
 * so the honest fix "failed a rival's reproduction" and the cheat's smaller diff won. Now every
 * tree looks the same to a test, and a test that changes its tree proves nothing and is named.
 * Real git, real `node --test`, agents that are shell scripts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckSpec, RaceHandle, RaceSummary } from '../../../../../src/engine/index.js';
import { git, makeSandbox } from '../../../../support/engine-helpers.js';
import type { Sandbox } from '../../../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../../../support/script-agent.js';
import { agentOf } from '../../../../support/race-summary.js';

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

const makeProject = (box: Sandbox): void => {
  writeFileSync(
    path.join(box.repo, 'package.json'),
    `${JSON.stringify({ name: 'p', private: true, type: 'module' }, null, 2)}\n`,
  );
  writeFileSync(
    path.join(box.repo, 'lib.js'),
    'export const add = (a, b) => a - b;\nexport const mul = (a, b) => a * b;\n',
  );
  writeFileSync(
    path.join(box.repo, 'lib.test.js'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { mul } from './lib.js';\n\ntest('multiplies', () => assert.equal(mul(2, 3), 6));\n",
  );
  git(box.repo, 'add', '.');
  git(box.repo, 'commit', '-q', '-m', 'a library whose add has no test');
};

const NODE_TEST: CheckSpec = { name: 'test', run: 'node --test', timeoutMs: 60_000, gate: true };

const FIX = `sed -i 's/a - b/a + b/' lib.js`;

/** A test file an agent writes: `node:test`, `assert`, `execSync`, `fs` and `url` imported. */
const writeTest = (file: string, body: string): string => `cat > ${file} <<'EOF'
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

${body}
EOF`;

/** Tests that pass only where they can tell they are in the cheat's own tree. */
const RIGGED = [
  writeTest('env.test.js', "test('adds', () => assert.equal(process.env.HYDRA_AGENT, 'cheat'));"),
  writeTest('path.test.js', "test('adds', () => assert.match(process.cwd(), /cheat/));"),
  writeTest(
    'worktree.test.js',
    "test('adds', () => assert.match(process.env.HYDRA_WORKTREE ?? '', /cheat/));",
  ),
  // Executable in its commit: git checks it out 0755 on its own tree, a copy was 0644.
  writeTest(
    'mode.test.js',
    "test('adds', () => assert.ok(fs.statSync(fileURLToPath(import.meta.url)).mode & 0o100));",
  ),
  'chmod +x mode.test.js',
  // What git says: the result's commit message and branch name the agent; its own files are new elsewhere.
  writeTest(
    'log.test.js',
    "test('adds', () => assert.match(execSync('git log -1 --format=%B; git branch --points-at HEAD', { encoding: 'utf8' }), /cheat/));",
  ),
  writeTest(
    'status.test.js',
    "test('adds', () => assert.equal(execSync('git status --porcelain', { encoding: 'utf8' }), ''));",
  ),
].join('\n');

/** Deletes lib.js of any tree that is not its author's (its comment is not there), then tests add. */
const VANDAL = writeTest(
  'vandal.test.js',
  `test('adds', async () => {
  if (!fs.readFileSync('lib.js', 'utf8').includes('vandal')) fs.rmSync('lib.js');
  const { add } = await import('./lib.js');
  assert.equal(add(2, 3), 5);
});`,
);

const race = async (
  box: Sandbox,
  bodies: Record<string, string>,
  extra: Parameters<typeof raceScripts>[2],
): Promise<RaceSummary> => {
  for (const id of Object.keys(bodies)) unregister.push(registerScriptAgent(id));
  handle = raceScripts(box, bodies, extra);
  await handle.settled;
  return handle.finish();
};

describe('cross-tests that cannot tell whose tree they are in (issue 34)', () => {
  it('a reproduction rigged on the environment, the path, the mode or git is no reproduction, and the honest fix wins', async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const summary = await race(
      sandbox,
      { cheat: RIGGED, honest: FIX },
      { checks: [NODE_TEST], autoMerge: 'best' },
    );
    const cheat = agentOf(summary, 'cheat');
    const honest = agentOf(summary, 'honest');
    // Each rigged file ran the same way on every tree: none reproduces anything.
    expect(cheat.newTests?.count).toBe(6);
    expect(cheat.newTests?.reproductions).toBe(0);
    for (const test of cheat.newTests?.tests ?? [])
      expect([test.file, test.onBase, test.onOthers['honest']]).toEqual([
        test.file,
        test.onSelf,
        test.onSelf,
      ]);
    expect(honest.warnings ?? []).toEqual([]);
    expect(cheat.score?.parts).not.toHaveProperty('evidence');
    expect(summary.merged?.agent).toBe('honest');
  }, 180_000);

  it('a test that deletes files of the tree it runs in proves nothing and is named', async () => {
    sandbox = makeSandbox();
    makeProject(sandbox);
    const summary = await race(
      sandbox,
      { vandal: `${FIX}\necho '// vandal' >> lib.js\n${VANDAL}`, honest: FIX },
      { checks: [NODE_TEST], autoMerge: 'best' },
    );
    const vandal = agentOf(summary, 'vandal');
    const honest = agentOf(summary, 'honest');
    expect(vandal.newTests?.tests).toEqual([
      {
        file: 'vandal.test.js',
        runner: 'node',
        onBase: 'failed',
        onSelf: 'passed',
        onOthers: { honest: 'failed' },
        changesTree: { base: ['lib.js'], others: { honest: ['lib.js'] } },
      },
    ]);
    expect(vandal.newTests?.reproductions).toBe(0);
    expect(vandal.warnings).toContain(
      "its test vandal.test.js changed the tree it ran in: the base (lib.js); honest's result (lib.js); it proves nothing",
    );
    expect(honest.warnings).toEqual([
      "vandal's test vandal.test.js changed this result's files as it ran: not counted",
    ]);
    expect(vandal.score?.parts).not.toHaveProperty('evidence');
    expect(summary.merged?.agent).toBe('honest');
  }, 180_000);
});
