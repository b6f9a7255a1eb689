import { describe, expect, it, vi, afterEach } from 'vitest';
import { ev } from '../../../../src/core/events.js';
import { lineText } from '../../../../src/ui/layout/lines.js';
import { buildScreen, paneMode, type Screen, type ScreenInput } from '../../../../src/ui/layout/screen.js';
import { createSnapshotStore } from '../../../../src/ui/state/snapshot-store.js';
import { createTheme } from '../../../../src/ui/text/theme.js';
import { displayWidth } from '../../../../src/ui/text/text.js';
import type { ScoreSummary } from '../../../../src/engine/index.js';
import { initialViewState, type ViewState } from '../../../../src/ui/state/view-state.js';
import {
  agentSnapshot,
  completed,
  experimental,
  FakeHandle,
  failedWithHint,
  PATCH,
  raceSnapshot,
  T0,
  timedOut,
} from '../../../support/ui-fixtures.js';

const theme = createTheme({ ascii: false, color: false });

/** Height of a screen as drawn: boxes add their borders. */
const drawnHeight = (screen: Screen): number => {
  const body = screen.body;
  let bodyHeight = 0;
  if (body.kind === 'panes')
    bodyHeight =
      body.mode === 'side-by-side'
        ? Math.max(...body.panes.map((pane) => pane.height))
        : body.panes.reduce((sum, pane) => sum + pane.height, 0);
  else if (body.kind === 'scroll') bodyHeight = body.height;
  else bodyHeight = body.lines.length;
  return (
    screen.header.length +
    bodyHeight +
    screen.notices.length +
    (screen.dialog === null ? 0 : screen.dialog.length + 2) +
    (screen.footer === null ? 0 : 1)
  );
};

const allLines = (screen: Screen): string[] => {
  const body = screen.body;
  const bodyLines =
    body.kind === 'panes'
      ? body.panes.flatMap((pane) => pane.lines)
      : body.kind === 'scroll'
        ? [body.title, ...body.lines]
        : body.lines;
  return [
    ...screen.header,
    ...bodyLines,
    ...screen.notices,
    ...(screen.dialog ?? []),
    ...(screen.footer === null ? [] : [screen.footer]),
  ].map(lineText);
};

const busyAgents = () => {
  const flood = Array.from({ length: 200 }, (_, index) =>
    ev({ kind: 'message', role: 'assistant', text: `message ${index} ${'lorem ipsum '.repeat(30)}` }),
  );
  return [
    agentSnapshot('claude', { recentEvents: flood }),
    failedWithHint('codex'),
    experimental({ recentEvents: flood }),
  ];
};

const input = (
  overrides: Partial<Omit<ScreenInput, 'state'>> & { state?: Partial<ViewState> },
): ScreenInput => ({
  snapshot: raceSnapshot(busyAgents(), { warnings: ['cursor-agent is experimental'], error: null }),
  now: raceSnapshot([]).now,
  columns: 80,
  rows: 24,
  theme,
  patches: { claude: { status: 'ready', text: PATCH } },
  keepWorktrees: false,
  ...overrides,
  state: { ...initialViewState(), ...overrides.state },
});

describe('layout', () => {
  it('goes side by side only when every pane gets at least 40 columns', () => {
    expect(paneMode(120, 3)).toBe('side-by-side');
    expect(paneMode(119, 3)).toBe('stacked');
    expect(paneMode(80, 2)).toBe('side-by-side');
    expect(paneMode(80, 3)).toBe('stacked');
  });

  const sizes = [
    [80, 24],
    [60, 15],
    [100, 30],
    [200, 50],
    [120, 10],
  ] as const;
  const states: Array<Partial<ViewState>> = [
    {},
    { view: 'detail', scroll: 'end' },
    { view: 'diff' },
    { view: 'compare' },
    { dialog: { kind: 'merge', agent: 'codex' } },
    { dialog: { kind: 'quit' }, notice: { text: 'a notice', tone: 'warn' } },
  ];

  for (const [columns, rows] of sizes) {
    it(`keeps every view below ${rows} rows and within ${columns} columns`, () => {
      for (const state of states) {
        const screen = buildScreen(input({ columns, rows, state }));
        expect(drawnHeight(screen)).toBeLessThan(rows);
        for (const line of allLines(screen)) expect(displayWidth(line)).toBeLessThanOrEqual(columns);
      }
    });
  }

  it('shows the end of a long warning on a second line instead of cutting it off', () => {
    const warning =
      'You have 4 uncommitted changes: hydra never touches them, and the agents start from the last commit (b1aa62efc43d), so they do not see them.';
    const screen = buildScreen(
      input({
        columns: 120,
        rows: 35,
        snapshot: raceSnapshot(busyAgents(), { warnings: [warning], error: null }),
      }),
    );
    const header = screen.header.map(lineText).join(' ').replace(/\s+/g, ' ');
    expect(header).toContain('so they do not see them.');
    for (const line of screen.header.map(lineText)) expect(displayWidth(line)).toBeLessThanOrEqual(120);
  });

  it('keeps the quit key in the footer at 80 columns by dropping lesser hints, in ASCII too', () => {
    for (const ascii of [false, true]) {
      const asciiTheme = createTheme({ ascii, color: false });
      for (const view of ['panes', 'detail', 'diff', 'compare'] as const) {
        const screen = buildScreen(input({ columns: 80, rows: 24, theme: asciiTheme, state: { view } }));
        expect(lineText(screen.footer ?? [])).toContain('q quit');
      }
    }
  });

  it('gives stacked panes the whole height between header and footer', () => {
    const screen = buildScreen(input({ columns: 80, rows: 24 }));
    expect(screen.body.kind === 'panes' && screen.body.mode).toBe('stacked');
    expect(drawnHeight(screen)).toBe(23);
  });

  it('shows each settled state in its pane', () => {
    const snapshot = raceSnapshot([completed('claude'), failedWithHint('codex'), timedOut('cursor')]);
    const text = allLines(buildScreen(input({ snapshot, columns: 200, rows: 40 }))).join('\n');
    expect(text).toContain('✔ 2 files +42 -7');
    expect(text).toContain('✘ AuthMissing: Codex is not logged in.');
    expect(text).toContain('✘ TimedOut: No output for 300s');
  });
});

describe('a terminal of 80x24 with many agents', () => {
  const scored = (total: number): ScoreSummary => ({
    total,
    gates: { passed: true, failed: [] },
    parts: { checks: null, tests: null, diff: null, scope: null, duration: null, cost: null },
    disqualified: null,
    verified: true,
  });
  const ids = ['claude', 'codex', 'cursor', 'gemini', 'qwen', 'opencode'] as const;
  const agentsOf = (count: number) =>
    [...ids, 'codex' as const].slice(0, count).map((id, index) =>
      completed(id, {
        ...(index === 6 ? { agent: 'codex-2', displayName: 'Codex 2' } : {}),
        score: scored(90 + index),
      }),
    );

  it.each([6, 7])("shows every pane's score with %i agents (the verdict before the usage)", (count) => {
    const screen = buildScreen(input({ snapshot: raceSnapshot(agentsOf(count)), columns: 80, rows: 24 }));
    expect(screen.body.kind).toBe('panes');
    if (screen.body.kind !== 'panes') return;
    expect(screen.body.panes).toHaveLength(count);
    screen.body.panes.forEach((pane, index) =>
      expect(pane.lines.map(lineText).join('\n')).toContain(`score ${90 + index}`),
    );
  });

  it('wraps a notice onto a second line rather than cutting its sentence', () => {
    const text =
      "Back from the shell: Claude Code's changes are on its branch; its result is now the one to merge (m), and its old diff is gone.";
    const screen = buildScreen(input({ columns: 80, rows: 24, state: { notice: { text, tone: 'info' } } }));
    const notice = screen.notices.map(lineText).join(' ');
    expect(screen.notices).toHaveLength(2);
    expect(notice.replace(/\s+/g, ' ')).toContain('its result is now the one to merge');
    expect(drawnHeight(screen)).toBeLessThan(24);
  });

  it('cuts a long warning in a pane at its first clause, or says "1 warning", never mid-word', () => {
    const warning =
      "Its tools named another agent's directory of this race (/tmp/hydra-demo-GaDxz/worktrees/run/codex): without a sandbox, hydra cannot tell what it wrote there";
    const snapshot = raceSnapshot([completed('claude', { warnings: [warning] }), completed('codex')]);
    // Two panes of 70 columns: the first clause fits.
    const wide = allLines(buildScreen(input({ snapshot, columns: 140, rows: 40 }))).join('\n');
    expect(wide).toContain("⚠ Its tools named another agent's directory of this race\n");
    expect(wide).not.toContain('GaDxz');
    // Two panes of 40: it does not.
    const narrow = allLines(buildScreen(input({ snapshot, columns: 80, rows: 24 }))).join('\n');
    expect(narrow).toContain('⚠ 1 warning\n');
  });
});

describe('a finished race reopened for review (hydra show --tui)', () => {
  const merge = {
    runId: 'run-1',
    agent: 'claude',
    into: 'main',
    method: 'fast-forward' as const,
    commit: 'abcdef0',
    filesChanged: 2,
    removed: [],
  };
  const reopened = (overrides: Parameters<typeof raceSnapshot>[1]) =>
    raceSnapshot([completed('claude'), completed('codex')], {
      reopened: true,
      endedAt: T0 + 61_000,
      merge,
      now: T0 + 9 * 60_000,
      ...overrides,
    });

  it('says it reopens the run, not that it probes agents, and keeps the race its own duration', () => {
    const text = allLines(
      buildScreen(input({ snapshot: reopened({ phase: 'probing' }), now: T0 + 9 * 60_000 })),
    );
    expect(text[1]).toMatch(/^reopening the run/);
    expect(text[0]).toMatch(/ 1m01s$/);
  });

  it('offers no merge once a result was merged, and ends saying what was merged', () => {
    const screen = buildScreen(input({ snapshot: reopened({}), now: T0 + 9 * 60_000 }));
    expect(lineText(screen.footer ?? [])).not.toContain('m merge');
    const ended = allLines(
      buildScreen(
        input({ snapshot: reopened({ phase: 'done' }), state: { outcome: { kind: 'race-ended' } } }),
      ),
    );
    expect(ended.join('\n')).toContain("Race ended; Claude Code's result was merged into main.");
    expect(ended.join('\n')).not.toContain('nothing was merged');
  });
});

describe('the final screen after a merge', () => {
  it("keeps every agent's line at 80x24, a rerun's too: the list of removed paths gives way", () => {
    const ids = ['claude', 'codex', 'cursor', 'gemini', 'qwen', 'opencode'] as const;
    const agents = [
      ...ids.map((id) => completed(id, { branch: `hydra/run-1/${id}` })),
      completed('codex', { agent: 'codex-2', displayName: 'Codex 2', branch: 'hydra/run-1/codex-2' }),
    ];
    const removed = [...ids, 'codex-2'].flatMap((id) =>
      id === 'claude' ? [] : [`/tmp/hydra-worktrees/run-1/${id}`, `hydra/run-1/${id}`],
    );
    const result = {
      runId: 'run-1',
      agent: 'claude',
      into: 'main',
      method: 'fast-forward' as const,
      commit: 'abcdef0',
      filesChanged: 2,
      removed,
    };
    const screen = buildScreen(
      input({
        snapshot: raceSnapshot(agents),
        columns: 80,
        rows: 24,
        state: { outcome: { kind: 'merged', result } },
      }),
    );
    const text = allLines(screen);
    expect(drawnHeight(screen)).toBeLessThan(24);
    for (const agent of agents)
      expect(text.some((line) => line.includes(`${agent.displayName} `))).toBe(true);
    expect(text.some((line) => line.startsWith('Kept: '))).toBe(true);
    expect(text.some((line) => /… \d+ more$/.test(line))).toBe(true);
    // With room, every removed path is listed.
    const tall = allLines(
      buildScreen(
        input({
          snapshot: raceSnapshot(agents),
          columns: 80,
          rows: 50,
          state: { outcome: { kind: 'merged', result } },
        }),
      ),
    );
    for (const path of removed) expect(tall.some((line) => line.endsWith(path))).toBe(true);
  });
});

describe('snapshot store', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('publishes a burst of engine updates once per interval, with the latest snapshot', async () => {
    vi.useFakeTimers();
    const handle = new FakeHandle(raceSnapshot([agentSnapshot('claude')]));
    const store = createSnapshotStore(handle, 100, () => 0);
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    await vi.advanceTimersByTimeAsync(100);
    listener.mockClear();
    for (let index = 0; index < 50; index += 1)
      handle.update(raceSnapshot([agentSnapshot('claude')], { now: index }));
    expect(listener).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(100);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.getSnapshot().snapshot.now).toBe(49);
    expect(store.getSnapshot()).toBe(store.getSnapshot());
    unsubscribe();
    handle.update(raceSnapshot([agentSnapshot('claude')], { now: 99 }));
    await vi.advanceTimersByTimeAsync(200);
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
