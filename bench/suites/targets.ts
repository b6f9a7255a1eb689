/**
 * Issue 12's table: each figure beside a bare baseline measured in the same run, as a ratio, with
 * its target. Medians of `repeats` runs; baseline and hydra runs alternate so drift on a shared
 * machine hits both alike.
 *
 * - first spawn: from the command's start to the first fake agent's own start (its Node process's
 *   performance.timeOrigin, written by the probe preload), after `git worktree add` ×2 in parallel
 *   (baseline) or `hydra race --json --agents claude,codex`.
 * - whole race: two fake agents that each take ~1.8 s; baseline = a shell script doing what a race
 *   needs with bare git (two worktrees, both agents, add + commit + diff in each, remove both).
 * - flood: a 100,000-line Claude stream of partial-message deltas through one agent, less the
 *   same race on a 7-line stream (the race's fixed cost), against one `node` reading the file and
 *   JSON.parse-ing every line.
 * - fixed CPU: the CPU of a race (hydra, git, watchdog, containment) minus its agent's own CPU, for
 *   an agent that replays a six-line stream.
 * Also: where the time to the first spawn goes (HYDRA_TRACE=1), scaling with 1, 2 and 4 agents,
 * and a repository of 20,000 files.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AdapterId } from '../../src/adapters/types.js';
import type { FakeScenario } from '../../src/demo/fake-bin.js';
import { fakeBinaryName } from '../../src/demo/fake-bin.js';
import { expectExit, measureCommand, type ProcessSample } from '../lib/measure.js';
import { median, ratio } from '../lib/stats.js';
import { fixtureStream, partialMessageFlood } from '../lib/streams.js';
import type { Workspace } from '../lib/workspace.js';

export interface TargetRow {
  what: string;
  unit: 'ms' | 'CPU ms';
  baseline: number | null;
  hydra: number;
  /** hydra − baseline. */
  added: number | null;
  ratio: number | null;
  target: string;
  met: boolean;
}

export interface TracePhase {
  phase: string;
  /** Median ms since hydra's process started. */
  atMs: number;
}

export interface ScalingRow {
  agents: number;
  baselineWallMs: number;
  hydraWallMs: number;
  addedWallMs: number;
  hydraCpuMs: number;
  hydraMaxRssKb: number;
}

export interface LargeRepoResult {
  files: number;
  /** `git worktree add` ×2 in parallel. */
  worktreeAddMs: number;
  /** From `hydra race` to the last of its two agents running. */
  hydraAllRunningMs: number;
  /** From `hydra race` to the first agent running. */
  hydraFirstSpawnMs: number;
  /** Disk used by one worktree (du -sk), KiB. */
  worktreeDiskKb: number;
  /** With `worktree_pool = 2` and one file changed on the base since the last race. */
  pooledFirstSpawnMs: number;
  pooledAllRunningMs: number;
  /** Disk the pool keeps between races (du -sk of its directory), KiB; 0 without a pool. */
  poolDiskKb: number;
}

export interface TargetsResult {
  repeats: number;
  rows: TargetRow[];
  trace: TracePhase[];
  scaling: ScalingRow[];
  largeRepo: LargeRepoResult | null;
  floodLines: number;
  floodBytes: number;
}

export interface TargetsPlan {
  repeats: number;
  floodLines: number;
  agentSeconds: number;
  largeRepoFiles: number;
  scaling: number[];
}

const SCALING_AGENTS: AdapterId[] = ['claude', 'codex', 'gemini', 'cursor'];

const FAKE_ARGS: Partial<Record<AdapterId, string[]>> = {
  claude: ['-p', '--output-format', 'stream-json', '--verbose', 'bench prompt'],
  codex: ['exec', '--json', 'bench prompt'],
  cursor: ['-p', '--output-format', 'stream-json', 'bench prompt'],
  gemini: ['--output-format', 'stream-json', '--prompt=bench prompt'],
};

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

const git = (cwd: string, args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/**
 * `hydra race --json --agents a,b`; the same adapter listed N times in a row is `name*N` (named
 * agents: claude-1 … claude-N; N at most 9). `extra` goes before the prompt (e.g. `--config <file>`).
 */
const raceArgv = (ws: Workspace, agents: AdapterId[], extra: string[] = []): string[] => [
  ...ws.hydra,
  'race',
  '--json',
  '--agents',
  agentsArg(agents),
  ...(agents.some((agent) => agent === 'cursor' || agent === 'gemini')
    ? ['--allow-experimental-adapters']
    : []),
  ...extra,
  'bench prompt',
];

const agentsArg = (agents: AdapterId[]): string => {
  const runs: Array<{ agent: AdapterId; count: number }> = [];
  for (const agent of agents) {
    const last = runs.at(-1);
    if (last?.agent === agent) last.count += 1;
    else runs.push({ agent, count: 1 });
  }
  return runs.map(({ agent, count }) => (count === 1 ? agent : `${agent}*${count}`)).join(',');
};

const probeDir = (ws: Workspace): string => path.join(ws.root, 'probe');

const agentStarts = (sample: ProcessSample): number[] =>
  sample.nodeProcesses
    .filter((report) => report.script.endsWith('fake-agent.js'))
    .map((report) => report.startedAt - sample.startedAt)
    .sort((a, b) => a - b);

const agentCpuMs = (sample: ProcessSample): number =>
  sample.nodeProcesses
    .filter((report) => report.script.endsWith('fake-agent.js'))
    .reduce((sum, report) => sum + report.cpuMs, 0);

const hydraProcess = (sample: ProcessSample) =>
  sample.nodeProcesses.find((report) => report.script.endsWith(path.join('cli', 'main.js')));

const runHydra = async (
  ws: Workspace,
  repo: string,
  binDir: string,
  agents: AdapterId[],
  extraEnv: NodeJS.ProcessEnv = {},
  extraArgs: string[] = [],
): Promise<ProcessSample> => {
  const sample = await measureCommand(raceArgv(ws, agents, extraArgs), {
    cwd: repo,
    env: { ...ws.env(binDir), HYDRA_WORKTREE_ROOT: path.join(ws.root, 'worktrees'), ...extraEnv },
    probeDir: probeDir(ws),
    timeoutMs: 600_000,
  });
  return expectExit(sample, 0, `hydra race --agents ${agentsArg(agents)}`);
};

/**
 * A bare-git baseline. Two `git worktree add` at once can fail in git itself (one reads the other's
 * half-made .git/worktrees entry): such a run is repeated, up to three times.
 */
const runScript = async (ws: Workspace, cwd: string, script: string): Promise<ProcessSample> => {
  for (let attempt = 1; ; attempt += 1) {
    const sample = await measureCommand(['/bin/sh', '-c', script], {
      cwd,
      env: process.env,
      probeDir: probeDir(ws),
      timeoutMs: 600_000,
    });
    if (sample.exitCode === 0 || attempt === 3) return expectExit(sample, 0, 'baseline script');
    process.stderr.write(`bench: baseline failed (attempt ${attempt}), again: ${sample.stderrTail.trim()}\n`);
    cleanBare(cwd);
  }
};

const agentCommand = (binDir: string, agent: AdapterId): string =>
  [path.join(binDir, fakeBinaryName(agent)), ...(FAKE_ARGS[agent] ?? [])].map(shellQuote).join(' ');

/** Lines × delay ≈ `seconds` for the agent's recorded success stream. */
const pacedScenario = (agent: AdapterId, seconds: number): FakeScenario => {
  const lines = fixtureStream(agent).length;
  return { agent, delayMs: Math.round((seconds * 1000) / Math.max(1, lines - 1)) };
};

const installAgents = (
  ws: Workspace,
  name: string,
  agents: AdapterId[],
  scenario: (agent: AdapterId) => FakeScenario,
): Promise<string> =>
  ws.installBin(name, Object.fromEntries(agents.map((agent) => [fakeBinaryName(agent), scenario(agent)])));

let scriptRound = 0;

/**
 * Bare git for `agents`: worktrees added in parallel, then (`work` set) each agent in its worktree
 * followed by add + commit + diff, all agents in parallel; `cleanUp` removes worktrees and branches.
 */
const bareScript = (
  binDir: string,
  worktrees: string,
  agents: AdapterId[],
  options: { work: 'first-spawn' | 'whole-race' },
): string => {
  scriptRound += 1;
  const dirs = agents.map((agent) => path.join(worktrees, `bare-${scriptRound}-${agent}`));
  const branches = agents.map((agent) => `bare/${scriptRound}/${agent}`);
  const add = agents
    .map(
      (_, index) => `git worktree add -q -b ${branches[index]} ${shellQuote(dirs[index] as string)} HEAD &`,
    )
    .join(' ');
  const lines = [`${add} wait`];
  if (options.work === 'first-spawn') {
    lines.push(
      agents
        .map(
          (agent, index) =>
            `(cd ${shellQuote(dirs[index] as string)} && ${agentCommand(binDir, agent)} >/dev/null) &`,
        )
        .join(' ') + ' wait',
    );
  } else {
    lines.push(
      agents
        .map(
          (agent, index) =>
            `(cd ${shellQuote(dirs[index] as string)} && ${agentCommand(binDir, agent)} >/dev/null && git add -A && ` +
            `git -c user.name=b -c user.email=b@b.invalid commit -q -m bench && git diff --numstat HEAD~1 HEAD >/dev/null) &`,
        )
        .join(' ') + ' wait',
    );
    lines.push(
      dirs.map((dir) => `git worktree remove --force ${shellQuote(dir)}`).join(' && '),
      `git branch -q -D ${branches.join(' ')}`,
    );
  }
  return lines.join('\n');
};

/** Removes what a first-spawn baseline left (not timed). */
const cleanBare = (repo: string): void => {
  for (const line of git(repo, ['worktree', 'list', '--porcelain']).split('\n')) {
    const dir = line.startsWith('worktree ') ? line.slice('worktree '.length) : null;
    if (dir !== null && path.basename(dir).startsWith('bare-'))
      git(repo, ['worktree', 'remove', '--force', dir]);
  }
  const branches = git(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/bare/'])
    .split('\n')
    .filter(Boolean);
  if (branches.length > 0) git(repo, ['branch', '-q', '-D', ...branches]);
};

/** Hydra's branches of completed races stay (they are results): delete them between runs. */
const cleanHydraBranches = (repo: string): void => {
  const branches = git(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/hydra/'])
    .split('\n')
    .filter(Boolean);
  if (branches.length > 0) git(repo, ['branch', '-q', '-D', ...branches]);
};

const TRACE_LINE = /^hydra trace (\d+(?:\.\d+)?) (.+)$/;

const traceOf = (stderr: string): Map<string, number> => {
  const phases = new Map<string, number>();
  for (const line of stderr.split('\n')) {
    const match = TRACE_LINE.exec(line);
    if (match && !phases.has(match[2] as string)) phases.set(match[2] as string, Number(match[1]));
  }
  return phases;
};

const row = (
  what: string,
  unit: TargetRow['unit'],
  baseline: number | null,
  hydra: number,
  target: string,
  met: (value: { hydra: number; added: number | null; ratio: number | null }) => boolean,
): TargetRow => {
  const added = baseline === null ? null : hydra - baseline;
  const r = baseline === null ? null : ratio(hydra, baseline);
  return { what, unit, baseline, hydra, added, ratio: r, target, met: met({ hydra, added, ratio: r }) };
};

async function firstSpawn(ws: Workspace, repeats: number): Promise<{ row: TargetRow; trace: TracePhase[] }> {
  const agents: AdapterId[] = ['claude', 'codex'];
  const binDir = await installAgents(ws, 'first-spawn', agents, (agent) => ({ agent, delayMs: 0 }));
  await runHydra(ws, ws.repo, binDir, agents);
  cleanHydraBranches(ws.repo);
  const bare: number[] = [];
  const hydra: number[] = [];
  const traces: Array<Map<string, number>> = [];
  for (let index = 0; index < repeats; index += 1) {
    const base = await runScript(
      ws,
      ws.repo,
      bareScript(binDir, ws.worktrees, agents, { work: 'first-spawn' }),
    );
    bare.push(agentStarts(base)[0] ?? Number.NaN);
    cleanBare(ws.repo);
    const sample = await runHydra(ws, ws.repo, binDir, agents, { HYDRA_TRACE: '1' });
    hydra.push(agentStarts(sample)[0] ?? Number.NaN);
    traces.push(traceOf(sample.stderrTail));
    cleanHydraBranches(ws.repo);
  }
  const phases = [...(traces[0]?.keys() ?? [])];
  return {
    row: row(
      'first agent process running after the command starts (2 agents)',
      'ms',
      median(bare),
      median(hydra),
      '≤ +250 ms over bare',
      ({ added }) => added !== null && added <= 250,
    ),
    trace: phases.map((phase) => ({
      phase,
      atMs: median(traces.map((trace) => trace.get(phase) ?? Number.NaN).filter(Number.isFinite)),
    })),
  };
}

async function wholeRace(ws: Workspace, repeats: number, seconds: number): Promise<TargetRow> {
  const agents: AdapterId[] = ['claude', 'codex'];
  const binDir = await installAgents(ws, 'whole-race', agents, (agent) => pacedScenario(agent, seconds));
  await runHydra(ws, ws.repo, binDir, agents);
  cleanHydraBranches(ws.repo);
  const bare: number[] = [];
  const hydra: number[] = [];
  for (let index = 0; index < repeats; index += 1) {
    bare.push(
      (await runScript(ws, ws.repo, bareScript(binDir, ws.worktrees, agents, { work: 'whole-race' }))).wallMs,
    );
    hydra.push((await runHydra(ws, ws.repo, binDir, agents)).wallMs);
    cleanHydraBranches(ws.repo);
  }
  return row(
    `whole race, two agents of ~${seconds} s each (wall)`,
    'ms',
    median(bare),
    median(hydra),
    '≤ 1.15×',
    ({ ratio: r }) => r !== null && r <= 1.15,
  );
}

const JSON_BASELINE = [
  "const { createReadStream } = require('node:fs');",
  "const { createInterface } = require('node:readline');",
  'let n = 0;',
  "createInterface({ input: createReadStream(process.argv[1]) }).on('line', (line) => { if (line !== '') { JSON.parse(line); n += 1; } });",
].join('\n');

/**
 * The flood: the same fake agent replays the 100,000-line stream, and (the race's own fixed cost,
 * measured by the rows before) a seven-line stream: the flood's first three and last four lines.
 * What the stream adds to a race is the difference; the target holds it to 2x a bare `JSON.parse`
 * of the same lines. The whole race's wall is printed too, with no target of its own: it is the
 * race's start (the first-spawn row), the fake agent's own start and its reading of the 28 MB file,
 * and the stream.
 */
async function flood(
  ws: Workspace,
  repeats: number,
  lines: number,
): Promise<{ rows: TargetRow[]; bytes: number }> {
  const file = path.join(ws.streams, `claude-flood-${lines}.jsonl`);
  const stream = partialMessageFlood(lines);
  writeFileSync(file, `${stream.join('\n')}\n`);
  const small = path.join(ws.streams, `claude-flood-ends.jsonl`);
  writeFileSync(small, `${[...stream.slice(0, 3), ...stream.slice(-4)].join('\n')}\n`);
  const bytes = readFileSync(file).length;
  const binDir = await ws.installBin('flood', {
    [fakeBinaryName('claude')]: { agent: 'claude', streamFile: file, delayMs: 0 },
  });
  const smallDir = await ws.installBin('flood-ends', {
    [fakeBinaryName('claude')]: { agent: 'claude', streamFile: small, delayMs: 0 },
  });
  await runHydra(ws, ws.repo, binDir, ['claude']);
  cleanHydraBranches(ws.repo);
  const bare: number[] = [];
  const hydra: number[] = [];
  const ends: number[] = [];
  for (let index = 0; index < repeats; index += 1) {
    const base = expectExit(
      await measureCommand([process.execPath, '-e', JSON_BASELINE, file], { cwd: ws.root, env: process.env }),
      0,
      'JSON.parse baseline',
    );
    bare.push(base.wallMs);
    hydra.push((await runHydra(ws, ws.repo, binDir, ['claude'])).wallMs);
    cleanHydraBranches(ws.repo);
    ends.push((await runHydra(ws, ws.repo, smallDir, ['claude'])).wallMs);
    cleanHydraBranches(ws.repo);
  }
  const count = lines.toLocaleString('en-US');
  return {
    rows: [
      row(
        `${count}-line stream-json flood, one agent: the whole race (wall)`,
        'ms',
        median(bare),
        median(hydra),
        '— (next row)',
        () => true,
      ),
      row(
        `the same race less one of a 7-line stream: what the ${count} lines add (wall)`,
        'ms',
        median(bare),
        median(hydra) - median(ends),
        '≤ 2×',
        ({ ratio: r }) => r !== null && r <= 2,
      ),
    ],
    bytes,
  };
}

async function fixedCpu(ws: Workspace, repeats: number): Promise<TargetRow[]> {
  const binDir = await installAgents(ws, 'fixed-cpu', ['claude'], (agent) => ({ agent, delayMs: 0 }));
  await runHydra(ws, ws.repo, binDir, ['claude']);
  cleanHydraBranches(ws.repo);
  const total: number[] = [];
  const own: number[] = [];
  for (let index = 0; index < repeats; index += 1) {
    const sample = await runHydra(ws, ws.repo, binDir, ['claude']);
    total.push(sample.cpuMs - agentCpuMs(sample));
    own.push(hydraProcess(sample)?.cpuMs ?? Number.NaN);
    cleanHydraBranches(ws.repo);
  }
  return [
    row(
      'fixed CPU per race: hydra + git + watchdog + containment',
      'CPU ms',
      null,
      median(total),
      '≤ 300 CPU ms',
      ({ hydra }) => hydra <= 300,
    ),
    row('  of which the hydra process itself', 'CPU ms', null, median(own), '—', () => true),
  ];
}

async function scaling(
  ws: Workspace,
  repeats: number,
  counts: number[],
  seconds: number,
): Promise<ScalingRow[]> {
  const rows: ScalingRow[] = [];
  for (const count of counts) {
    // Up to four distinct adapters; beyond that two adapters N/2 times each (`claude*8,codex*8`:
    // named agents, at most 9 of one).
    const agents =
      count <= SCALING_AGENTS.length
        ? SCALING_AGENTS.slice(0, count)
        : Array.from({ length: count }, (_, index): AdapterId => (index < count / 2 ? 'claude' : 'codex'));
    const binDir = await installAgents(ws, `scaling-${count}`, [...new Set(agents)], (agent) =>
      pacedScenario(agent, seconds),
    );
    const parallel = `${agents.map((agent) => `(cd ${shellQuote(ws.root)} && ${agentCommand(binDir, agent)} >/dev/null) &`).join(' ')} wait`;
    await runHydra(ws, ws.repo, binDir, agents);
    cleanHydraBranches(ws.repo);
    const bare: number[] = [];
    const walls: number[] = [];
    const cpus: number[] = [];
    const rss: number[] = [];
    for (let index = 0; index < repeats; index += 1) {
      bare.push((await runScript(ws, ws.root, parallel)).wallMs);
      const sample = await runHydra(ws, ws.repo, binDir, agents);
      walls.push(sample.wallMs);
      cpus.push(hydraProcess(sample)?.cpuMs ?? Number.NaN);
      rss.push(hydraProcess(sample)?.maxRssKb ?? Number.NaN);
      cleanHydraBranches(ws.repo);
    }
    rows.push({
      agents: count,
      baselineWallMs: median(bare),
      hydraWallMs: median(walls),
      addedWallMs: median(walls) - median(bare),
      hydraCpuMs: median(cpus),
      hydraMaxRssKb: median(rss),
    });
  }
  return rows;
}

/** A repository of `files` small files in nested folders, one commit. */
const createLargeRepo = (root: string, files: number): string => {
  const repo = path.join(root, `large-${files}`);
  mkdirSync(repo, { recursive: true });
  git(repo, ['init', '-q', '-b', 'main']);
  for (let index = 0; index < files; index += 1) {
    const dir = path.join(repo, `src/m${Math.floor(index / 1000)}/d${Math.floor(index / 50) % 20}`);
    if (index % 50 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${index}.ts`), `export const value${index} = ${index};\n`);
  }
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'user.name=b', '-c', 'user.email=b@b.invalid', 'commit', '-q', '-m', 'large']);
  return repo;
};

async function largeRepo(ws: Workspace, repeats: number, files: number): Promise<LargeRepoResult> {
  const repo = createLargeRepo(ws.root, files);
  const agents: AdapterId[] = ['claude', 'codex'];
  const binDir = await installAgents(ws, 'large', agents, (agent) => ({ agent, delayMs: 0 }));
  await runHydra(ws, repo, binDir, agents);
  cleanHydraBranches(repo);
  const adds: number[] = [];
  const first: number[] = [];
  const all: number[] = [];
  for (let index = 0; index < repeats; index += 1) {
    scriptRound += 1;
    const dirs = agents.map((agent) => path.join(ws.worktrees, `bare-${scriptRound}-${agent}`));
    const script = `${dirs.map((dir, position) => `git worktree add -q -b bare/${scriptRound}/${position} ${shellQuote(dir)} HEAD &`).join(' ')} wait`;
    adds.push((await runScript(ws, repo, script)).wallMs);
    cleanBare(repo);
    const sample = await runHydra(ws, repo, binDir, agents);
    const starts = agentStarts(sample);
    first.push(starts[0] ?? Number.NaN);
    all.push(starts.at(-1) ?? Number.NaN);
    cleanHydraBranches(repo);
  }
  // The warm pool: a first race fills it; before each timed one the base moves by one file.
  const config = path.join(ws.root, 'pool.toml');
  writeFileSync(config, '[race]\nworktree_pool = 2\n');
  const poolArgs = ['--config', config];
  await runHydra(ws, repo, binDir, agents, {}, poolArgs);
  cleanHydraBranches(repo);
  const pooledFirst: number[] = [];
  const pooledAll: number[] = [];
  for (let index = 0; index < repeats; index += 1) {
    writeFileSync(path.join(repo, 'src', 'changed.ts'), `export const round = ${index};\n`);
    git(repo, ['add', '-A']);
    git(repo, ['-c', 'user.name=b', '-c', 'user.email=b@b.invalid', 'commit', '-q', '-m', `round ${index}`]);
    const sample = await runHydra(ws, repo, binDir, agents, {}, poolArgs);
    const starts = agentStarts(sample);
    pooledFirst.push(starts[0] ?? Number.NaN);
    pooledAll.push(starts.at(-1) ?? Number.NaN);
    cleanHydraBranches(repo);
  }
  const poolDir = path.join(
    ws.worktrees,
    readdirSync(ws.worktrees).find((name) => name.startsWith('large-')) ?? '',
    '.pool',
  );
  const poolDiskKb = Number.parseInt(execFileSync('du', ['-sk', poolDir], { encoding: 'utf8' }), 10);
  for (const name of readdirSync(poolDir))
    git(repo, ['worktree', 'remove', '--force', path.join(poolDir, name)]);
  const probe = path.join(ws.worktrees, 'du-probe');
  git(repo, ['worktree', 'add', '-q', '--detach', probe, 'HEAD']);
  const diskKb = Number.parseInt(execFileSync('du', ['-sk', probe], { encoding: 'utf8' }), 10);
  git(repo, ['worktree', 'remove', '--force', probe]);
  rmSync(repo, { recursive: true, force: true });
  return {
    files,
    worktreeAddMs: median(adds),
    hydraFirstSpawnMs: median(first),
    hydraAllRunningMs: median(all),
    worktreeDiskKb: diskKb,
    pooledFirstSpawnMs: median(pooledFirst),
    pooledAllRunningMs: median(pooledAll),
    poolDiskKb,
  };
}

export async function benchTargets(ws: Workspace, plan: TargetsPlan): Promise<TargetsResult> {
  const spawn = await firstSpawn(ws, plan.repeats);
  const race = await wholeRace(ws, plan.repeats, plan.agentSeconds);
  const flooded = await flood(ws, plan.repeats, plan.floodLines);
  const cpu = await fixedCpu(ws, plan.repeats);
  const scaled = await scaling(ws, plan.repeats, plan.scaling, 1);
  const large = plan.largeRepoFiles > 0 ? await largeRepo(ws, plan.repeats, plan.largeRepoFiles) : null;
  return {
    repeats: plan.repeats,
    rows: [spawn.row, race, ...flooded.rows, ...cpu],
    trace: spawn.trace,
    scaling: scaled,
    largeRepo: large,
    floodLines: plan.floodLines,
    floodBytes: flooded.bytes,
  };
}
