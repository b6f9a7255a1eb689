/**
 * Ports and identity in a race (docs/setup-ports.md): two agents start a server on their
 * HYDRA_PORT at the same time; their checks, and the baseline's, see who they are; the blocks
 * are leased while the race runs and gone once it ends or is cancelled.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readHolder } from '../../../../src/engine/locks/index.js';
import { PORT_BLOCK, portLeaseDir } from '../../../../src/engine/setup/index.js';
import type { PortRange } from '../../../../src/engine/setup/index.js';
import type { RaceHandle } from '../../../../src/engine/index.js';
import { raceScripts, registerScriptAgent } from '../../../support/script-agent.js';
import { eventually, makeSandbox, waitForSnapshot } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let unregister: Array<() => void>;
let handle: RaceHandle | null = null;
let out: string;
let range: PortRange;

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = [registerScriptAgent('porta'), registerScriptAgent('portb')];
  out = path.join(sandbox.dir, 'out');
  // A range of its own in 30000-39999: other suites lease from the default range.
  const first = 30_000 + PORT_BLOCK * Math.floor(Math.random() * 990);
  range = { first, last: first + 20 * PORT_BLOCK - 1 };
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  for (const undo of unregister) undo();
  sandbox.cleanup();
});

interface Seen {
  HYDRA_PORT?: string;
  PORT?: string;
  HYDRA_AGENT?: string;
  HYDRA_RUN_ID?: string;
  HYDRA_WORKTREE?: string;
  cwd: string;
  error?: string;
}

/**
 * `node -e`: listens on 127.0.0.1:$HYDRA_PORT, writes what it got to <out>/<label>.json (`{agent}`
 * in the label: its HYDRA_AGENT), and
 * keeps listening until every name in `together` has written its file too (or 15 s), so the
 * servers of both agents are up at the same time; a bind that fails is written as `error`.
 */
const serverScript = (label: string, together: string[]): string => {
  const code = `
const fs = require('fs'), net = require('net');
const [out, given, together] = process.argv.slice(1);
const label = given.replace('{agent}', process.env.HYDRA_AGENT);
const pick = (name) => process.env[name];
const seen = { HYDRA_PORT: pick('HYDRA_PORT'), PORT: pick('PORT'), HYDRA_AGENT: pick('HYDRA_AGENT'),
  HYDRA_RUN_ID: pick('HYDRA_RUN_ID'), HYDRA_WORKTREE: pick('HYDRA_WORKTREE'), cwd: process.cwd() };
fs.mkdirSync(out, { recursive: true });
const server = net.createServer();
server.on('error', (error) => { fs.writeFileSync(out + '/' + label + '.json', JSON.stringify({ ...seen, error: error.code })); process.exit(0); });
server.listen(Number(seen.HYDRA_PORT), '127.0.0.1', () => {
  fs.writeFileSync(out + '/' + label + '.json', JSON.stringify(seen));
  const all = together.split(',').filter(Boolean);
  const timer = setInterval(() => {
    if (all.every((name) => fs.existsSync(out + '/' + name + '.json'))) { clearInterval(timer); server.close(); }
  }, 20);
  setTimeout(() => process.exit(0), 15000).unref();
});`;
  return `'${process.execPath}' -e "${code.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\$/g, '\\$')}" '${out}' '${label}' '${together.join(',')}'`;
};

const seen = (label: string): Seen =>
  JSON.parse(readFileSync(path.join(out, `${label}.json`), 'utf8')) as Seen;

/** The lease files of this run in the machine's lease directory. */
const leasesOf = (runId: string): string[] => {
  const dir = portLeaseDir();
  return readdirSync(dir)
    .filter((name) => name.endsWith('.lease'))
    .filter((name) => readHolder(path.join(dir, name))?.command.includes(runId) === true);
};

describe('ports and identity in a race', () => {
  it('gives two agents their own ports, which their servers bind at the same time; checks and the baseline see who they are', async () => {
    // The check writes what it saw (its label: check-<HYDRA_AGENT>), then passes.
    const check = path.join(sandbox.dir, 'check.sh');
    writeFileSync(check, `${serverScript('check-{agent}', [])}\n`);
    handle = raceScripts(
      sandbox,
      {
        porta: `${serverScript('porta', ['porta', 'portb'])}\necho a > a.txt`,
        portb: `${serverScript('portb', ['porta', 'portb'])}\necho b > b.txt`,
      },
      { portRange: range, checks: [{ name: 'env', run: `sh ${check}`, timeoutMs: 30_000, gate: false }] },
    );
    const runId = handle.runId;
    const reviewing = await waitForSnapshot(handle, (snapshot) => snapshot.phase === 'reviewing', 60_000);

    const a = seen('porta');
    const b = seen('portb');
    expect(a.error).toBeUndefined();
    expect(b.error).toBeUndefined();
    expect(a.HYDRA_PORT).not.toBe(b.HYDRA_PORT);
    const snapshotPort = (agent: string) => reviewing.agents.find((item) => item.agent === agent)?.port;
    expect(Number(a.HYDRA_PORT)).toBe(snapshotPort('porta'));
    expect(Number(b.HYDRA_PORT)).toBe(snapshotPort('portb'));
    for (const [agent, got] of [
      ['porta', a],
      ['portb', b],
    ] as const) {
      const worktree = reviewing.agents.find((item) => item.agent === agent)?.worktree;
      expect(got).toMatchObject({ PORT: got.HYDRA_PORT, HYDRA_AGENT: agent, HYDRA_RUN_ID: runId });
      expect(got.HYDRA_WORKTREE).toBe(worktree);
      expect(got.cwd).toBe(worktree);
      // Its checks: the same agent and port, in their own checkout of its result.
      const checked = seen(`check-${agent}`);
      expect(checked).toMatchObject({ HYDRA_AGENT: agent, HYDRA_PORT: got.HYDRA_PORT, PORT: got.HYDRA_PORT });
      expect(checked.HYDRA_WORKTREE).toBe(path.join(path.dirname(worktree ?? ''), `.checks-${agent}`));
      expect(checked.cwd).toBe(checked.HYDRA_WORKTREE);
    }
    // The baseline: a block of its own.
    const baseline = seen('check-baseline');
    expect(baseline).toMatchObject({
      HYDRA_AGENT: 'baseline',
      HYDRA_RUN_ID: runId,
      PORT: baseline.HYDRA_PORT,
    });
    expect([a.HYDRA_PORT, b.HYDRA_PORT]).not.toContain(baseline.HYDRA_PORT);
    expect(Number(baseline.HYDRA_PORT)).toBeGreaterThanOrEqual(range.first);

    // Held while the race reviews (a follow-up keeps its block), gone once it ends.
    expect(leasesOf(runId)).toHaveLength(3);
    const summary = await handle.finish();
    expect(summary.agents.map((agent) => agent.port).sort()).toEqual(
      [Number(a.HYDRA_PORT), Number(b.HYDRA_PORT)].sort(),
    );
    expect(leasesOf(runId)).toEqual([]);
  }, 90_000);

  it('gives the blocks back when the race is cancelled', async () => {
    handle = raceScripts(
      sandbox,
      { porta: `touch '${out}-started'\nsleep 60`, portb: 'sleep 60' },
      { portRange: range },
    );
    const runId = handle.runId;
    await eventually(() => existsSync(`${out}-started`), 30_000, 'the agent to start');
    expect(leasesOf(runId)).toHaveLength(2);
    await handle.cancel();
    await handle.settled;
    await eventually(() => leasesOf(runId).length === 0, 10_000, 'the leases to go');
  }, 60_000);
});
