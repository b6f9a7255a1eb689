/**
 * Snapshot builders and an in-memory RaceHandle for the dashboard's component tests.
 * The fake handle only records the commands it gets; the real engine is exercised by the e2e test.
 */
import { emptyUsage, ev, type AgentEvent, type Usage } from '../../src/core/events.js';
import { adapterOf } from '../../src/adapters/registry.js';
import type { AdapterId } from '../../src/adapters/types.js';
import type {
  AgentEventRecord,
  AgentSnapshot,
  AgentSummary,
  MergeOptions,
  MergeResult,
  RaceHandle,
  RaceSnapshot,
  RaceSummary,
  RoundRequest,
  RunRecord,
  ShellRequest,
  ShellResult,
} from '../../src/engine/index.js';

export const T0 = Date.UTC(2025, 0, 15, 10, 0, 0);

/** Usage an agent reported: the counts it left out are 0 (`emptyUsage()` is usage nobody reported). */
export const usage = (overrides: Partial<Usage> = {}): Usage => ({
  ...emptyUsage(),
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  turns: 0,
  ...overrides,
});

export const runningEvents = (agent: AdapterId): AgentEvent[] => [
  ev({ kind: 'progress', stage: 'init', model: 'test-model' }),
  ev({ kind: 'message', role: 'assistant', text: `${agent} is reading the failing test first.` }),
  ev({ kind: 'tool_call', id: `${agent}-1`, name: 'Bash', summary: 'npm test -- src/math.test.ts' }),
  ev({
    kind: 'tool_result',
    id: `${agent}-1`,
    name: 'Bash',
    ok: false,
    summary: '1 failed, 3 passed',
    output: 'FAIL src/math.test.ts\n  expected 4, got 5',
  }),
  ev({ kind: 'tool_call', id: `${agent}-2`, name: 'Edit', summary: 'src/math.ts' }),
  ev({ kind: 'tool_result', id: `${agent}-2`, name: 'Edit', ok: true, summary: 'src/math.ts updated' }),
  ev({
    kind: 'usage',
    usage: usage({
      inputTokens: 12_345,
      outputTokens: 678,
      cacheReadTokens: 40_000,
      turns: 2,
      costUsd: 0.0123,
      costSource: 'reported',
    }),
  }),
];

export const agentSnapshot = (agent: AdapterId, overrides: Partial<AgentSnapshot> = {}): AgentSnapshot => {
  const events = overrides.recentEvents ?? runningEvents(agent);
  return {
    agent,
    adapter: agent,
    displayName: adapterOf(agent).displayName,
    adapterName: adapterOf(agent).displayName,
    tier: adapterOf(agent).tier,
    model: agent === 'claude' ? 'claude-sonnet-4-5' : agent === 'codex' ? 'gpt-5-codex' : null,
    status: 'running',
    startedAt: T0 + 1_000,
    endedAt: null,
    lastOutputAt: T0 + 60_000,
    recentEvents: events,
    eventCount: events.length,
    usage: usage({
      inputTokens: 12_345,
      outputTokens: 678,
      cacheReadTokens: 40_000,
      turns: 2,
      costUsd: 0.0123,
      costSource: 'reported',
    }),
    diff: null,
    error: null,
    exitCode: null,
    branch: `hydra/run-1/${agent}`,
    worktree: `/tmp/hydra-worktrees/run-1/${agent}`,
    inferredFlags: false,
    warnings: [],
    capabilities: null,
    checks: null,
    checking: false,
    score: null,
    ...overrides,
  };
};

export const completed = (agent: AdapterId, overrides: Partial<AgentSnapshot> = {}): AgentSnapshot =>
  agentSnapshot(agent, {
    status: 'completed',
    endedAt: T0 + 83_000,
    exitCode: 0,
    diff: {
      filesChanged: 2,
      insertions: 42,
      deletions: 7,
      files: [
        { path: 'src/math.ts', insertions: 40, deletions: 7 },
        { path: 'src/math.test.ts', insertions: 2, deletions: 0 },
      ],
    },
    recentEvents: [
      ...runningEvents(agent),
      ev({ kind: 'completed', result: 'Fixed the off-by-one in add().', exitCode: 0 }),
    ],
    ...overrides,
  });

export const failedWithHint = (agent: AdapterId): AgentSnapshot =>
  agentSnapshot(agent, {
    status: 'failed',
    endedAt: T0 + 5_000,
    exitCode: 1,
    error: {
      kind: 'AuthMissing',
      message: 'Codex is not logged in.',
      hint: 'Run `codex login` or set OPENAI_API_KEY, then race again.',
    },
    recentEvents: [
      ev({
        kind: 'failed',
        error: { kind: 'AuthMissing', message: 'Codex is not logged in.', hint: 'Run `codex login`.' },
        exitCode: 1,
      }),
    ],
  });

export const timedOut = (agent: AdapterId): AgentSnapshot =>
  agentSnapshot(agent, {
    status: 'timed_out',
    endedAt: T0 + 301_000,
    lastOutputAt: T0 + 1_000,
    error: {
      kind: 'TimedOut',
      message: 'No output for 300s: stopped by the idle timeout.',
      hint: 'Raise idle_timeout_s in hydra.toml or --idle-timeout.',
    },
  });

export const experimental = (overrides: Partial<AgentSnapshot> = {}): AgentSnapshot =>
  agentSnapshot('cursor', {
    tier: 'experimental',
    inferredFlags: true,
    warnings: ['cursor-agent flags are inferred from docs'],
    ...overrides,
  });

export const raceSnapshot = (
  agents: AgentSnapshot[],
  overrides: Partial<RaceSnapshot> = {},
): RaceSnapshot => ({
  runId: 'run-1',
  prompt: 'Fix the failing test in src/math.test.ts without changing the test',
  phase: agents.every((agent) => !['pending', 'spawning', 'running'].includes(agent.status))
    ? 'reviewing'
    : 'racing',
  repoRoot: '/tmp/repo',
  baseBranch: 'main',
  baseRef: '1a2b3c4d5e6f7a8b9c0d',
  startedAt: T0,
  now: T0 + 65_000,
  agents,
  error: null,
  warnings: [],
  merge: null,
  baseline: null,
  mergeNote: null,
  ...overrides,
});

export const PATCH = [
  'diff --git a/src/math.ts b/src/math.ts',
  'index 1111111..2222222 100644',
  '--- a/src/math.ts',
  '+++ b/src/math.ts',
  '@@ -1,3 +1,3 @@',
  ' export function add(a: number, b: number) {',
  '-  return a + b + 1;',
  '+  return a + b;',
  ' }',
  'diff --git a/src/math.test.ts b/src/math.test.ts',
  'index 3333333..4444444 100644',
  '--- a/src/math.test.ts',
  '+++ b/src/math.test.ts',
  '@@ -5,0 +6,2 @@',
  "+it('adds zero', () => expect(add(2, 0)).toBe(2));",
  '+',
  '',
].join('\n');

type Call =
  | { kind: 'stopAgent'; agent: AdapterId }
  | { kind: 'cancel' }
  | { kind: 'merge'; agent: AdapterId; options: MergeOptions | undefined }
  | { kind: 'finish' }
  | { kind: 'getPatch'; agent: AdapterId }
  | { kind: 'startRound'; request: RoundRequest }
  | { kind: 'releaseAutoMerge' }
  | { kind: 'runShell'; agent: AdapterId };

/** An in-memory RaceHandle: tests set snapshots and read back the commands the dashboard sent. */
export class FakeHandle implements RaceHandle {
  readonly runId: string;
  readonly calls: Call[] = [];
  readonly settled: Promise<RaceSummary>;
  patches: Partial<Record<AdapterId, string>> = {};
  mergeResult: ((agent: AdapterId) => Promise<MergeResult>) | null = null;
  private snapshot: RaceSnapshot;
  private readonly listeners = new Set<(snapshot: RaceSnapshot) => void>();
  private resolveSettled: (summary: RaceSummary) => void = () => undefined;

  constructor(snapshot: RaceSnapshot) {
    this.snapshot = snapshot;
    this.runId = snapshot.runId;
    this.settled = new Promise((resolve) => {
      this.resolveSettled = resolve;
    });
  }

  getSnapshot(): RaceSnapshot {
    return this.snapshot;
  }

  subscribe(listener: (snapshot: RaceSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onEvent(_listener: (record: AgentEventRecord) => void): () => void {
    return () => undefined;
  }

  /** Publishes a new snapshot to subscribers, as the engine would. */
  update(snapshot: RaceSnapshot): void {
    this.snapshot = snapshot;
    for (const listener of this.listeners) listener(snapshot);
  }

  /** The summary of the current snapshot (the dashboard reads only its identity fields). */
  private summary(): RaceSummary {
    const s = this.snapshot;
    return {
      runId: s.runId,
      prompt: s.prompt,
      baseRef: s.baseRef,
      baseBranch: s.baseBranch,
      startedAt: s.startedAt,
      endedAt: s.now,
      agents: [],
      error: null,
    };
  }

  settle(): void {
    this.resolveSettled(this.summary());
  }

  stopAgent(agent: AdapterId): void {
    this.calls.push({ kind: 'stopAgent', agent });
    this.update({
      ...this.snapshot,
      agents: this.snapshot.agents.map((candidate) =>
        candidate.agent === agent
          ? { ...candidate, status: 'cancelled', endedAt: this.snapshot.now }
          : candidate,
      ),
    });
    if (
      this.snapshot.agents.every(
        (candidate) => !['pending', 'spawning', 'running'].includes(candidate.status),
      )
    )
      this.settle();
  }

  async cancel(): Promise<void> {
    this.calls.push({ kind: 'cancel' });
    this.update({
      ...this.snapshot,
      phase: 'cancelled',
      agents: this.snapshot.agents.map((agent) =>
        ['pending', 'spawning', 'running'].includes(agent.status) ? { ...agent, status: 'cancelled' } : agent,
      ),
    });
  }

  async merge(agent: AdapterId, options?: MergeOptions): Promise<MergeResult> {
    this.calls.push({ kind: 'merge', agent, options });
    if (this.mergeResult !== null) return this.mergeResult(agent);
    const result: MergeResult = {
      runId: this.runId,
      agent,
      into: this.snapshot.baseBranch ?? 'main',
      method: 'fast-forward',
      commit: 'abcdef0123456789',
      filesChanged: 2,
      removed: this.snapshot.agents
        .flatMap((candidate) => [candidate.worktree ?? '', candidate.branch ?? ''])
        .filter((path) => path !== ''),
    };
    this.update({ ...this.snapshot, phase: 'done', merge: result });
    return result;
  }

  async finish(): Promise<RaceSummary> {
    this.calls.push({ kind: 'finish' });
    return this.summary();
  }

  async getPatch(agent: AdapterId): Promise<string> {
    this.calls.push({ kind: 'getPatch', agent });
    return this.patches[agent] ?? '';
  }

  async startRound(request: RoundRequest): Promise<RaceSummary> {
    this.calls.push({ kind: 'startRound', request });
    return this.summary();
  }

  async releaseAutoMerge(): Promise<void> {
    this.calls.push({ kind: 'releaseAutoMerge' });
  }

  async runShell(request: ShellRequest): Promise<ShellResult> {
    this.calls.push({ kind: 'runShell', agent: request.agent });
    return { worktree: `/worktrees/${request.agent}`, exitCode: 0, diff: null };
  }
}

/** A finished agent in a race's summary (a one-file change on its branch), with `more` over it. */
export const summaryAgent = (agent: string, more: Partial<AgentSummary> = {}): AgentSummary => ({
  agent,
  adapter: 'claude',
  status: 'completed',
  exitCode: 0,
  durationMs: 80_000,
  usage: usage({}),
  diff: { filesChanged: 1, insertions: 1, deletions: 0 },
  branch: `hydra/run-1/${agent}`,
  worktree: null,
  ...more,
});

/** The summary of run-1 ("Fix it", 90 s) with these agents. */
export const raceSummaryOf = (agents: AgentSummary[]): RaceSummary => ({
  runId: 'run-1',
  prompt: 'Fix it',
  baseRef: '1a2b3c4d5e6f',
  baseBranch: 'main',
  startedAt: T0,
  endedAt: T0 + 90_000,
  agents,
  error: null,
});

/** run-1's record, as `hydra show` reads it, ending in `summary` (no events, no merge). */
export const runRecordOf = (summary: RaceSummary): RunRecord => ({
  runId: 'run-1',
  notes: [],
  dir: '/tmp/repo/.hydra/runs/run-1',
  meta: {
    runId: 'run-1',
    prompt: 'Fix it',
    promptSha256: 'x',
    repoRoot: '/tmp/repo',
    baseRef: '1a2b3c4d5e6f',
    baseBranch: 'main',
    startedAt: T0,
    pid: 1,
    hydraVersion: '0.1.0',
    config: {},
    agents: [],
  },
  events: [],
  summary,
  merge: null,
});
