/**
 * `--no-cross-test` (`[race] cross_test = false`, RaceOptions.crossTest): an agent's new test that
 * reproduces the bug is not run on the base or the other results: no cross-test checkout is made,
 * the race goes from its checks straight to reviewing, and no agent has `newTests`.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../../../src/engine/config/parse.js';
import { resolveRace } from '../../../../../src/engine/config/resolve.js';
import type { RaceHandle } from '../../../../../src/engine/index.js';
import { raceScripts, registerScriptAgent } from '../../../../support/script-agent.js';
import { git, makeSandbox } from '../../../../support/engine-helpers.js';
import type { Sandbox } from '../../../../support/engine-helpers.js';
import { sedInPlace } from '../../../../support/posix-edit.js';

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

const REPRODUCTION = `${sedInPlace('s/a - b/a + b/', 'lib.js')}
cat > add.test.js <<'EOF'
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add } from './lib.js';
test('adds', () => assert.equal(add(2, 3), 5));
EOF`;

/** Every directory ever seen under the run's worktree directory while the race ran. */
const watchDirs = (root: string): { seen: Set<string>; stop: () => void } => {
  const seen = new Set<string>();
  const timer = setInterval(() => {
    if (!existsSync(root)) return;
    for (const repo of readdirSync(root))
      for (const run of existsSync(path.join(root, repo)) ? readdirSync(path.join(root, repo)) : [])
        for (const entry of existsSync(path.join(root, repo, run))
          ? readdirSync(path.join(root, repo, run))
          : [])
          seen.add(entry);
  }, 20);
  return { seen, stop: () => clearInterval(timer) };
};

/** Races one agent that fixes the bug and adds a test reproducing it; what the race saw. */
async function raceFixer(crossTest: false | undefined) {
  const box = makeSandbox();
  sandbox = box;
  writeFileSync(path.join(box.repo, 'package.json'), '{"name":"p","private":true,"type":"module"}\n');
  writeFileSync(path.join(box.repo, 'lib.js'), 'export const add = (a, b) => a - b;\n');
  git(box.repo, 'add', '.');
  git(box.repo, 'commit', '-q', '-m', 'add is wrong');
  unregister.push(registerScriptAgent('fixer'));
  const phases = new Set<string>();
  const dirs = watchDirs(box.worktreeRoot);
  handle = raceScripts(
    box,
    { fixer: REPRODUCTION },
    {
      checks: [{ name: 'test', run: 'node --test', timeoutMs: 60_000, gate: true }],
      ...(crossTest === undefined ? {} : { crossTest }),
    },
  );
  handle.subscribe((snapshot) => phases.add(snapshot.phase));
  await handle.settled;
  const summary = await handle.finish();
  dirs.stop();
  const fixer = summary.agents.find((agent) => agent.agent === 'fixer');
  expect(fixer?.checks?.[0]?.status).toBe('passed');
  return { fixer, phases, crossDirs: [...dirs.seen].filter((entry) => entry.startsWith('.cross')) };
}

describe('cross-testing turned off', () => {
  it('runs no cross-test checkout, and no agent has newTests', async () => {
    const { fixer, phases, crossDirs } = await raceFixer(false);
    expect(fixer?.newTests).toBeUndefined();
    expect(phases.has('cross_testing')).toBe(false);
    expect(crossDirs).toEqual([]);
  }, 90_000);

  it('is on by default: the same race cross-tests (the control)', async () => {
    const { fixer, phases, crossDirs } = await raceFixer(undefined);
    expect(fixer?.newTests).toMatchObject({ count: 1, reproductions: 1 });
    expect(phases.has('cross_testing')).toBe(true);
    expect(crossDirs.length).toBeGreaterThan(0);
  }, 90_000);
});

describe('the switch', () => {
  it('is [race] cross_test = false, or --no-cross-test over it', () => {
    const off = parseConfigText('[race]\ncross_test = false\n', 'hydra.toml');
    expect(resolveRace(off, { agents: ['claude'] }).crossTest).toBe(false);
    const on = parseConfigText('[race]\ncross_test = true\n', 'hydra.toml');
    expect(resolveRace(on, { agents: ['claude'] }).crossTest).toBeUndefined();
    expect(resolveRace(on, { agents: ['claude'], crossTest: false }).crossTest).toBe(false);
    expect(resolveRace({}, { agents: ['claude'] }).crossTest).toBeUndefined();
  });
});
