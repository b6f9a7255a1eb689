/**
 * Issue 24, items 7 and 9: the dashboard with many agents (a grid, short panes that keep their
 * result, dialogs that leave every pane its title, a key bar that fits and offers only keys that
 * work, the compare view's rows) and what its screens say stays behind.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AdapterId } from '../../../../src/adapters/types.js';
import type { AgentSnapshot, RaceSummary, RoundRequest } from '../../../../src/engine/index.js';
import { lineText } from '../../../../src/ui/layout/lines.js';
import { dialogLines, mergedLines, removedCounts } from '../../../../src/ui/layout/chrome-lines.js';
import { buildScreen, paneLayout, type Screen, type ScreenInput } from '../../../../src/ui/layout/screen.js';
import { initialViewState, reduce, type ViewState } from '../../../../src/ui/state/view-state.js';
import { createTheme } from '../../../../src/ui/text/theme.js';
import { displayWidth } from '../../../../src/ui/text/text.js';
import {
  agentSnapshot,
  completed,
  experimental,
  FakeHandle,
  raceSnapshot,
} from '../../../support/ui-fixtures.js';
import { plain, renderAppAt, type Rendered } from '../../../support/ui-harness.js';

const unicode = createTheme({ ascii: false, color: false });
const ascii = createTheme({ ascii: true, color: false });

const SIX: AdapterId[] = ['claude', 'codex', 'cursor', 'gemini', 'qwen', 'opencode'];

/** Six agents as the demo races them: cursor and opencode experimental, with warnings. */
const sixAgents = (done: boolean): AgentSnapshot[] =>
  SIX.map((id) => {
    const base = done ? completed(id) : agentSnapshot(id);
    if (id === 'cursor') return experimental({ ...base, agent: 'cursor', adapter: 'cursor' });
    if (id === 'opencode') return { ...base, tier: 'experimental' as const };
    return base;
  });

const screenAt = (
  columns: number,
  rows: number,
  agents: AgentSnapshot[],
  state: Partial<ViewState> = {},
  theme = unicode,
): Screen => {
  const input: ScreenInput = {
    snapshot: raceSnapshot(agents),
    now: raceSnapshot([]).now,
    columns,
    rows,
    theme,
    patches: {},
    keepWorktrees: false,
    state: { ...initialViewState(), ...state },
  };
  return buildScreen(input);
};

const paneText = (screen: Screen): string[] =>
  screen.body.kind === 'panes' ? screen.body.panes.map((pane) => pane.lines.map(lineText).join('\n')) : [];

describe('the pane layout for many agents', () => {
  it('puts 4-6 agents in a grid of 2 or 3 columns on a wide terminal, stacked rows on a narrow one', () => {
    expect(paneLayout(120, 6, 36)).toEqual({ mode: 'grid', perRow: 3 });
    expect(paneLayout(200, 6, 46)).toEqual({ mode: 'grid', perRow: 3 });
    expect(paneLayout(100, 4, 20)).toEqual({ mode: 'grid', perRow: 2 });
    expect(paneLayout(100, 5, 30)).toEqual({ mode: 'grid', perRow: 2 });
    expect(paneLayout(80, 6, 20)).toEqual({ mode: 'stacked', perRow: 1 });
    // Too short for grid cells worth having: stacked rows.
    expect(paneLayout(120, 6, 10)).toEqual({ mode: 'stacked', perRow: 1 });
    // Every pane 40 columns wide or more: side by side, as before.
    expect(paneLayout(240, 6, 40)).toEqual({ mode: 'side-by-side', perRow: 6 });
    expect(paneLayout(120, 3, 40)).toEqual({ mode: 'side-by-side', perRow: 3 });
  });

  for (const [columns, rows] of [
    [120, 40],
    [200, 50],
    [120, 24],
  ] as const) {
    it(`draws six agents at ${columns}×${rows} as a 3-column grid within the terminal`, () => {
      const screen = screenAt(columns, rows, sixAgents(true));
      expect(screen.body).toMatchObject({ kind: 'panes', mode: 'grid', perRow: 3 });
      if (screen.body.kind !== 'panes') return;
      const cells = screen.body.panes;
      // Two rows of three, each pane as wide as the others (issue 36: at 200 columns the third was
      // a column narrower), the row as wide as the terminal but for what does not divide, as tall as the body.
      const widths = cells.map((pane) => pane.width);
      expect(new Set(widths).size).toBe(1);
      expect(columns - 3 * (widths[0] ?? 0)).toBeGreaterThanOrEqual(0);
      expect(columns - 3 * (widths[0] ?? 0)).toBeLessThan(3);
      const drawn = screen.header.length + (cells[0]?.height ?? 0) + (cells[3]?.height ?? 0) + 1;
      expect(drawn).toBeLessThan(rows);
      for (const pane of cells)
        for (const line of pane.lines)
          expect(displayWidth(lineText(line))).toBeLessThanOrEqual(pane.width - 4);
    });
  }

  it('keeps the result of an experimental agent in a short pane, its warning folded into one word', () => {
    // 120×24 with six agents: a stacked pane is two or three lines tall.
    for (const [columns, rows] of [
      [100, 24],
      [80, 24],
      [120, 24],
    ] as const) {
      const panes = paneText(screenAt(columns, rows, sixAgents(true)));
      expect(panes).toHaveLength(6);
      for (const text of panes) expect(text).toContain('2 files +42 -7');
      expect(panes[2]).toContain('⚠ experimental');
      expect(panes[5]).toContain('⚠ experimental');
    }
  });

  it('leaves every stacked pane its title under the merge dialog at 80×24', () => {
    for (const theme of [unicode, ascii]) {
      const screen = screenAt(80, 24, sixAgents(true), { dialog: { kind: 'merge', agent: 'claude' } }, theme);
      const titles = paneText(screen).map((text) => text.split('\n')[0] ?? '');
      expect(titles).toHaveLength(6);
      SIX.forEach((_, index) => expect(titles[index]).toMatch(new RegExp(`${index + 1} \\S`)));
      const dialog = (screen.dialog ?? []).map(lineText);
      expect(dialog[0]).toContain("Merge Claude Code's result into main?");
      expect(dialog.at(-1)).toContain('y merge');
    }
  });
});

describe('the key bar', () => {
  it('keeps ⏎ detail and c compare at 80 columns, in ASCII too', () => {
    for (const theme of [unicode, ascii]) {
      for (const done of [false, true]) {
        const footer = lineText(screenAt(80, 24, sixAgents(done), {}, theme).footer ?? []);
        expect(displayWidth(footer)).toBeLessThanOrEqual(80);
        expect(footer).toContain(`${theme.symbols.enter} detail`);
        expect(footer).toContain('c compare');
        expect(footer).toContain('m merge');
        expect(footer).toContain('q quit');
        // Closer together first: with Unicode arrows the focus keys still fit.
        if (theme === unicode) expect(footer).toMatch(/←\/→(\/Tab)? focus/);
      }
    }
  });

  it('offers follow-up, rerun and shell only once the race reviews, and stop only while agents run', () => {
    const running = lineText(screenAt(200, 50, sixAgents(false)).footer ?? []);
    expect(running).toContain('x stop');
    for (const key of ['f follow-up', 'r rerun', 's shell']) expect(running).not.toContain(key);

    const reviewing = lineText(screenAt(200, 50, sixAgents(true)).footer ?? []);
    expect(reviewing).not.toContain('x stop');
    for (const key of ['f follow-up', 'r rerun', 's shell']) expect(reviewing).toContain(key);

    // Every agent done, but the race not yet reviewing (results being committed): not yet.
    const committing = buildScreen({
      snapshot: raceSnapshot(sixAgents(true), { phase: 'racing' }),
      now: raceSnapshot([]).now,
      columns: 200,
      rows: 50,
      theme: unicode,
      patches: {},
      keepWorktrees: false,
      state: initialViewState(),
    });
    expect(lineText(committing.footer ?? [])).not.toContain('r rerun');

    // After a merge, no more rounds.
    const merged = buildScreen({
      snapshot: raceSnapshot(sixAgents(true), {
        merge: {
          runId: 'run-1',
          agent: 'codex',
          into: 'main',
          method: 'fast-forward',
          commit: 'abc',
          filesChanged: 1,
          removed: [],
        },
      }),
      now: raceSnapshot([]).now,
      columns: 200,
      rows: 50,
      theme: unicode,
      patches: {},
      keepWorktrees: false,
      state: initialViewState(),
    });
    expect(lineText(merged.footer ?? [])).not.toContain('f follow-up');
  });
});

describe('the compare view', () => {
  it('moves up and down the rows as sorted, not by pane number', () => {
    const agents = SIX.map((id) => ({ agent: id, displayName: id, status: 'completed' as const }));
    // Sorted by score: pane 2, then 5, then 1, ...
    const context = {
      agents,
      merged: false,
      contentLines: 0,
      pageLines: 0,
      fileStarts: [],
      compareOrder: [1, 4, 0, 5, 3, 2],
    };
    let state: ViewState = { ...initialViewState(), view: 'compare', focus: 1 };
    const seen: number[] = [];
    for (let step = 0; step < 6; step += 1) {
      state = reduce(state, { type: 'select-row', by: 1 }, context).state;
      seen.push(state.focus);
    }
    expect(seen).toEqual([4, 0, 5, 3, 2, 1]);
    state = reduce(state, { type: 'select-row', by: -1 }, context).state;
    expect(state.focus).toBe(2);
  });
});

describe('what the screens say stays behind', () => {
  it('counts removed worktrees and branches apart', () => {
    expect(removedCounts(['/tmp/w/run/codex', 'hydra/run/codex'])).toBe('1 worktree and 1 branch');
    expect(removedCounts(['/tmp/w/run/a', '/tmp/w/run/b'])).toBe('2 worktrees');
    expect(removedCounts(['hydra/run/a', 'hydra/run/b', '/tmp/w/run/a'])).toBe('1 worktree and 2 branches');
    const snapshot = raceSnapshot([completed('claude'), completed('codex')]);
    const lines = mergedLines(
      {
        runId: 'run-1',
        agent: 'codex',
        into: 'main',
        method: 'fast-forward',
        commit: 'abcdef0',
        filesChanged: 2,
        removed: [
          '/tmp/hydra-worktrees/run-1/codex',
          'hydra/run-1/codex',
          '/tmp/hydra-worktrees/run-1/claude',
        ],
      },
      snapshot,
      unicode,
      80,
    ).map(lineText);
    expect(lines).toContain('Cleaned up 2 worktrees and 1 branch:');
    // One line per removed path, however long (its end, which names the agent, is kept).
    expect(lines.filter((line) => line.includes('run-1/claude'))).toHaveLength(1);
    expect(lines.join(' ')).toContain('hydra open run-1 <agent>');
  });

  it("says in the stop and merge dialogs what the race's end removes", () => {
    const snapshot = raceSnapshot([agentSnapshot('claude'), completed('codex'), completed('gemini')]);
    const stop = dialogLines({ kind: 'stop', agent: 'claude' }, snapshot, unicode, 200, {
      keepWorktrees: false,
    })
      .map(lineText)
      .join(' ');
    expect(stop).toContain('its worktree and branch are removed when the race ends (quit or merge)');
    const merge = dialogLines({ kind: 'merge', agent: 'codex' }, snapshot, unicode, 300, {
      keepWorktrees: false,
    })
      .map(lineText)
      .join(' ');
    expect(merge).toContain(
      "Then removes Codex's worktree and branch, and every other worktree; the other results (Gemini CLI) stay on their branches",
    );
  });
});

describe('the notice of a rerun', () => {
  const open: Rendered[] = [];
  afterEach(() => {
    for (const rendered of open.splice(0)) rendered.unmount();
  });

  it('goes once the rerun has ended', async () => {
    const handle = new FakeHandle(raceSnapshot(sixAgents(true)));
    let finish: () => void = () => undefined;
    const summary = await handle.finish();
    handle.startRound = (request: RoundRequest): Promise<RaceSummary> => {
      handle.calls.push({ kind: 'startRound', request });
      return new Promise((resolve) => {
        finish = () => resolve(summary);
      });
    };
    const rendered = renderAppAt(handle, { columns: 120, rows: 40 });
    open.push(rendered);
    await vi.waitFor(() => expect(plain(rendered.lastFrame())).toContain('Claude Code'));
    rendered.press('r');
    await vi.waitFor(() =>
      expect(plain(rendered.lastFrame())).toContain('Running Claude Code again from the base'),
    );
    finish();
    await vi.waitFor(() =>
      expect(plain(rendered.lastFrame())).not.toContain('Running Claude Code again from the base'),
    );
  });
});
