/**
 * Issue 22: what the OS sandbox costs, as ratios within one run (`hydra race --json` with
 * `--sandbox off` and `--sandbox required`, alternating so a shared machine's drift hits both).
 *
 * - per spawn: `true` started as an agent is (hydra's supervisor, in its PID namespace), sandboxed
 *   (the library's wrap of the command, bubblewrap's start) vs not, in this process, with the
 *   library's proxies already started (a race starts them with its support check): the sandbox's
 *   start-up cost per agent.
 * - one agent that ends at once: one fake agent that replays its six-line stream at once, so the
 *   race is mostly start-up and teardown (the library's import and trial run included).
 * - whole race: two fake agents of ~`agentSeconds` each.
 *
 * The bench bundles the sandbox library as dist/ does (scripts/build-bench.mjs), so the spawns in
 * this process wrap their commands as a race's agents do.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AdapterId } from '../../src/adapters/types.js';
import { fakeBinaryName } from '../../src/demo/fake-bin.js';
import {
  createProcessRegistry,
  prepareContainment,
  spawnSupervised,
} from '../../src/engine/process/index.js';
import { CREDENTIAL_PATHS, holdSandbox, prepareSandbox } from '../../src/engine/sandbox/index.js';
import type { SandboxPolicy } from '../../src/engine/sandbox/index.js';
import type { ProcessRegistry } from '../../src/engine/process/index.js';
import { expectExit, measureCommand } from '../lib/measure.js';
import { median, ratio } from '../lib/stats.js';
import { fixtureStream } from '../lib/streams.js';
import type { Workspace } from '../lib/workspace.js';

export interface SandboxRow {
  what: string;
  offMs: number;
  sandboxedMs: number;
  addedMs: number;
  ratio: number;
}

export interface SandboxResult {
  repeats: number;
  rows: SandboxRow[];
}

const race = async (ws: Workspace, binDir: string, agents: AdapterId[], mode: 'off' | 'required') => {
  const sample = await measureCommand(
    [...ws.hydra, 'race', '--json', '--sandbox', mode, '--agents', agents.join(','), 'bench prompt'],
    { cwd: ws.repo, env: ws.env(binDir), timeoutMs: 600_000 },
  );
  return expectExit(sample, 0, `hydra race --sandbox ${mode}`).wallMs;
};

const compare = async (
  ws: Workspace,
  what: string,
  binDir: string,
  agents: AdapterId[],
  repeats: number,
): Promise<SandboxRow> => {
  // One of each first, not timed: the probe cache and the page cache warm up.
  await race(ws, binDir, agents, 'off');
  await race(ws, binDir, agents, 'required');
  const off: number[] = [];
  const sandboxed: number[] = [];
  for (let index = 0; index < repeats; index += 1) {
    off.push(await race(ws, binDir, agents, 'off'));
    sandboxed.push(await race(ws, binDir, agents, 'required'));
  }
  const offMs = median(off);
  const sandboxedMs = median(sandboxed);
  return { what, offMs, sandboxedMs, addedMs: sandboxedMs - offMs, ratio: ratio(sandboxedMs, offMs) };
};

/** Starts `true` under hydra's supervisor (sandboxed with `policy`, or not) and waits for its end: wall ms. */
const spawnTrue = async (
  processes: ProcessRegistry,
  dir: string,
  policy: SandboxPolicy | null,
  index: number,
): Promise<number> => {
  const started = performance.now();
  const supervised = spawnSupervised(
    {
      file: '/bin/true',
      args: [],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      runId: 'bench-sandbox-spawn',
      agent: `spawn-${index}`,
      sandbox: policy,
    },
    { onSpawn: () => undefined, onLine: () => undefined, onOversizeLine: () => undefined },
    processes,
  );
  const exit = await supervised.exited;
  if (exit.exitCode !== 0)
    throw new Error(
      `bench: a ${policy === null ? 'bare' : 'sandboxed'} spawn of true failed: ${JSON.stringify(exit)}`,
    );
  return performance.now() - started;
};

/** Per spawn: sandboxed vs not, alternating, `repeats` of each (median), after one of each untimed. */
const compareSpawns = async (repeats: number): Promise<SandboxRow> => {
  const support = await prepareSandbox();
  if (!support.available)
    throw new Error(`bench: the sandbox suite needs a machine that can sandbox: ${support.reason}`);
  await prepareContainment();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-bench-spawn-'));
  const home = os.homedir();
  const policy: SandboxPolicy = {
    mechanism: support.mechanism,
    allowWrite: [dir],
    denyRead: CREDENTIAL_PATHS.map((entry) => path.join(home, entry)),
    allowRead: [],
    denyWrite: [],
    allowHosts: [],
    tmpDir: path.join(dir, 'tmp'),
    loopbackHosts: [],
  };
  mkdirSync(policy.tmpDir);
  // The proxies started once, as a race's support check leaves them.
  const release = holdSandbox();
  const processes = createProcessRegistry();
  try {
    await spawnTrue(processes, dir, policy, 0);
    await spawnTrue(processes, dir, null, 0);
    const off: number[] = [];
    const sandboxed: number[] = [];
    for (let index = 1; index <= repeats; index += 1) {
      off.push(await spawnTrue(processes, dir, null, index));
      sandboxed.push(await spawnTrue(processes, dir, policy, index));
    }
    const offMs = median(off);
    const sandboxedMs = median(sandboxed);
    return {
      what: 'per spawn: `true` as an agent is started (start-up per agent)',
      offMs,
      sandboxedMs,
      addedMs: sandboxedMs - offMs,
      ratio: ratio(sandboxedMs, offMs),
    };
  } finally {
    processes.dispose();
    release();
    rmSync(dir, { recursive: true, force: true });
  }
};

export async function benchSandbox(
  ws: Workspace,
  repeats: number,
  agentSeconds: number,
): Promise<SandboxResult> {
  const quick = await ws.installBin('sandbox-quick', {
    [fakeBinaryName('claude')]: { agent: 'claude', delayMs: 0 },
  });
  const lines = (agent: AdapterId): number => Math.max(1, fixtureStream(agent).length - 1);
  const paced = await ws.installBin(
    'sandbox-paced',
    Object.fromEntries(
      (['claude', 'codex'] as AdapterId[]).map((agent) => [
        fakeBinaryName(agent),
        { agent, delayMs: Math.round((agentSeconds * 1000) / lines(agent)) },
      ]),
    ),
  );
  return {
    repeats,
    rows: [
      await compareSpawns(Math.max(5, repeats)),
      await compare(ws, 'race of one agent that ends at once', quick, ['claude'], repeats),
      await compare(
        ws,
        `whole race, two agents of ~${agentSeconds} s each`,
        paced,
        ['claude', 'codex'],
        repeats,
      ),
    ],
  };
}

export const sandboxTable = (
  result: SandboxResult,
): { title: string; head: string[]; rows: Array<Array<string | number>> } => ({
  title: `9. The OS sandbox: a sandboxed spawn vs a bare one, and hydra race --sandbox required vs --sandbox off (wall ms, median of ${result.repeats}; spawns: of at least 5)`,
  head: ['what', 'off ms', 'sandboxed ms', 'added ms', 'ratio'],
  rows: result.rows.map((row) => [
    row.what,
    row.offMs,
    row.sandboxedMs,
    row.addedMs,
    `${Math.round(row.ratio * 100) / 100}x`,
  ]),
});
