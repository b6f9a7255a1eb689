/**
 * Benchmark 6: dashboard render cost. The real dashboard app (src/ui/app.tsx) renders a burst of
 * race snapshots with three busy agents (events made by the real parsers from synthetic streams)
 * into a sized fake terminal, in Ink's debug mode so every update is drawn as a whole frame.
 * Baseline: a plain Ink <Text> holding each frame's text, re-rendered the same number of times.
 */
import { EventEmitter } from 'node:events';
import { render, Text } from 'ink';
import type { AgentEvent, Usage } from '../../src/core/events.js';
import { emptyUsage } from '../../src/core/events.js';
import { adapterOf } from '../../src/adapters/registry.js';
import type { AdapterId } from '../../src/adapters/types.js';
import type {
  AgentSnapshot,
  RaceHandle,
  RaceSnapshot,
  RaceSummary,
  ShellResult,
} from '../../src/engine/index.js';
import { App } from '../../src/ui/components/app.js';
import { createTheme } from '../../src/ui/text/theme.js';
import { median, ratio } from '../lib/stats.js';
import { fixtureStream, syntheticStream } from '../lib/streams.js';

export interface DashboardResult {
  columns: number;
  rows: number;
  snapshots: number;
  repeats: number;
  appFrames: number;
  appCpuMsPerFrame: number;
  appWallMsPerFrame: number;
  baselineFrames: number;
  baselineCpuMsPerFrame: number;
  baselineWallMsPerFrame: number;
  /** App CPU per frame over the plain <Text> CPU per frame. */
  cpuRatio: number;
}

const AGENTS: AdapterId[] = ['claude', 'codex', 'cursor'];
const RECENT_EVENTS = 200;
const T0 = Date.UTC(2025, 0, 15, 10, 0, 0);

// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-9;?]*[A-Za-z]/g;

class FakeTerminal extends EventEmitter {
  frames: string[] = [];
  private waiter: (() => void) | null = null;
  isTTY = true;
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (frame: string): boolean => {
    this.frames.push(frame);
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
    return true;
  };
  /** Resolves at the next write (or after `ms`, so a render that draws nothing cannot hang the bench). */
  nextFrame = (ms = 1000): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
}

class NoKeyboard extends EventEmitter {
  isTTY = false;
  read = (): null => null;
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

/** Each agent's normalized events, as its real parser makes them from a synthetic stream. */
const eventsFor = (agent: AdapterId, lines: number): AgentEvent[] => {
  const parser = adapterOf(agent).createParser({ cwd: '/tmp/hydra-fixture/repo' });
  return syntheticStream(fixtureStream(agent), lines)
    .flatMap((line) => parser.parseLine(line))
    .filter((event) => event.kind !== 'completed' && event.kind !== 'failed');
};

const usageAt = (events: AgentEvent[]): Usage => {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (event?.kind === 'usage') return event.usage;
  }
  return emptyUsage();
};

const agentAt = (agent: AdapterId, events: AgentEvent[], seen: number, now: number): AgentSnapshot => {
  const sofar = events.slice(0, seen);
  return {
    agent,
    adapter: agent,
    displayName: adapterOf(agent).displayName,
    adapterName: adapterOf(agent).displayName,
    tier: adapterOf(agent).tier,
    model: null,
    status: 'running',
    startedAt: T0,
    endedAt: null,
    lastOutputAt: now,
    recentEvents: sofar.slice(-RECENT_EVENTS),
    eventCount: sofar.length,
    usage: usageAt(sofar),
    diff: null,
    error: null,
    exitCode: null,
    branch: `hydra/bench/${agent}`,
    worktree: `/tmp/hydra-bench/worktrees/${agent}`,
    inferredFlags: false,
    warnings: [],
    capabilities: null,
    checks: null,
    checking: false,
    score: null,
  };
};

/** `count` snapshots of a race in which every agent emits `perSnapshot` more events each time. */
const snapshotBurst = (count: number, perSnapshot: number): RaceSnapshot[] => {
  const events = new Map(AGENTS.map((agent) => [agent, eventsFor(agent, count * perSnapshot + 50)]));
  return Array.from({ length: count }, (_, index): RaceSnapshot => {
    const now = T0 + 1000 + index * 100;
    return {
      runId: 'bench-run',
      prompt: 'Fix the failing test in src/math.ts and add a regression test',
      phase: 'racing',
      repoRoot: '/tmp/hydra-bench/repo',
      baseBranch: 'main',
      baseRef: '0'.repeat(40),
      startedAt: T0,
      now,
      agents: AGENTS.map((agent) => agentAt(agent, events.get(agent) ?? [], (index + 1) * perSnapshot, now)),
      error: null,
      warnings: [],
      merge: null,
      baseline: null,
      mergeNote: null,
    };
  });
};

/** A race handle that only publishes the snapshots it is given. */
class BurstHandle implements RaceHandle {
  readonly runId = 'bench-run';
  private listeners = new Set<(snapshot: RaceSnapshot) => void>();
  readonly settled: Promise<RaceSummary> = new Promise(() => undefined);
  constructor(private current: RaceSnapshot) {}
  getSnapshot = (): RaceSnapshot => this.current;
  subscribe = (listener: (snapshot: RaceSnapshot) => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  publish(snapshot: RaceSnapshot): void {
    this.current = snapshot;
    for (const listener of this.listeners) listener(snapshot);
  }
  onEvent = (): (() => void) => () => undefined;
  stopAgent = (): void => undefined;
  cancel = async (): Promise<void> => undefined;
  merge = async (): Promise<never> => {
    throw new Error('bench: no merge in the render benchmark');
  };
  finish = async (): Promise<RaceSummary> => ({
    runId: this.runId,
    prompt: this.current.prompt,
    baseRef: this.current.baseRef,
    baseBranch: this.current.baseBranch,
    startedAt: this.current.startedAt,
    endedAt: this.current.now,
    agents: [],
    error: null,
  });
  getPatch = async (): Promise<string> => '';
  startRound = async (): Promise<RaceSummary> => this.finish();
  releaseAutoMerge = async (): Promise<void> => undefined;
  runShell = async (): Promise<ShellResult> => ({ worktree: '', exitCode: 0, diff: null });
}

interface Timed {
  frames: number;
  cpuMs: number;
  wallMs: number;
  texts: string[];
}

const cpuNow = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

const measure = async (body: () => Promise<void>, terminal: FakeTerminal): Promise<Timed> => {
  const framesBefore = terminal.frames.length;
  const cpuBefore = cpuNow();
  const started = process.hrtime.bigint();
  await body();
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  return {
    frames: terminal.frames.length - framesBefore,
    cpuMs: cpuNow() - cpuBefore,
    wallMs,
    texts: terminal.frames.slice(framesBefore),
  };
};

const renderApp = async (snapshots: RaceSnapshot[], columns: number, rows: number): Promise<Timed> => {
  const first = snapshots[0];
  if (first === undefined) throw new Error('bench: no snapshots');
  const handle = new BurstHandle(first);
  const terminal = new FakeTerminal(columns, rows);
  const instance = render(
    <App
      handle={handle}
      theme={createTheme({ ascii: false, color: false })}
      interactive={false}
      throttleMs={0}
    />,
    {
      stdout: terminal as unknown as NodeJS.WriteStream,
      stdin: new NoKeyboard() as unknown as NodeJS.ReadStream,
      debug: true,
      exitOnCtrlC: false,
      patchConsole: false,
    },
  );
  await terminal.nextFrame(50);
  const timed = await measure(async () => {
    for (const snapshot of snapshots.slice(1)) {
      const drawn = terminal.nextFrame();
      handle.publish(snapshot);
      await drawn;
    }
  }, terminal);
  instance.unmount();
  return timed;
};

const renderPlain = async (texts: string[], columns: number, rows: number): Promise<Timed> => {
  const terminal = new FakeTerminal(columns, rows);
  const instance = render(<Text>{texts[0] ?? ''}</Text>, {
    stdout: terminal as unknown as NodeJS.WriteStream,
    stdin: new NoKeyboard() as unknown as NodeJS.ReadStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const timed = await measure(async () => {
    for (const text of texts) {
      // Same scheduling as the app's store: the update lands in a timer, then one frame is drawn.
      await new Promise((resolve) => setTimeout(resolve, 0));
      instance.rerender(<Text>{text}</Text>);
    }
  }, terminal);
  instance.unmount();
  return timed;
};

export async function benchDashboard(options: {
  snapshots: number;
  repeats: number;
  columns?: number;
  rows?: number;
}): Promise<DashboardResult> {
  const columns = options.columns ?? 120;
  const rows = options.rows ?? 40;
  const snapshots = snapshotBurst(options.snapshots, 5);
  await renderApp(snapshots.slice(0, 20), columns, rows);
  const app: Timed[] = [];
  const plain: Timed[] = [];
  for (let index = 0; index < options.repeats; index += 1) {
    const drawn = await renderApp(snapshots, columns, rows);
    app.push(drawn);
    plain.push(
      await renderPlain(
        drawn.texts.map((text) => text.replace(ANSI, '')),
        columns,
        rows,
      ),
    );
  }
  const perFrame = (runs: Timed[], pick: (run: Timed) => number): number =>
    median(runs.map((run) => pick(run) / Math.max(1, run.frames)));
  const appCpu = perFrame(app, (run) => run.cpuMs);
  const baselineCpu = perFrame(plain, (run) => run.cpuMs);
  return {
    columns,
    rows,
    snapshots: options.snapshots,
    repeats: options.repeats,
    appFrames: median(app.map((run) => run.frames)),
    appCpuMsPerFrame: appCpu,
    appWallMsPerFrame: perFrame(app, (run) => run.wallMs),
    baselineFrames: median(plain.map((run) => run.frames)),
    baselineCpuMsPerFrame: baselineCpu,
    baselineWallMsPerFrame: perFrame(plain, (run) => run.wallMs),
    cpuRatio: ratio(appCpu, baselineCpu),
  };
}
