/**
 * Issue 35, honest set-ups: an agent whose `[agents.X] env` sets HOME runs in the jail with that
 * home's state (its own copy of it), which exists before the jail starts. The fakes behave as the
 * real CLIs do at start (measured on Gemini CLI 0.61 and Qwen Code 0.24.4): Gemini CLI writes
 * `<home>/.gemini/projects.json.<n>.tmp` (EROFS or ENOENT when it cannot), Qwen Code makes a
 * directory in `<home>/.qwen` (ENOENT when `~/.qwen` does not exist). Both homes here are fresh:
 * no `.gemini`, no `.qwen`. And a CLI that dies of a refused write or connection (REFUSE=write:
 * a file under the user's home, REFUSE=connect: a loopback port not allowed) fails naming what was
 * refused and the `[sandbox]` line that allows it. Needs bubblewrap, socat, ripgrep and curl.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { installAgents, makeSandbox, plan, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let agentHome: string;

/** What each CLI does first, as the real one: a write in its state directory, or exit 1. */
const STARTS: Record<string, string> = {
  gemini: `const home = process.env.GEMINI_CLI_HOME || os.homedir();
fs.writeFileSync(path.join(home, '.gemini', 'projects.json.' + process.pid + '.tmp'), '{}');`,
  qwen: `const dir = process.env.QWEN_HOME || path.join(os.homedir(), '.qwen');
fs.mkdirSync(path.join(dir, 'session-' + process.pid));`,
};

/** Before its start, with REFUSE set: a write or a connection the jail refuses, then exit 1 as a CLI does. */
const REFUSE = `if (process.env.REFUSE === 'write') {
  fs.writeFileSync(path.join(os.homedir(), '.config', 'vendor', 'state.json'), '{}');
}
if (process.env.REFUSE === 'connect') {
  const out = require('node:child_process').spawnSync('curl', ['-sf', '-m', '10', process.env.TARGET], { stdio: 'ignore' });
  if (out.status !== 0) throw new Error('stream disconnected before completion: error sending request for url (' + process.env.TARGET + ')');
}`;

/** Wraps the installed replay of `agent` in its start (the probe's --version and --help pass). */
const wrap = (agent: string): void => {
  const bin = path.join(sandbox.bin, agent);
  renameSync(bin, `${bin}-replay`);
  const start = path.join(sandbox.dir, `${agent}-start.cjs`);
  writeFileSync(
    start,
    `const fs = require('node:fs'); const os = require('node:os'); const path = require('node:path');
if (process.argv.includes('--version') || process.argv.includes('--help')) process.exit(0);
try { ${REFUSE}
${STARTS[agent] ?? ''} } catch (error) { console.error(error.message); process.exit(1); }
`,
  );
  writeFileSync(
    bin,
    `#!/bin/sh\nnode ${JSON.stringify(start)} "$@" || exit 1\nexec ${JSON.stringify(`${bin}-replay`)} "$@"\n`,
  );
  chmodSync(bin, 0o755);
};

beforeEach(async () => {
  sandbox = makeSandbox();
  agentHome = mkdtempSync(path.join(os.tmpdir(), 'hydra-agent-home-'));
  await installAgents(sandbox, { gemini: {}, qwen: {}, codex: {} });
  wrap('gemini');
  wrap('qwen');
  wrap('codex');
});

let savedHome: string | undefined;
let userHome: string;

beforeEach(() => {
  // Outside /tmp, as a real home is (the jail has a /tmp of its own).
  userHome = mkdtempSync('/var/tmp/hydra-user-home-');
  mkdirSync(path.join(userHome, '.config', 'vendor'), { recursive: true });
  savedHome = process.env.HOME;
  process.env.HOME = userHome;
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  rmSync(userHome, { recursive: true, force: true });
  rmSync(agentHome, { recursive: true, force: true });
  sandbox.cleanup();
});

describe('an agent with a home of its own in env', () => {
  it('starts in the jail: its state directories exist and are writable', { timeout: 120_000 }, async () => {
    const env = { HOME: agentHome };
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'gemini', { env }), plan(sandbox, 'qwen', { env })], {
        sandbox: { mode: 'required', allowHosts: [], allowWrite: [] },
      }),
    );
    const summary = await handle.settled;
    expect(summary.agents.map((agent) => [agent.agent, agent.status, agent.error?.message ?? null])).toEqual([
      ['gemini', 'completed', null],
      ['qwen', 'completed', null],
    ]);
    expect(summary.agents.map((agent) => agent.sandbox)).toEqual(['bubblewrap', 'bubblewrap']);
  });

  it(
    'fails naming a refused write or connection and the [sandbox] line that allows it',
    { timeout: 120_000 },
    async () => {
      const server = http.createServer((_request, response) => response.end('{}'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      try {
        handle = startRace(
          raceOptions(
            sandbox,
            [
              plan(sandbox, 'gemini', { env: { REFUSE: 'write' } }),
              plan(sandbox, 'qwen', { env: { REFUSE: 'connect', TARGET: `http://127.0.0.1:${port}/v1` } }),
              // A host the proxy turns away (and reports).
              plan(sandbox, 'codex', {
                env: { REFUSE: 'connect', TARGET: 'http://models.example.test:8080/v1' },
              }),
            ],
            { sandbox: { mode: 'required', allowHosts: [], allowWrite: [] } },
          ),
        );
        const summary = await handle.settled;
        const [gemini, qwen, codex] = summary.agents;
        expect(gemini?.status).toBe('failed');
        expect(gemini?.error?.message).toBe(
          'Gemini CLI failed after the sandbox refused a write to ~/.config/vendor/state.json (read-only file system)',
        );
        expect(gemini?.error?.hint).toBe(
          'If it should be allowed, add under [sandbox] in hydra.toml: allow_write = ["~/.config/vendor"]',
        );
        expect(qwen?.status).toBe('failed');
        expect(qwen?.error?.message).toBe(
          `Qwen Code failed after the sandbox refused a connection to 127.0.0.1:${port}`,
        );
        expect(qwen?.error?.hint).toBe(
          `If it should be allowed, add under [sandbox] in hydra.toml: allow_hosts = ["127.0.0.1:${port}"]`,
        );
        expect(codex?.error?.message).toBe(
          'Codex failed after the sandbox refused a connection to models.example.test:8080',
        );
        expect(codex?.error?.hint).toBe(
          'If it should be allowed, add under [sandbox] in hydra.toml: allow_hosts = ["models.example.test"]',
        );
        // A failed agent keeps no branch, and no copy of its CLI's state (the user's credentials).
        const runDir = path.dirname(gemini?.worktree ?? '');
        expect(existsSync(path.join(runDir, '.state', 'gemini'))).toBe(true);
        await handle.finish();
        expect(existsSync(path.join(runDir, '.state'))).toBe(false);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  );
});
