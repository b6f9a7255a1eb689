/**
 * Issue 35, honest set-ups: an agent whose `[agents.X] env` sets HOME runs in the jail with that
 * home's state (its own copy of it), which exists before the jail starts. The fakes behave as the
 * real CLIs do at start (measured on Gemini CLI 0.61 and Qwen Code 0.24.4): Gemini CLI writes
 * `<home>/.gemini/projects.json.<n>.tmp` (EROFS or ENOENT when it cannot), Qwen Code makes a
 * directory in `<home>/.qwen` (ENOENT when `~/.qwen` does not exist). Both homes here are fresh:
 * no `.gemini`, no `.qwen`. Needs bubblewrap, socat and ripgrep (.ci/run installs them).
 */
import { chmodSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/** Wraps the installed replay of `agent` in its start (the probe's --version and --help pass). */
const wrap = (agent: string): void => {
  const bin = path.join(sandbox.bin, agent);
  renameSync(bin, `${bin}-replay`);
  const start = path.join(sandbox.dir, `${agent}-start.cjs`);
  writeFileSync(
    start,
    `const fs = require('node:fs'); const os = require('node:os'); const path = require('node:path');
if (process.argv.includes('--version') || process.argv.includes('--help')) process.exit(0);
try { ${STARTS[agent] ?? ''} } catch (error) { console.error(error.message); process.exit(1); }
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
  await installAgents(sandbox, { gemini: {}, qwen: {} });
  wrap('gemini');
  wrap('qwen');
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
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
});
