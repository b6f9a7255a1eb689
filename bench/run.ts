/**
 * `npm run bench`: measures what hydra costs on top of the agents it runs, always as ratios
 * against baselines measured in the same run (shared machines are noisy; absolute figures only
 * compare within one run). Prints tables and writes a JSON copy to .cache/bench/latest.json.
 *
 * Options: --quick (small sizes, one repeat: a smoke run), --repeats <n>, --only <suite,...>
 * (suites: targets, overhead, parallel, startup, memory, parsers, dashboard, dashboard-flood, sandbox, share, setup, containers, stats;
 * memory needs
 * overhead), --scaling <n,...|none> (the agent counts of targets' scaling rows), --hydra <main.js>
 * (measure another build, e.g. an older commit's dist/cli/main.js, with this bench and its fake
 * agents: runs of two builds alternate only by running the bench in turn). `targets` is issue 12's
 * table (issue 33's targets): each figure beside its baseline and its target.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertLinux } from './lib/measure.js';
import { round } from './lib/stats.js';
import { PACKAGE_ROOT } from './lib/streams.js';
import { table } from './lib/table.js';
import { createWorkspace, type Workspace } from './lib/workspace.js';
import { benchDashboard, type DashboardResult } from './suites/dashboard.js';
import { benchDashboardFlood, type DashboardFloodResult } from './suites/dashboard-flood.js';
import { benchParsers, type ParserResult } from './suites/parsers.js';
import {
  benchMemory,
  benchOverhead,
  benchParallel,
  type MemoryResult,
  type OverheadResult,
  type ParallelResult,
} from './suites/races.js';
import { benchStartup, type StartupResult } from './suites/startup.js';
import { benchTargets, type TargetsPlan, type TargetsResult } from './suites/targets.js';
import { benchSandbox, sandboxTable, type SandboxResult } from './suites/sandbox.js';
import { benchShare, shareTable, type SharePlan, type ShareResult } from './suites/share.js';
import { benchSetup, setupTable, type SetupResult } from './suites/setup.js';
import { benchContainers, containersTable, type ContainersResult } from './suites/containers.js';
import { benchStats, type StatsResult } from './suites/stats.js';

const SUITES = [
  'targets',
  'overhead',
  'parallel',
  'startup',
  'memory',
  'parsers',
  'dashboard',
  'dashboard-flood',
  'sandbox',
  'share',
  'setup',
  'containers',
  'stats',
] as const;
type SuiteName = (typeof SUITES)[number];

interface Plan {
  quick: boolean;
  /** The hydra measured: this package's dist/cli/main.js, or another build's (`--hydra`). */
  hydra: string | undefined;
  repeats: number;
  suites: Set<SuiteName>;
  overheadLines: number[];
  parallelLines: number;
  memoryExtraLines: number[];
  memoryRepeats: number;
  startupRepeats: number;
  parserLines: number;
  dashboardSnapshots: number;
  dashboardFlood: { events: number; seconds: number; repeats: number };
  targets: TargetsPlan;
  share: SharePlan;
}

interface Results {
  targets?: TargetsResult;
  overhead?: OverheadResult;
  parallel?: ParallelResult;
  startup?: StartupResult;
  memory?: MemoryResult;
  parsers?: ParserResult;
  dashboard?: DashboardResult;
  dashboardFlood?: DashboardFloodResult;
  sandbox?: SandboxResult;
  share?: ShareResult;
  setup?: SetupResult;
  containers?: ContainersResult;
  stats?: StatsResult;
}

const usageError = (message: string): never => {
  process.stderr.write(
    `bench: ${message}\nUsage: npm run bench -- [--quick] [--repeats <n>] [--large-repo-files <n>] [--scaling <n,...|none>] [--hydra <main.js>] [--only ${SUITES.join(',')}]\n`,
  );
  process.exit(2);
};

const isSuite = (name: string): name is SuiteName => (SUITES as readonly string[]).includes(name);

const parsePlan = (argv: string[]): Plan => {
  const quick = argv.includes('--quick');
  let repeats = quick ? 1 : 3;
  let largeRepoFiles = quick ? 2_000 : 20_000;
  let scaling = quick ? [1, 2, 8, 16] : [1, 2, 4, 8, 16];
  let hydra: string | undefined;
  let suites = new Set<SuiteName>(SUITES);
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    if (arg === '--quick') continue;
    if (arg === '--large-repo-files') {
      largeRepoFiles = Number.parseInt(argv[(index += 1)] ?? '', 10);
      if (!Number.isInteger(largeRepoFiles) || largeRepoFiles < 0)
        usageError('--large-repo-files takes a whole number (0 skips the large repository)');
      continue;
    }
    if (arg === '--scaling') {
      const list = argv[(index += 1)] ?? '';
      scaling = list === 'none' ? [] : list.split(',').map((item) => Number.parseInt(item, 10));
      if (scaling.some((count) => !Number.isInteger(count) || count < 1 || count > 18))
        usageError('--scaling takes agent counts from 1 to 18, comma-separated, or none');
      continue;
    }
    if (arg === '--hydra') {
      hydra = path.resolve(argv[(index += 1)] ?? '');
      if (!existsSync(hydra))
        usageError(`--hydra names a built hydra's dist/cli/main.js: ${hydra} is missing`);
      continue;
    }
    if (arg === '--repeats') {
      repeats = Number.parseInt(argv[(index += 1)] ?? '', 10);
      if (!Number.isInteger(repeats) || repeats < 1)
        usageError('--repeats takes a whole number of at least 1');
    } else if (arg === '--only') {
      const names = (argv[(index += 1)] ?? '').split(',').filter(Boolean);
      const unknown = names.filter((name) => !isSuite(name));
      if (names.length === 0 || unknown.length > 0)
        usageError(
          `--only takes suite names from: ${SUITES.join(', ')}${unknown.length > 0 ? ` (unknown: ${unknown.join(', ')})` : ''}`,
        );
      suites = new Set(names.filter(isSuite));
      if (suites.has('memory')) suites.add('overhead');
    } else {
      usageError(`unknown argument ${String(arg)}`);
    }
  }
  return {
    quick,
    hydra,
    repeats,
    suites,
    overheadLines: quick ? [500, 5_000] : [2_000, 20_000],
    parallelLines: quick ? 500 : 2_000,
    memoryExtraLines: quick ? [50_000] : [200_000],
    memoryRepeats: quick ? 1 : 2,
    startupRepeats: quick ? 2 : Math.max(5, repeats),
    parserLines: quick ? 5_000 : 20_000,
    dashboardSnapshots: quick ? 40 : 150,
    dashboardFlood: { events: 20_000, seconds: 5, repeats: quick ? 1 : repeats },
    targets: {
      repeats: quick ? 1 : Math.max(5, repeats),
      floodLines: quick ? 20_000 : 100_000,
      agentSeconds: 1.8,
      largeRepoFiles,
      scaling,
    },
    // Issue 23: a 50,000-file node_modules (100 packages of 500 files) in either size.
    share: { agents: quick ? 2 : 3, packages: 100, filesPerPackage: 500, repeats: quick ? 1 : repeats },
  };
};

const r = round;

const yesNo = (met: boolean): string => (met ? 'yes' : 'NO');

const printTargets = (result: TargetsResult): string =>
  [
    table(
      `0. Issue 12's table: hydra beside a bare baseline from the same run (median of ${result.repeats})`,
      ['what', 'unit', 'baseline', 'hydra', 'added', 'ratio', 'target', 'met'],
      result.rows.map((row) => [
        row.what,
        row.unit,
        row.baseline ?? '—',
        row.hydra,
        row.added ?? '—',
        row.ratio === null ? '—' : `${r(row.ratio, 2)}x`,
        row.target,
        row.target.startsWith('—') ? '—' : yesNo(row.met),
      ]),
    ),
    `   flood: ${result.floodLines.toLocaleString('en-US')} lines, ${r(result.floodBytes / 1024 / 1024)} MB of partial-message deltas`,
    '',
    table(
      '0a. Where the time to the first spawn goes (HYDRA_TRACE=1, ms since hydra started, median)',
      ['phase', 'at ms'],
      result.trace.map((phase) => [phase.phase, phase.atMs]),
    ),
    '',
    table(
      '0b. Scaling: agents of ~1 s each, hydra vs the same agents run in parallel (median)',
      ['agents', 'baseline wall ms', 'hydra wall ms', 'added wall ms', 'hydra CPU ms', 'hydra peak RSS MiB'],
      result.scaling.map((row) => [
        row.agents,
        row.baselineWallMs,
        row.hydraWallMs,
        row.addedWallMs,
        row.hydraCpuMs,
        row.hydraMaxRssKb / 1024,
      ]),
    ),
    ...(result.largeRepo === null
      ? []
      : [
          '',
          table(
            `0c. A repository of ${result.largeRepo.files.toLocaleString('en-US')} files, two agents (median)`,
            [
              'start',
              'git worktree add x2 ms',
              'hydra first agent running ms',
              'hydra all agents running ms',
              'disk per worktree MiB',
              'disk kept between races MiB',
            ],
            [
              [
                'new worktrees (no pool)',
                result.largeRepo.worktreeAddMs,
                result.largeRepo.hydraFirstSpawnMs,
                result.largeRepo.hydraAllRunningMs,
                result.largeRepo.worktreeDiskKb / 1024,
                0,
              ],
              [
                'worktree_pool = 2, base moved 1 file',
                '—',
                result.largeRepo.pooledFirstSpawnMs,
                result.largeRepo.pooledAllRunningMs,
                result.largeRepo.worktreeDiskKb / 1024,
                result.largeRepo.poolDiskKb / 1024,
              ],
            ],
          ),
        ]),
  ].join('\n');

const printOverhead = (result: OverheadResult): string =>
  [
    table(
      `1. Overhead per agent process: fake claude run directly vs through \`hydra race --json --agents claude\` (median of ${result.repeats})`,
      [
        'lines',
        'base wall ms',
        'base CPU ms',
        'hydra wall ms',
        'hydra CPU ms',
        'of which hydra proc',
        'added CPU ms',
        'added CPU ms/1k lines',
        'wall ratio',
        'CPU ratio',
      ],
      result.rows.map((row) => [
        row.lines,
        row.baseline.wallMs,
        row.baseline.cpuMs,
        row.hydra.wallMs,
        row.hydra.cpuMs,
        row.hydra.hydraCpuMs,
        row.addedCpuMs,
        row.addedCpuMsPer1kLines,
        `${r(row.wallRatio, 2)}x`,
        `${r(row.cpuRatio, 2)}x`,
      ]),
    ),
    `   marginal cost: ${r(result.marginalCpuMsPer1kLines)} CPU ms per 1,000 extra lines; fixed cost of a race: ~${Math.round(result.fixedCpuMs)} CPU ms`,
    '   (CPU = the command and every process it ran, from /proc; "hydra proc" = the hydra Node process alone)',
  ].join('\n');

const printParallel = (result: ParallelResult): string =>
  [
    table(
      `2. Three agents in parallel vs one (${result.lines} lines each; wall ms, median)`,
      ['agents', 'baseline wall ms', 'hydra wall ms', 'added wall ms', 'ratio'],
      [
        [
          '1 (claude)',
          result.baseline1WallMs,
          result.hydra1WallMs,
          result.added1WallMs,
          `${r(result.ratio1, 2)}x`,
        ],
        [
          '3 (claude, codex, cursor)',
          result.baseline3WallMs,
          result.hydra3WallMs,
          result.added3WallMs,
          `${r(result.ratio3, 2)}x`,
        ],
      ],
    ),
    `   two more agents add ${Math.round(result.addedForTwoMoreMs)} ms of hydra wall-clock on top of the one-agent overhead`,
  ].join('\n');

const printStartup = (result: StartupResult): string =>
  table(
    `3. Start-up (median of ${result.repeats})`,
    ['command', 'wall ms', 'CPU ms', 'added wall ms', 'vs node -e 0'],
    result.rows.map((row) => [row.name, row.wallMs, row.cpuMs, row.addedWallMs, `${r(row.wallRatio, 2)}x`]),
  );

const printMemory = (result: MemoryResult): string =>
  [
    table(
      '4. Memory: peak RSS of the hydra process, one agent, growing streams',
      ['lines', 'runs', 'hydra peak RSS MiB', 'agent peak RSS MiB', 'hydra wall ms'],
      result.rows.map((row) => [
        row.lines,
        row.runs,
        row.hydraMaxRssKb / 1024,
        row.agentMaxRssKb / 1024,
        row.wallMs,
      ]),
    ),
    `   growth: ${r(result.growthRatio, 2)}x hydra peak RSS from ${result.rows[0]?.lines ?? '?'} to ${result.rows.at(-1)?.lines ?? '?'} lines`,
  ].join('\n');

const printParsers = (result: ParserResult): string =>
  table(
    `5. Parser throughput on the recorded fixtures (median of ${result.repeats})`,
    [
      'adapter',
      'fixtures',
      'lines',
      'events',
      'parser lines/s',
      'JSON.parse lines/s',
      'µs/line',
      'vs JSON.parse',
    ],
    result.rows.map((row) => [
      row.adapter,
      row.fixtures,
      row.lines,
      row.events,
      row.parserLinesPerSec,
      row.jsonParseLinesPerSec,
      row.parserUsPerLine,
      `${r(row.ratio, 2)}x`,
    ]),
  );

const printDashboard = (result: DashboardResult): string =>
  table(
    `6. Dashboard render cost: ${result.snapshots} snapshots, three busy agents, ${result.columns}x${result.rows} (median of ${result.repeats})`,
    ['renderer', 'frames', 'CPU ms/frame', 'wall ms/frame', 'ratio'],
    [
      [
        'hydra dashboard (App)',
        result.appFrames,
        result.appCpuMsPerFrame,
        result.appWallMsPerFrame,
        `${r(result.cpuRatio, 2)}x`,
      ],
      [
        'plain Ink <Text>, same text',
        result.baselineFrames,
        result.baselineCpuMsPerFrame,
        result.baselineWallMsPerFrame,
        '1x',
      ],
    ],
  );

const printDashboardFlood = (result: DashboardFloodResult): string =>
  table(
    `7. Dashboard under a flood: ${result.agents} agents x ${result.eventsPerAgent.toLocaleString('en-US')} events in ${result.seconds} s, tmux 160x45 (median of ${result.repeats})`,
    ['what', 'hydra', 'target', 'met'],
    [
      [
        'CPU ms per 10,000 events',
        result.cpuMsPer10kEvents,
        '< 1,000',
        yesNo(result.cpuMsPer10kEvents < 1000),
      ],
      ['hydra CPU ms (whole race)', result.hydraCpuMs, '—', '—'],
      ['peak RSS MiB', result.hydraMaxRssKb / 1024, '< 200', yesNo(result.hydraMaxRssKb / 1024 < 200)],
      ['frames drawn (whole race)', result.frames, '—', '—'],
      [
        'frames a second while agents ran',
        result.framesPerSecond,
        '≤ 30',
        yesNo(result.framesPerSecond <= 30),
      ],
      [
        'most frames in any second',
        result.peakFramesInASecond,
        '≤ 30',
        yesNo(result.peakFramesInASecond <= 30),
      ],
      [
        'last event to next frame ms',
        result.lastEventToFrameMs,
        '≤ 250',
        yesNo(result.lastEventToFrameMs <= 250),
      ],
    ],
  );

const machine = (): Record<string, unknown> => ({
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  loadAverage: os.loadavg().map((value) => r(value, 2)),
});

const step = async <T>(name: string, run: () => Promise<T> | T): Promise<T> => {
  const started = Date.now();
  process.stderr.write(`bench: ${name}...\n`);
  const result = await run();
  process.stderr.write(`bench: ${name} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return result;
};

const runSuites = async (plan: Plan, ws: Workspace): Promise<Results> => {
  const results: Results = {};
  if (plan.suites.has('targets'))
    results.targets = await step('targets', () => benchTargets(ws, plan.targets));
  if (plan.suites.has('overhead'))
    results.overhead = await step('overhead', () => benchOverhead(ws, plan.overheadLines, plan.repeats));
  if (plan.suites.has('parallel'))
    results.parallel = await step('parallel', () => benchParallel(ws, plan.parallelLines, plan.repeats));
  if (plan.suites.has('startup'))
    results.startup = await step('startup', () => benchStartup(ws, plan.startupRepeats));
  const overhead = results.overhead;
  if (plan.suites.has('memory') && overhead !== undefined) {
    results.memory = await step('memory', () =>
      benchMemory(ws, overhead, plan.memoryExtraLines, plan.memoryRepeats),
    );
  }
  if (plan.suites.has('parsers'))
    results.parsers = await step('parsers', () => benchParsers(plan.parserLines, Math.max(5, plan.repeats)));
  if (plan.suites.has('dashboard'))
    results.dashboard = await step('dashboard', () =>
      benchDashboard({ snapshots: plan.dashboardSnapshots, repeats: plan.repeats }),
    );
  if (plan.suites.has('dashboard-flood'))
    results.dashboardFlood = await step('dashboard-flood', () =>
      benchDashboardFlood(ws, plan.dashboardFlood),
    );
  if (plan.suites.has('sandbox'))
    results.sandbox = await step('sandbox', () => benchSandbox(ws, plan.repeats, plan.targets.agentSeconds));
  if (plan.suites.has('share')) results.share = await step('share', () => benchShare(plan.share));
  // Its own workspace (an npm project): three races per round, so a few rounds even when quick.
  if (plan.suites.has('setup'))
    results.setup = await step('setup', () => benchSetup(plan.quick ? 3 : Math.max(5, plan.repeats)));
  if (plan.suites.has('containers'))
    results.containers = await step('containers', () =>
      benchContainers(ws, plan.repeats, plan.targets.agentSeconds),
    );
  // Issue 38's figure: 10,000 records in either size (the target is about that many).
  if (plan.suites.has('stats'))
    results.stats = await step('stats', () =>
      benchStats(ws, 10_000, plan.quick ? 1 : Math.max(5, plan.repeats)),
    );
  return results;
};

const printStats = (result: StatsResult): string =>
  table(
    `12. hydra stats over ${result.records.toLocaleString('en-US')} run records, one in 500 damaged (median of ${result.repeats}); target: --json under 1,000 ms, ${yesNo(result.met) === 'yes' ? 'met' : 'NOT met'}`,
    ['command', 'wall ms', 'CPU ms'],
    result.rows.map((row) => [row.name, row.wallMs, row.cpuMs]),
  );

const report = (results: Results): string =>
  [
    results.targets && printTargets(results.targets),
    results.overhead && printOverhead(results.overhead),
    results.parallel && printParallel(results.parallel),
    results.startup && printStartup(results.startup),
    results.memory && printMemory(results.memory),
    results.parsers && printParsers(results.parsers),
    results.dashboard && printDashboard(results.dashboard),
    results.dashboardFlood && printDashboardFlood(results.dashboardFlood),
    results.sandbox && ((t) => table(t.title, t.head, t.rows))(sandboxTable(results.sandbox)),
    results.share && ((t) => table(t.title, t.head, t.rows))(shareTable(results.share)),
    results.setup && ((t) => table(t.title, t.head, t.rows))(setupTable(results.setup)),
    results.containers &&
      ((t) => (typeof t === 'string' ? t : table(t.title, t.head, t.rows)))(
        containersTable(results.containers),
      ),
    results.stats && printStats(results.stats),
  ]
    .filter((section): section is string => typeof section === 'string')
    .join('\n\n');

async function main(): Promise<void> {
  assertLinux();
  const plan = parsePlan(process.argv.slice(2));
  const started = Date.now();
  const before = machine();
  const ws = createWorkspace(plan.hydra);
  let results: Results;
  try {
    results = await runSuites(plan, ws);
  } finally {
    if (process.env.HYDRA_BENCH_KEEP === '1')
      process.stderr.write(`bench: kept ${ws.root} (HYDRA_BENCH_KEEP=1)\n`);
    else ws.dispose();
  }
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `hydra bench (${plan.quick ? 'quick' : 'full'}), node ${process.version}, ${os.cpus().length} CPUs, load ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}\n\n`,
  );
  process.stdout.write(`${report(results)}\n\n`);
  const outDir = path.join(PACKAGE_ROOT, '.cache', 'bench');
  mkdirSync(outDir, { recursive: true });
  const outFile = path.join(outDir, 'latest.json');
  const json = {
    schema: 1,
    date: new Date().toISOString(),
    seconds: r(seconds),
    plan: { ...plan, suites: [...plan.suites] },
    machine: { ...before, loadAverageAfter: os.loadavg().map((value) => r(value, 2)) },
    results,
  };
  writeFileSync(outFile, `${JSON.stringify(json, null, 2)}\n`);
  process.stdout.write(`took ${seconds.toFixed(0)} s; JSON: ${path.relative(process.cwd(), outFile)}\n`);
}

await main();
