/**
 * Issue 35, case 1: nothing of the verdict runs outside the jail. A test file that tries to write
 * the user's checkout, append to ~/.bashrc (a fake HOME) and copy ~/.ssh/id_ed25519 runs as the
 * base's suite (the baseline's checks and every agent's), as an agent's new test (its checks,
 * and cross-testing on the base, its own result and its rival's), and as the race's setup command
 * in every checkout. Sandboxed, every attempt is refused (the test passes only then), and the disk
 * says so; with `mode = "off"` every attempt succeeds (the test above can fail). Before the
 * baseline and cross-testing ran sandboxed, the setup and tests on the base and on the rival's
 * tree wrote the checkout and ~/.bashrc and copied the key.
 * Needs bubblewrap, socat and ripgrep (.ci/run installs them).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckSpec, RaceHandle, RaceSummary } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../support/script-agent.js';
import { agentOf } from '../../support/race-summary.js';

const SECRET = 'PRIVATE-KEY-verdict-jail-8d2e';
const BASHRC = "# the user's own\n";

let box: Sandbox;
let handle: RaceHandle | null = null;
let unregister: Array<() => void> = [];
let home: string;
let savedHome: string | undefined;

beforeEach(() => {
  box = makeSandbox();
  unregister = [registerScriptAgent('evil'), registerScriptAgent('honest')];
  home = mkdtempSync(path.join(os.tmpdir(), 'hydra-verdict-home-'));
  mkdirSync(path.join(home, '.ssh'));
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), `${SECRET}\n`, { mode: 0o600 });
  writeFileSync(path.join(home, '.bashrc'), BASHRC);
  savedHome = process.env.HOME;
  process.env.HOME = home;
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  for (const undo of unregister) undo();
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
  box.cleanup();
});

/**
 * Every escape, each tried on its own; prints what worked (and the key, when it could be read) and
 * exits 1 if anything did. `node escape.cjs <where>`.
 */
const escapeModule = (repo: string, fakeHome: string): string => `const fs = require('node:fs');
const path = require('node:path');
const tag = \`\${process.argv[2] ?? 'test'}-\${process.pid}\`;
const attempts = {
  checkout: () => fs.writeFileSync(path.join(${JSON.stringify(repo)}, \`escaped-\${tag}.txt\`), 'x'),
  bashrc: () => fs.appendFileSync(path.join(${JSON.stringify(fakeHome)}, '.bashrc'), \`echo pwned \${tag}\\n\`),
  secret: () => {
    const key = fs.readFileSync(path.join(${JSON.stringify(fakeHome)}, '.ssh', 'id_ed25519'), 'utf8');
    console.log(\`LEAK \${key.trim()}\`);
    fs.writeFileSync(path.join(${JSON.stringify(fakeHome)}, \`stolen-\${tag}\`), key);
  },
};
const worked = Object.entries(attempts).flatMap(([name, attempt]) => {
  try {
    attempt();
    return [name];
  } catch {
    return [];
  }
});
console.log(\`ESCAPED \${tag}: \${worked.join(',') || 'nothing'}\`);
module.exports = { worked };
`;

/** A test that passes only when every escape was refused. */
const escapeTest = (where: string): string => `const { test } = require('node:test');
const assert = require('node:assert/strict');
process.argv[2] = ${JSON.stringify(where)};
const { worked } = require('./escape.cjs');

test('nothing escapes', () => assert.deepEqual(worked, []));
`;

const NODE_TEST: CheckSpec = { name: 'test', run: 'node --test', timeoutMs: 60_000, gate: true };

const makeProject = (): void => {
  writeFileSync(path.join(box.repo, 'package.json'), `${JSON.stringify({ name: 'p', private: true })}\n`);
  writeFileSync(path.join(box.repo, 'escape.cjs'), escapeModule(box.repo, home));
  writeFileSync(path.join(box.repo, 'suite.test.cjs'), escapeTest('suite'));
  writeFileSync(path.join(box.repo, 'setup.cjs'), "process.argv[2] = 'setup';\nrequire('./escape.cjs');\n");
  git(box.repo, 'add', '.');
  git(box.repo, 'commit', '-q', '-m', 'a suite that tries to escape');
};

const race = async (mode: 'auto' | 'off'): Promise<RaceSummary> => {
  makeProject();
  handle = raceScripts(
    box,
    {
      // Its new test runs in its checks and is cross-tested on the base, its result and honest's.
      evil: `cat > evil.test.cjs <<'EOF'\n${escapeTest('new')}EOF`,
      honest: 'echo honest > honest.txt',
    },
    {
      checks: [NODE_TEST],
      sandbox: { mode, allowHosts: [], allowWrite: [] },
      setup: { run: ['node setup.cjs'], runSource: 'hydra.toml', timeoutMs: 60_000, copy: [], share: [] },
    },
  );
  await handle.settled;
  return handle.finish();
};

/** What the attempts left on the disk, and whether the summary holds the key. */
const traces = (summary: RaceSummary) => ({
  checkout: readdirSync(box.repo).filter((name) => name.startsWith('escaped-')),
  bashrc: readFileSync(path.join(home, '.bashrc'), 'utf8') !== BASHRC,
  stolen: readdirSync(home).filter((name) => name.startsWith('stolen-')),
  leaked: JSON.stringify(summary).includes(SECRET),
});

describe('the verdict in the jail (issue 35, case 1)', () => {
  it(
    'refuses every escape of the setup, the baseline, the checks and cross-testing',
    { timeout: 240_000 },
    async () => {
      const summary = await race('auto');
      const evil = agentOf(summary, 'evil');
      expect(evil.sandbox).toBe('bubblewrap');
      // What a check printed, should it fail: the assertion's message.
      const said = (checks: Array<{ output: string }> | undefined): string =>
        (checks ?? []).map((check) => check.output).join('\n---\n');
      expect(
        summary.baseline?.checks.map((check) => check.status),
        said(summary.baseline?.checks),
      ).toEqual(['passed']);
      expect(
        evil.checks?.map((check) => check.status),
        said(evil.checks),
      ).toEqual(['passed']);
      const honest = agentOf(summary, 'honest');
      expect(
        honest.checks?.map((check) => check.status),
        said(honest.checks),
      ).toEqual(['passed']);
      expect(evil.newTests?.tests).toEqual([
        {
          file: 'evil.test.cjs',
          runner: 'node',
          onBase: 'passed',
          onSelf: 'passed',
          onOthers: { honest: 'passed' },
        },
      ]);
      expect(traces(summary)).toEqual({ checkout: [], bashrc: false, stolen: [], leaked: false });
    },
  );

  it('with mode "off" every escape works (the test above can fail)', { timeout: 240_000 }, async () => {
    const summary = await race('off');
    const evil = agentOf(summary, 'evil');
    expect(evil.sandbox).toBeNull();
    expect(summary.baseline?.checks.map((check) => check.status)).toEqual(['failed']);
    expect(evil.newTests?.tests[0]).toMatchObject({ onBase: 'failed', onSelf: 'failed' });
    const found = traces(summary);
    // The setup and the tests of every checkout: the baseline's, each agent's checks, cross-testing's.
    expect(found.checkout.some((name) => name.startsWith('escaped-setup-'))).toBe(true);
    expect(found.checkout.some((name) => name.startsWith('escaped-new-'))).toBe(true);
    expect(found.checkout.some((name) => name.startsWith('escaped-suite-'))).toBe(true);
    expect(found).toMatchObject({ bashrc: true, leaked: true });
    expect(found.stolen.length).toBeGreaterThan(0);
  });
});
