/**
 * Issue 22: on a machine without the sandbox's packages (simulated: HYDRA_SANDBOX_PATH names an
 * empty folder, so bwrap, socat and rg are not found), `required` refuses the race before any
 * worktree exists, naming what is missing and the install command; `auto` races unsandboxed and
 * says so. Its own file: the machine check is made once per process.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_PATH_ENV } from '../../../src/engine/sandbox/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScript, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;
let empty: string;

beforeAll(() => {
  empty = mkdtempSync(path.join(os.tmpdir(), 'hydra-no-sandbox-tools-'));
  process.env[SANDBOX_PATH_ENV] = empty;
});

afterAll(() => {
  delete process.env[SANDBOX_PATH_ENV];
  rmSync(empty, { recursive: true, force: true });
});

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

describe('a machine without bubblewrap, socat and ripgrep', () => {
  it('refuses a race in mode "required", naming what is missing and how to install it', async () => {
    handle = raceScript(sandbox, 'echo hello > hello.txt', {
      sandbox: { mode: 'required', allowHosts: [], allowWrite: [] },
    });
    const summary = await handle.settled;
    expect(summary.error?.kind).toBe('Refused');
    expect(summary.error?.message).toContain('bubblewrap, socat and ripgrep are not installed');
    expect(summary.error?.hint).toContain('apt-get install bubblewrap socat ripgrep');
    // Refused before any worktree or branch was made.
    expect(git(sandbox.repo, 'branch', '--list', 'hydra/*')).toBe('');
    expect(git(sandbox.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('races unsandboxed in mode "auto" and says so', async () => {
    handle = raceScript(sandbox, 'echo hello > hello.txt', {
      sandbox: { mode: 'auto', allowHosts: [], allowWrite: [] },
    });
    const summary = await handle.settled;
    expect(summary.error).toBeNull();
    expect(summary.agents.map((agent) => [agent.status, agent.sandbox])).toEqual([['completed', null]]);
    expect(handle.getSnapshot().warnings).toEqual([
      expect.stringContaining(
        'Agents run unsandboxed (with your full powers): bubblewrap, socat and ripgrep are not installed',
      ),
    ]);
  });

  it('runs the baseline and cross-testing unsandboxed too in mode "auto", as docs/sandbox.md says', async () => {
    // A test that writes outside its checkout, in the base (the baseline runs it) and as the agent's new test.
    const outside = path.join(sandbox.dir, 'outside');
    const writer = (name: string): string =>
      `require('node:fs').writeFileSync(${JSON.stringify(`${outside}-${name}`)}, 'x'); require('node:test').test('writes', () => {});`;
    writeFileSync(path.join(sandbox.repo, 'base.test.cjs'), writer('base'));
    git(sandbox.repo, 'add', '.');
    git(sandbox.repo, 'commit', '-q', '-m', 'a test that writes outside its checkout');
    handle = raceScript(sandbox, `printf '%s' ${JSON.stringify(writer('new'))} > new.test.cjs`, {
      sandbox: { mode: 'auto', allowHosts: [], allowWrite: [] },
      checks: [{ name: 'test', run: 'node --test', timeoutMs: 60_000, gate: true }],
    });
    const summary = await handle.settled;
    expect(summary.agents.map((agent) => agent.sandbox)).toEqual([null]);
    expect(summary.agents[0]?.newTests?.tests.map((test) => test.onBase)).toEqual(['passed']);
    expect(existsSync(`${outside}-base`)).toBe(true);
    expect(existsSync(`${outside}-new`)).toBe(true);
  });
});
