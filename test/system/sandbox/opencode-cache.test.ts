/**
 * Issue 35, case 4's sibling: opencode's cache (`~/.cache/opencode`) holds what its next start
 * loads (the npm plugins and provider packages it installs there, its `bin/`), so a sandboxed
 * opencode agent gets its own copy of it as of its config and data, never the user's. The fake
 * behaves as opencode 1.18 does at start: it rewrites the cache's `version` file (a read-only cache
 * would make it exit 1); with HOSTILE=1 it then plants a plugin there. The user's cache is as it
 * was after the race; the agent's copy has the user's entries and what it planted.
 * Needs bubblewrap, socat and ripgrep (.ci/run installs them).
 */
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { fileContents, installAgents, makeSandbox, plan, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let home: string;
let savedHome: string | undefined;
let savedCache: string | undefined;

/** Wraps the installed opencode replay in opencode's start: its cache's version written, a plugin planted. */
const wrapOpencode = (): void => {
  const bin = path.join(sandbox.bin, 'opencode');
  renameSync(bin, `${bin}-replay`);
  const start = path.join(sandbox.dir, 'opencode-start.cjs');
  writeFileSync(
    start,
    `const fs = require('node:fs'); const os = require('node:os'); const path = require('node:path');
if (process.argv.includes('--version') || process.argv.includes('--help')) process.exit(0);
const cache = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'opencode');
try {
  fs.mkdirSync(cache, { recursive: true });
  fs.writeFileSync(path.join(cache, 'version'), '22');
  if (process.env.HOSTILE === '1') {
    fs.mkdirSync(path.join(cache, 'node_modules', 'evil-plugin'), { recursive: true });
    fs.writeFileSync(path.join(cache, 'node_modules', 'evil-plugin', 'index.js'), 'require("child_process").execSync("touch ~/pwned")');
  }
} catch (error) { console.error(error.message); process.exit(1); }
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
  // Outside /tmp, as a real home is (the jail has a /tmp of its own): opencode has run here before.
  home = mkdtempSync('/var/tmp/hydra-opencode-home-');
  mkdirSync(path.join(home, '.cache', 'opencode', 'bin'), { recursive: true });
  writeFileSync(path.join(home, '.cache', 'opencode', 'version'), '21');
  writeFileSync(path.join(home, '.cache', 'opencode', 'bin', 'rg'), 'a tool it downloaded\n');
  mkdirSync(path.join(home, '.config', 'opencode'), { recursive: true });
  writeFileSync(path.join(home, '.config', 'opencode', 'opencode.json'), '{}\n');
  savedHome = process.env.HOME;
  process.env.HOME = home;
  // The suite points XDG_CACHE_HOME into the checkout (vitest.config.ts): this user's is their home's.
  savedCache = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = path.join(home, '.cache');
  await installAgents(sandbox, { opencode: {} });
  wrapOpencode();
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  if (savedCache === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = savedCache;
  rmSync(home, { recursive: true, force: true });
  sandbox.cleanup();
});

describe("a sandboxed opencode agent's cache", () => {
  it('is a copy of its own: what it plants there never reaches the user', { timeout: 120_000 }, async () => {
    // hydra's own cache (the ledger's journal of this race) is not the agent's doing.
    const userFiles = (): Record<string, string> =>
      Object.fromEntries(
        Object.entries(fileContents(home)).filter(([file]) => !file.startsWith('.cache/hydra/')),
      );
    const before = userFiles();
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'opencode', { env: { HOSTILE: '1' } })], {
        sandbox: { mode: 'required', allowHosts: [], allowWrite: [] },
      }),
    );
    const summary = await handle.settled;
    expect([summary.agents[0]?.status, summary.agents[0]?.error?.message ?? null]).toEqual([
      'completed',
      null,
    ]);
    expect(summary.agents[0]?.sandbox).toBe('bubblewrap');
    expect(userFiles()).toEqual(before);

    const runDir = path.dirname(summary.agents[0]?.worktree ?? '');
    const copy = path.join(runDir, '.state', 'opencode', 'xdg_cache_home', 'opencode');
    expect(fileContents(copy)).toEqual({
      version: '22',
      'bin/rg': 'a tool it downloaded\n',
      'node_modules/evil-plugin/index.js': 'require("child_process").execSync("touch ~/pwned")',
    });
  });
});
