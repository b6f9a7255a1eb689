/**
 * Issue 35: the judge runs sandboxed, read-only, with a fresh home of its own. A hostile judge CLI
 * of a sandboxed race tries to write the user's checkout and the user's own state directory, and
 * notes which state directory it was given; both writes are refused, its state is a fresh copy of
 * the user's (their credentials, in the judge's scratch directory, not theirs), its ranking still
 * counts, and nothing of its scratch directory stays. Needs bubblewrap, socat and ripgrep.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ev } from '../../../src/core/events.js';
import type { AgentEvent } from '../../../src/core/events.js';
import type { RunState } from '../../../src/adapters/finish.js';
import { JsonLineParser } from '../../../src/adapters/json-line-parser.js';
import { registerAdapter } from '../../../src/adapters/registry.js';
import type { AgentAdapter } from '../../../src/adapters/types.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../support/script-agent.js';

class DoneParser extends JsonLineParser {
  protected readonly state: RunState = { displayName: 'Fake Judge', sawJson: false, authHint: 'none' };
  protected handle(value: Record<string, unknown>): AgentEvent[] | null {
    if (value['type'] === 'done') return [ev({ kind: 'completed', result: String(value['result'] ?? '') })];
    return null;
  }
}

/** A judge CLI whose state is `~/.fakejudge`, moved by FAKEJUDGE_HOME; it has a read-only mode. */
const judgeAdapter: AgentAdapter = {
  id: 'jailjudge',
  displayName: 'Fake Judge',
  tier: 'tier1',
  aliases: [],
  binaries: ['jailjudge'],
  installHint: 'written by the test',
  signInHint: 'none',
  stateDirs: [{ path: '.fakejudge', env: 'FAKEJUDGE_HOME', copy: { variable: 'FAKEJUDGE_HOME', to: '' } }],
  probe: async (binary) => ({
    ok: true,
    capabilities: {
      adapterId: 'jailjudge',
      binary,
      version: '1.0.0',
      flags: [],
      features: {},
      confidence: 'verified',
      warnings: [],
    },
  }),
  validateModel: () => null,
  buildCommand: (request, capabilities) => {
    const prompt = path.join(request.scratchDir, 'prompt.txt');
    return {
      file: capabilities.binary,
      args: [prompt],
      env: { ...request.env },
      cwd: request.cwd,
      files: [{ path: prompt, content: request.prompt }],
      ...(request.readOnly === true ? { readOnly: true as const } : {}),
    };
  },
  createParser: () => new DoneParser(),
};

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let home: string;
let savedHome: string | undefined;
const unregister: Array<() => void> = [];

beforeEach(() => {
  sandbox = makeSandbox();
  home = mkdtempSync(path.join(os.tmpdir(), 'hydra-judge-home-'));
  mkdirSync(path.join(home, '.fakejudge'));
  writeFileSync(path.join(home, '.fakejudge', 'credentials'), 'user-token\n', { mode: 0o600 });
  savedHome = process.env.HOME;
  process.env.HOME = home;
  unregister.push(registerScriptAgent('alpha'), registerScriptAgent('bravo'), registerAdapter(judgeAdapter));
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  for (const undo of unregister.splice(0)) undo();
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
  sandbox.cleanup();
});

/** The judge: tries its writes, and gives its findings as the reason of a ranking. */
const writeJudge = (): string => {
  const file = path.join(sandbox.dir, 'jailjudge');
  writeFileSync(
    file,
    `#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
const prompt = fs.readFileSync(process.argv[2], 'utf8');
const attempt = (name, write) => { try { write(); return name + '=ok'; } catch { return name + '=refused'; } };
const state = process.env.FAKEJUDGE_HOME || '';
const seen = [
  attempt('checkout', () => fs.writeFileSync(${JSON.stringify(path.join(sandbox.repo, 'judge-wrote.txt'))}, 'x')),
  attempt('userState', () => fs.writeFileSync(${JSON.stringify(path.join(home, '.fakejudge', 'hook'))}, 'x')),
  attempt('ownState', () => fs.writeFileSync(path.join(state, 'written'), 'x')),
  'copy=' + (state.startsWith(${JSON.stringify(home)}) || state === '' ? 'none' : fs.readFileSync(path.join(state, 'credentials'), 'utf8').trim()),
].join(' ');
const labels = [...new Set([...prompt.matchAll(/BEGIN (result-\\d+)/g)].map((m) => m[1]))];
console.log(JSON.stringify({ type: 'done', result: JSON.stringify({ ranking: labels.map((result) => ({ result, reason: seen })) }) }));
`,
  );
  chmodSync(file, 0o755);
  return file;
};

describe('the judge of a sandboxed race', () => {
  it('runs in the jail, read-only, with a fresh copy of the user state', { timeout: 120_000 }, async () => {
    handle = raceScripts(
      sandbox,
      { alpha: "printf 'a\\n' > result.txt", bravo: "printf 'b\\n' > result.txt" },
      {
        sandbox: { mode: 'required', allowHosts: [], allowWrite: [] },
        checks: [{ name: 'ok', run: 'true', timeoutMs: 30_000, gate: true }],
        scoreWeights: { checks: 40, tests: 30, diff: 10, scope: 10, duration: 0, cost: 0 },
        judge: {
          adapterId: 'jailjudge',
          binary: writeJudge(),
          extraArgs: [],
          env: {},
          idleTimeoutMs: 20_000,
        },
      },
    );
    await handle.settled;
    const summary = await handle.finish();
    expect(summary.judge?.warning).toBeNull();
    expect(summary.judge?.ranking?.[0]?.reason).toBe(
      'checkout=refused userState=refused ownState=ok copy=user-token',
    );
    expect(existsSync(path.join(sandbox.repo, 'judge-wrote.txt'))).toBe(false);
    expect(existsSync(path.join(home, '.fakejudge', 'hook'))).toBe(false);
    expect(readFileSync(path.join(home, '.fakejudge', 'credentials'), 'utf8')).toBe('user-token\n');
    // Its scratch directory (with the copied credentials) is gone.
    const runDir = path.dirname(summary.agents[0]?.worktree ?? '');
    expect(existsSync(path.join(runDir, '.judge'))).toBe(false);
  });
});
