/**
 * Issue 35's checks' environment: a result whose code prints a credential of hydra's environment,
 * base64-encoded so the redaction of token shapes cannot catch it. Its library prints it when
 * imported (so its checks, the contract's run and every cross-test print it), its new test fails
 * when it can see it, and a script it adds runs in every setup of its trees (as `npm ci` runs a
 * package's install scripts). Shared by the race without the sandbox
 * (test/integration/engine/checks/check-environment.test.ts) and in it (test/system/sandbox/).
 */
import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { CheckSpec, RaceHandle, RaceOptions } from '../../src/engine/index.js';
import { git, makeSandbox } from './engine-helpers.js';
import { registerScriptAgent } from './script-agent.js';
import type { Sandbox } from './engine-helpers.js';

/** The credential under a cloud's name (AWS_*: out by its family and by its name). */
export const CREDENTIAL_NAME = 'AWS_SECRET_ACCESS_KEY';
export const CREDENTIAL = 'wJalrXUtnFEMI-K7MDENG-checkenv-8c1f';
/** A variable that holds no credential: an honest suite's, kept. */
export const PLAIN_NAME = 'DATABASE_URL';
export const PLAIN = 'postgres://db.example/checkenv';

export const encoded = (text: string): string => Buffer.from(text).toString('base64');

/** What the result's code prints: the credential as it sees it (`absent` when it cannot). */
export const probeLine = (seen: string): string => `probe:${encoded(seen)}`;

export const NODE_TEST: CheckSpec = { name: 'test', run: 'node --test', timeoutMs: 60_000, gate: false };

/** The race's setup: runs the tree's own hook when it has one, as an install runs a package's scripts. */
export const SETUP: NonNullable<RaceOptions['setup']> = {
  run: ['if [ -f hook.sh ]; then sh hook.sh; fi'],
  runSource: 'hydra.toml',
  timeoutMs: 60_000,
  copy: [],
  share: [],
};

/** A project whose suite passes on the base and prints nothing of the environment. */
export function makeProject(box: Sandbox): void {
  writeFileSync(
    path.join(box.repo, 'package.json'),
    `${JSON.stringify({ name: 'p', private: true, type: 'module' })}\n`,
  );
  writeFileSync(path.join(box.repo, 'lib.js'), 'export const mul = (a, b) => a * b;\n');
  writeFileSync(
    path.join(box.repo, 'lib.test.js'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { mul } from './lib.js';\n\ntest('multiplies', () => assert.equal(mul(2, 3), 6));\n",
  );
  git(box.repo, 'add', '.');
  git(box.repo, 'commit', '-q', '-m', 'a library and its test');
}

/**
 * The agent's script: its library prints the credential and the plain variable, it changes the
 * base's test (so the contract runs), adds a test that fails when it sees the credential (so
 * cross-testing on the base says whether it did), and a hook every setup of its trees runs.
 */
export const LEAKY_AGENT = `cat >> lib.js <<'EOF'
console.log('probe:' + Buffer.from(process.env.${CREDENTIAL_NAME} ?? 'absent').toString('base64'));
console.log('plain:' + (process.env.${PLAIN_NAME} ?? 'absent'));
EOF
echo '// reworded' >> lib.test.js
cat > leak.test.js <<'EOF'
import { test } from 'node:test';
import assert from 'node:assert/strict';
import './lib.js';

test('sees no credential', () => assert.equal(process.env.${CREDENTIAL_NAME}, undefined));
test('sees the plain variable', () => assert.equal(process.env.${PLAIN_NAME}, '${PLAIN}'));
EOF
cat > hook.sh <<'EOF'
echo "hook:$(printf %s "\${${CREDENTIAL_NAME}:-absent}" | base64)"
EOF`;

/** Every file under `dir` (links and special files left out) whose text holds `needle`. */
export function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const file = path.join(at, name);
      const stat = lstatSync(file, { throwIfNoEntry: false });
      if (stat?.isDirectory() === true) walk(file);
      else if (stat?.isFile() === true && readFileSync(file, 'latin1').includes(needle)) found.push(file);
    }
  };
  walk(dir);
  return found;
}

/** A test's sandbox and its race (cancelled after the test). */
export interface LeakyRace {
  box: Sandbox;
  handle: RaceHandle | null;
}

/**
 * The hooks both files share: for each test a fresh sandbox and the leaky script agent, the
 * credential and the plain variable in hydra's environment (put back after), the race cancelled.
 */
export function useLeakyRace(): LeakyRace {
  const state: LeakyRace = { box: undefined as unknown as Sandbox, handle: null };
  let unregister: () => void = () => undefined;
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    state.box = makeSandbox();
    unregister = registerScriptAgent('leaky');
    for (const name of [CREDENTIAL_NAME, PLAIN_NAME]) saved[name] = process.env[name];
    process.env[CREDENTIAL_NAME] = CREDENTIAL;
    process.env[PLAIN_NAME] = PLAIN;
  });
  afterEach(async () => {
    await state.handle?.cancel();
    state.handle = null;
    unregister();
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    state.box.cleanup();
  });
  return state;
}
