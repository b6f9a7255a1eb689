/**
 * Issue 22: what the OS sandbox costs, as ratios within one run (`hydra race --json` with
 * `--sandbox off` and `--sandbox required`, alternating so a shared machine's drift hits both).
 *
 * - per agent: one fake agent that replays its six-line stream at once, so the race is mostly
 *   start-up and teardown; the added wall time is the sandbox's cost per agent (the library's wrap,
 *   bubblewrap's start, the proxies' start for the first agent of the process).
 * - whole race: two fake agents of ~`agentSeconds` each.
 */
import type { AdapterId } from '../../src/adapters/types.js';
import { fakeBinaryName } from '../../src/demo/fake-bin.js';
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
      await compare(ws, 'one agent that ends at once (start-up per agent)', quick, ['claude'], repeats),
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
  title: `9. The OS sandbox: hydra race --sandbox required vs --sandbox off (wall ms, median of ${result.repeats})`,
  head: ['what', 'off ms', 'sandboxed ms', 'added ms', 'ratio'],
  rows: result.rows.map((row) => [
    row.what,
    row.offMs,
    row.sandboxedMs,
    row.addedMs,
    `${Math.round(row.ratio * 100) / 100}x`,
  ]),
});
