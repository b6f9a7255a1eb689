/**
 * Benchmarks 1, 2 and 4: what a headless race costs on top of the agents it runs.
 *
 * Baseline: the fake agent run directly (node dist/demo/fake-agent.js, stdout to /dev/null).
 * Measured: `hydra race --json` running the same fake agent(s) in a temp repository (stdout to
 * /dev/null), with a warm probe cache. Baseline and hydra runs alternate so drift on a shared
 * machine hits both alike; every figure is a median.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FakeScenario } from '../../src/demo/fake-bin.js';
import { fakeAgentScript, fakeBinaryName } from '../../src/demo/fake-bin.js';
import { expectExit, measureCommand, type ProcessSample } from '../lib/measure.js';
import { median, medianOf, ratio } from '../lib/stats.js';
import { writeSyntheticStream } from '../lib/streams.js';
import type { Workspace } from '../lib/workspace.js';

/** The agents benchmarked, each with the arguments hydra would pass it (for the baseline runs). */
type BenchAgent = 'claude' | 'codex' | 'cursor';

const FAKE_ARGS: Record<BenchAgent, string[]> = {
  claude: ['-p', '--output-format', 'stream-json', '--verbose', 'bench prompt'],
  codex: ['exec', '--json', 'bench prompt'],
  cursor: ['-p', '--output-format', 'stream-json', 'bench prompt'],
};

export interface HydraRunFigures {
  wallMs: number;
  /** CPU of hydra and everything it ran (agent, git), ms. */
  cpuMs: number;
  /** CPU of the hydra process alone, ms. */
  hydraCpuMs: number;
  /** Peak RSS of the hydra process alone, KiB. */
  hydraMaxRssKb: number;
  /** Peak RSS of the (largest) fake agent process in the race, KiB. */
  agentMaxRssKb: number;
}

export interface OverheadRow {
  lines: number;
  baseline: { wallMs: number; cpuMs: number };
  hydra: HydraRunFigures;
  addedWallMs: number;
  addedCpuMs: number;
  addedCpuMsPer1kLines: number;
  wallRatio: number;
  cpuRatio: number;
}

export interface OverheadResult {
  rows: OverheadRow[];
  /** Measured runs per figure (medians of these). */
  repeats: number;
  /** (added CPU at the largest size − at the smallest) per 1,000 extra lines: the per-event cost without fixed costs. */
  marginalCpuMsPer1kLines: number;
  /** Added CPU at the smallest size minus its per-line share: roughly the fixed cost of a race. */
  fixedCpuMs: number;
}

export interface ParallelResult {
  lines: number;
  baseline1WallMs: number;
  baseline3WallMs: number;
  hydra1WallMs: number;
  hydra3WallMs: number;
  added1WallMs: number;
  added3WallMs: number;
  /** Extra wall-clock hydra adds when racing three agents rather than one. */
  addedForTwoMoreMs: number;
  ratio1: number;
  ratio3: number;
}

export interface MemoryRow {
  lines: number;
  runs: number;
  hydraMaxRssKb: number;
  agentMaxRssKb: number;
  wallMs: number;
}

export interface MemoryResult {
  rows: MemoryRow[];
  /** Hydra's peak RSS at the largest size over the smallest. */
  growthRatio: number;
}

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

const scenarioFile = (binDir: string, agent: BenchAgent): string =>
  path.join(binDir, `${fakeBinaryName(agent)}.scenario.json`);

const fakeArgv = (binDir: string, agent: BenchAgent): string[] => [
  process.execPath,
  fakeAgentScript(),
  '--scenario',
  scenarioFile(binDir, agent),
  '--',
  ...FAKE_ARGS[agent],
];

const installStreams = async (ws: Workspace, agents: BenchAgent[], lines: number): Promise<string> => {
  const scenarios: Record<string, FakeScenario> = {};
  for (const agent of agents) {
    scenarios[fakeBinaryName(agent)] = {
      agent,
      streamFile: writeSyntheticStream(ws.streams, agent, lines),
      delayMs: 0,
    };
  }
  return ws.installBin(`${agents.join('-')}-${lines}`, scenarios);
};

/** A scratch directory for baseline runs (the fake agent writes its edits into its cwd). */
const baselineCwd = (ws: Workspace): string => {
  const dir = path.join(ws.root, 'baseline-cwd');
  mkdirSync(dir, { recursive: true });
  return dir;
};

const raceArgv = (ws: Workspace, agents: BenchAgent[]): string[] => [
  ...ws.hydra,
  'race',
  '--json',
  '--agents',
  agents.join(','),
  ...(agents.includes('cursor') ? ['--allow-experimental-adapters'] : []),
  'bench prompt',
];

const runHydra = async (
  ws: Workspace,
  binDir: string,
  agents: BenchAgent[],
): Promise<{ sample: ProcessSample; figures: HydraRunFigures }> => {
  const sample = await measureCommand(raceArgv(ws, agents), {
    cwd: ws.repo,
    env: ws.env(binDir),
    probeDir: path.join(ws.root, 'probe'),
    timeoutMs: 300_000,
  });
  expectExit(sample, 0, `hydra race --agents ${agents.join(',')}`);
  const statuses = ws.lastRunStatuses();
  for (const agent of agents) {
    if (statuses[agent] !== 'completed') {
      throw new Error(
        `bench: in a measured race ${agent} ended "${statuses[agent] ?? 'missing'}", not completed; stderr:\n${sample.stderrTail}`,
      );
    }
  }
  const hydraProcess = sample.nodeProcesses.find((report) =>
    report.script.endsWith(path.join('cli', 'main.js')),
  );
  const agentProcesses = sample.nodeProcesses.filter((report) => report.script.endsWith('fake-agent.js'));
  return {
    sample,
    figures: {
      wallMs: sample.wallMs,
      cpuMs: sample.cpuMs,
      hydraCpuMs: hydraProcess?.cpuMs ?? Number.NaN,
      hydraMaxRssKb: hydraProcess?.maxRssKb ?? Number.NaN,
      agentMaxRssKb: Math.max(...agentProcesses.map((report) => report.maxRssKb)),
    },
  };
};

/** Baselines run with the same probe preload as races, so both sides carry its (small) cost. */
const runBaseline = async (ws: Workspace, argv: string[]): Promise<ProcessSample> =>
  expectExit(
    await measureCommand(argv, {
      cwd: baselineCwd(ws),
      env: process.env,
      probeDir: path.join(ws.root, 'probe'),
    }),
    0,
    `baseline ${argv.slice(0, 3).join(' ')}`,
  );

const medianFigures = (runs: HydraRunFigures[]): HydraRunFigures => ({
  wallMs: medianOf(runs, (run) => run.wallMs),
  cpuMs: medianOf(runs, (run) => run.cpuMs),
  hydraCpuMs: medianOf(runs, (run) => run.hydraCpuMs),
  hydraMaxRssKb: medianOf(runs, (run) => run.hydraMaxRssKb),
  agentMaxRssKb: medianOf(runs, (run) => run.agentMaxRssKb),
});

/** Runs baseline and hydra alternately, `repeats` times each, after one unmeasured hydra warm-up. */
const compareOne = async (ws: Workspace, lines: number, repeats: number): Promise<OverheadRow> => {
  const binDir = await installStreams(ws, ['claude'], lines);
  await runHydra(ws, binDir, ['claude']);
  const baselines: ProcessSample[] = [];
  const races: HydraRunFigures[] = [];
  for (let index = 0; index < repeats; index += 1) {
    baselines.push(await runBaseline(ws, fakeArgv(binDir, 'claude')));
    races.push((await runHydra(ws, binDir, ['claude'])).figures);
  }
  const baseline = {
    wallMs: medianOf(baselines, (run) => run.wallMs),
    cpuMs: medianOf(baselines, (run) => run.cpuMs),
  };
  const hydra = medianFigures(races);
  const addedCpuMs = hydra.cpuMs - baseline.cpuMs;
  return {
    lines,
    baseline,
    hydra,
    addedWallMs: hydra.wallMs - baseline.wallMs,
    addedCpuMs,
    addedCpuMsPer1kLines: (addedCpuMs / lines) * 1000,
    wallRatio: ratio(hydra.wallMs, baseline.wallMs),
    cpuRatio: ratio(hydra.cpuMs, baseline.cpuMs),
  };
};

export async function benchOverhead(
  ws: Workspace,
  lineCounts: number[],
  repeats: number,
): Promise<OverheadResult> {
  const rows: OverheadRow[] = [];
  for (const lines of lineCounts) rows.push(await compareOne(ws, lines, repeats));
  const first = rows[0];
  const last = rows.at(-1);
  if (first === undefined || last === undefined || first === last) {
    return { rows, repeats, marginalCpuMsPer1kLines: Number.NaN, fixedCpuMs: Number.NaN };
  }
  const marginal = ((last.addedCpuMs - first.addedCpuMs) / (last.lines - first.lines)) * 1000;
  return {
    rows,
    repeats,
    marginalCpuMsPer1kLines: marginal,
    fixedCpuMs: first.addedCpuMs - (marginal * first.lines) / 1000,
  };
}

export async function benchParallel(ws: Workspace, lines: number, repeats: number): Promise<ParallelResult> {
  const trio: BenchAgent[] = ['claude', 'codex', 'cursor'];
  const binDir = await installStreams(ws, trio, lines);
  const parallelBaseline = [
    '/bin/sh',
    '-c',
    `${trio.map((agent) => fakeArgv(binDir, agent).map(shellQuote).join(' ')).join(' & ')} & wait`,
  ];
  await runHydra(ws, binDir, trio);
  const samples = {
    base1: [] as number[],
    base3: [] as number[],
    hydra1: [] as number[],
    hydra3: [] as number[],
  };
  for (let index = 0; index < repeats; index += 1) {
    samples.base1.push((await runBaseline(ws, fakeArgv(binDir, 'claude'))).wallMs);
    samples.hydra1.push((await runHydra(ws, binDir, ['claude'])).figures.wallMs);
    samples.base3.push((await runBaseline(ws, parallelBaseline)).wallMs);
    samples.hydra3.push((await runHydra(ws, binDir, trio)).figures.wallMs);
  }
  const base1 = median(samples.base1);
  const base3 = median(samples.base3);
  const hydra1 = median(samples.hydra1);
  const hydra3 = median(samples.hydra3);
  return {
    lines,
    baseline1WallMs: base1,
    baseline3WallMs: base3,
    hydra1WallMs: hydra1,
    hydra3WallMs: hydra3,
    added1WallMs: hydra1 - base1,
    added3WallMs: hydra3 - base3,
    addedForTwoMoreMs: hydra3 - base3 - (hydra1 - base1),
    ratio1: ratio(hydra1, base1),
    ratio3: ratio(hydra3, base3),
  };
}

/**
 * Peak RSS of the hydra process for growing streams through one agent. Smaller sizes come from the
 * overhead benchmark's runs; the rest are measured here.
 */
export async function benchMemory(
  ws: Workspace,
  overhead: OverheadResult,
  extraLineCounts: number[],
  repeats: number,
): Promise<MemoryResult> {
  const rows: MemoryRow[] = overhead.rows.map((row) => ({
    lines: row.lines,
    runs: overhead.repeats,
    hydraMaxRssKb: row.hydra.hydraMaxRssKb,
    agentMaxRssKb: row.hydra.agentMaxRssKb,
    wallMs: row.hydra.wallMs,
  }));
  for (const lines of extraLineCounts) {
    const binDir = await installStreams(ws, ['claude'], lines);
    const runs: HydraRunFigures[] = [];
    for (let index = 0; index < repeats; index += 1)
      runs.push((await runHydra(ws, binDir, ['claude'])).figures);
    const figures = medianFigures(runs);
    rows.push({
      lines,
      runs: repeats,
      hydraMaxRssKb: figures.hydraMaxRssKb,
      agentMaxRssKb: figures.agentMaxRssKb,
      wallMs: figures.wallMs,
    });
  }
  const first = rows[0];
  const last = rows.at(-1);
  return { rows, growthRatio: first && last ? ratio(last.hydraMaxRssKb, first.hydraMaxRssKb) : Number.NaN };
}
