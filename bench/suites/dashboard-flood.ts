/**
 * The dashboard under a flood (issue 12): three fake agents (`claude*3`) each replaying a stream
 * of `events` partial-message lines spread over `seconds`, hydra's dashboard in a real terminal
 * (tmux, 160x45). Measured: the hydra process's CPU and peak RSS (the probe preload), the frames
 * Ink drew (HYDRA_FRAME_STATS), and the delay from the last agent's exit (its last event) to the
 * first frame drawn after it. The race then ends at the review with q, y.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fakeBinaryName } from '../../src/demo/fake-bin.js';
import { readProbeReports, probePreload } from '../lib/measure.js';
import { median } from '../lib/stats.js';
import { partialMessageFlood } from '../lib/streams.js';
import type { Workspace } from '../lib/workspace.js';

export interface DashboardFloodResult {
  agents: number;
  eventsPerAgent: number;
  seconds: number;
  repeats: number;
  hydraCpuMs: number;
  cpuMsPer10kEvents: number;
  hydraMaxRssKb: number;
  frames: number;
  /** Frames a second while the agents ran (first agent start to last agent exit). */
  framesPerSecond: number;
  /** The busiest second: the most frames in any 1,000 ms window. */
  peakFramesInASecond: number;
  lastEventToFrameMs: number;
}

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

interface Sample {
  cpuMs: number;
  maxRssKb: number;
  frames: number;
  framesPerSecond: number;
  peak: number;
  delayMs: number;
}

async function once(ws: Workspace, binDir: string, round: number): Promise<Sample> {
  const dir = path.join(ws.root, `ui-flood-${round}`);
  const probes = path.join(dir, 'probe');
  const frames = path.join(dir, 'frames.txt');
  const exitFile = path.join(dir, 'exit');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(probes, { recursive: true });
  const env: Record<string, string> = {
    PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: process.env.HOME ?? dir,
    HYDRA_WORKTREE_ROOT: ws.worktrees,
    HYDRA_FRAME_STATS: frames,
    HYDRA_BENCH_PROBE_DIR: probes,
    NODE_OPTIONS: `--import=${probePreload()}`,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
  };
  const assignments = Object.entries(env)
    .map(([key, value]) => `${key}=${shellQuote(value)}`)
    .join(' ');
  const hydra = ws.hydra.map(shellQuote).join(' ');
  const command = `env -u CI -u NO_COLOR -u FORCE_COLOR ${assignments} ${hydra} race --agents 'claude*3' 'bench prompt'; echo $? > ${shellQuote(exitFile)}`;
  const socket = `hydra-bench-${process.pid}-${round}`;
  const tmux = (args: string[]): string =>
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  tmux(['new-session', '-d', '-x', '160', '-y', '45', '-s', 'bench', '-c', ws.repo, command]);
  try {
    const agentsDone = (): number =>
      readProbeReports(probes).filter((report) => report.script.endsWith('fake-agent.js')).length;
    const deadline = Date.now() + 600_000;
    while (agentsDone() < 3 && Date.now() < deadline) await sleep(200);
    // The review screen; then quit (q, y) and wait for hydra's own report.
    const screen = () => tmux(['capture-pane', '-p', '-t', 'bench']);
    while (!/reviewing · 0 running/.test(screen()) && Date.now() < deadline) await sleep(200);
    tmux(['send-keys', '-t', 'bench', 'q']);
    await sleep(500);
    tmux(['send-keys', '-t', 'bench', 'y']);
    while (!existsSync(exitFile) && Date.now() < deadline) await sleep(200);
  } finally {
    try {
      tmux(['kill-server']);
    } catch {
      // already gone
    }
  }
  const reports = readProbeReports(probes);
  const hydraProc = reports.find((report) => report.script.endsWith(path.join('cli', 'main.js')));
  const agents = reports.filter((report) => report.script.endsWith('fake-agent.js'));
  const lastExit = Math.max(...agents.map((report) => report.endedAt ?? Number.NaN));
  const firstStart = Math.min(...agents.map((report) => report.startedAt));
  const times = readFileSync(frames, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => Number(line.split(' ')[0]));
  const during = times.filter((time) => time >= firstStart && time <= lastExit);
  let peak = 0;
  for (const [index, time] of times.entries()) {
    const inWindow = times.slice(index).filter((other) => other < time + 1000).length;
    peak = Math.max(peak, inWindow);
  }
  const after = times.find((time) => time >= lastExit);
  return {
    cpuMs: hydraProc?.cpuMs ?? Number.NaN,
    maxRssKb: hydraProc?.maxRssKb ?? Number.NaN,
    frames: times.length,
    framesPerSecond: during.length / Math.max(0.001, (lastExit - firstStart) / 1000),
    peak,
    delayMs: after === undefined ? Number.NaN : after - lastExit,
  };
}

export async function benchDashboardFlood(
  ws: Workspace,
  plan: { events: number; seconds: number; repeats: number },
): Promise<DashboardFloodResult> {
  const file = path.join(ws.streams, `claude-ui-flood-${plan.events}.jsonl`);
  writeFileSync(file, `${partialMessageFlood(plan.events).join('\n')}\n`);
  const binDir = await ws.installBin('ui-flood', {
    [fakeBinaryName('claude')]: { agent: 'claude', streamFile: file, durationMs: plan.seconds * 1000 },
  });
  const samples: Sample[] = [];
  for (let round = 0; round < plan.repeats; round += 1) samples.push(await once(ws, binDir, round));
  const cpu = median(samples.map((sample) => sample.cpuMs));
  return {
    agents: 3,
    eventsPerAgent: plan.events,
    seconds: plan.seconds,
    repeats: plan.repeats,
    hydraCpuMs: cpu,
    cpuMsPer10kEvents: (cpu / (3 * plan.events)) * 10_000,
    hydraMaxRssKb: median(samples.map((sample) => sample.maxRssKb)),
    frames: median(samples.map((sample) => sample.frames)),
    framesPerSecond: median(samples.map((sample) => sample.framesPerSecond)),
    peakFramesInASecond: median(samples.map((sample) => sample.peak)),
    lastEventToFrameMs: median(samples.map((sample) => sample.delayMs)),
  };
}
