import { afterEach, describe, expect, it, vi } from 'vitest';

// Chalk decides on colour support when Ink is imported: force it, so the colour tests can see it.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});
import { ev } from '../../../../src/core/events.js';
import { EngineError } from '../../../../src/engine/index.js';
import { displayWidth } from '../../../../src/ui/text/text.js';
import { createTheme } from '../../../../src/ui/text/theme.js';
import { noticeLines } from '../../../../src/ui/layout/chrome-lines.js';
import {
  agentSnapshot,
  completed,
  experimental,
  failedWithHint,
  FakeHandle,
  PATCH,
  raceSnapshot,
  T0,
  timedOut,
  usage,
} from '../../../support/ui-fixtures.js';
import { plain, renderApp, renderAppAt, type Rendered } from '../../../support/ui-harness.js';

const ESC = '\u001B';
/** A foreground colour escape sequence (standard or bright). */
const COLOUR = new RegExp(`${ESC}\\[(3\\d|9\\d)m`);

const KEYS = {
  tab: '\t',
  right: '\u001B[C',
  left: '\u001B[D',
  up: '\u001B[A',
  down: '\u001B[B',
  enter: '\r',
  escape: '\u001B',
  ctrlC: '\u0003',
};

const open: Rendered[] = [];
const track = <R extends Rendered>(rendered: R): R => {
  open.push(rendered);
  return rendered;
};
afterEach(() => {
  for (const rendered of open.splice(0)) rendered.unmount();
});

const frameOf = (rendered: Rendered): string => plain(rendered.lastFrame());

const waitForFrame = async (rendered: Rendered, text: string | RegExp): Promise<string> => {
  await vi.waitFor(
    () => {
      const frame = frameOf(rendered);
      if (typeof text === 'string' ? !frame.includes(text) : !text.test(frame))
        throw new Error(`frame lacks ${String(text)}:\n${frame}`);
    },
    { timeout: 3000, interval: 10 },
  );
  return frameOf(rendered);
};

/** Presses keys one at a time, letting Ink process each one. */
const press = async (rendered: Rendered, ...keys: string[]): Promise<void> => {
  for (const key of keys) {
    rendered.press(key);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const threeAgents = () =>
  new FakeHandle(raceSnapshot([agentSnapshot('claude'), completed('codex'), experimental()]));

describe('dashboard panes', () => {
  it('shows the header with the prompt, run id, base branch and commit, elapsed time and counts', async () => {
    const rendered = track(renderApp(threeAgents()));
    const frame = await waitForFrame(rendered, 'run run-1');
    expect(frame).toContain('"Fix the failing test');
    expect(frame).toContain('main@1a2b3c4');
    expect(frame).toMatch(/1m0\ds/);
    expect(frame).toContain('racing · 2 running · 1 done · 0 failed');
  });

  it('shows a running agent with its spinner, idle time, latest events and usage', async () => {
    const rendered = track(renderAppAt(threeAgents(), { columns: 200, rows: 40 }));
    const frame = await waitForFrame(rendered, 'Claude Code');
    expect(frame).toMatch(/⠋ running 1m0\ds · idle \ds/);
    expect(frame).toContain('› claude is reading the failing test first.');
    expect(frame).toContain('⚙ Bash npm test -- src/math.test.ts');
    expect(frame).toContain('✘ error 1 failed, 3 passed');
    expect(frame).toContain('✔ ok src/math.ts updated');
    expect(frame).toContain('in 12.3k out 678 cached 40k · 2 turns · $0.0123');
  });

  it('shows a completed agent with its diff summary', async () => {
    const rendered = track(renderApp(threeAgents()));
    const frame = await waitForFrame(rendered, 'Codex');
    expect(frame).toContain('✔ completed 1m22s');
    expect(frame).toContain('✔ 2 files +42 -7');
  });

  it('shows a failed agent with its error and the recovery hint', async () => {
    const rendered = track(
      renderApp(new FakeHandle(raceSnapshot([agentSnapshot('claude'), failedWithHint('codex')]))),
    );
    const frame = await waitForFrame(rendered, 'AuthMissing');
    expect(frame).toContain('✘ failed');
    expect(frame).toContain('✘ AuthMissing: Codex is not logged in.');
    expect(frame).toContain('hint: Run `codex login` or set OPENAI');
    expect(frame.match(/AuthMissing/g)).toHaveLength(1);
    expect(frame).toContain('1 running · 0 done · 1 failed');
  });

  it('shows a timed-out agent with the reason', async () => {
    const rendered = track(renderApp(new FakeHandle(raceSnapshot([timedOut('claude')]))));
    const frame = await waitForFrame(rendered, 'timed out');
    expect(frame).toContain('✘ timed out 5m00s');
    expect(frame).toContain('TimedOut: No output for 300s: stopped by the idle timeout.');
    expect(frame).toContain('hint: Raise idle_timeout_s');
  });

  it('warns about an experimental adapter and its inferred flags', async () => {
    const rendered = track(
      renderAppAt(new FakeHandle(raceSnapshot([agentSnapshot('claude'), experimental()])), {
        columns: 120,
        rows: 30,
      }),
    );
    const frame = await waitForFrame(rendered, 'Cursor Agent');
    expect(frame).toContain('⚠ experimental adapter · inferred flags · 1 warning');
    expect(frame.split('\n').find((line) => line.includes('Claude Code'))).not.toContain('experimental');
  });

  it('marks estimated costs with ~ and unknown costs as n/a', async () => {
    const estimated = agentSnapshot('claude', {
      usage: usage({
        inputTokens: 2000,
        outputTokens: 100,
        turns: 1,
        costUsd: 0.0042,
        costSource: 'estimated',
      }),
    });
    const unknown = agentSnapshot('codex', { usage: usage({ inputTokens: 10, turns: 1 }) });
    const rendered = track(renderApp(new FakeHandle(raceSnapshot([estimated, unknown]))));
    const frame = await waitForFrame(rendered, 'Codex');
    expect(frame).toContain('in 2k out 100 cached 0 · 1 turn · ~$0.0042');
    expect(frame).toContain('in 10 out 0 cached 0 · 1 turn · n/a');
  });

  it('puts panes side by side on a wide terminal (200 columns)', async () => {
    const rendered = track(renderAppAt(threeAgents(), { columns: 200, rows: 40 }));
    const frame = await waitForFrame(rendered, 'Cursor Agent');
    const titleRow = frame.split('\n').find((line) => line.includes('Claude Code'));
    expect(titleRow).toContain('Codex');
    expect(titleRow).toContain('Cursor Agent');
    expect(frame).toContain('╭');
  });

  it('stacks panes at 80×24, keeping every line within 80 columns and the frame under 24 rows', async () => {
    const rendered = track(renderAppAt(threeAgents(), { columns: 80, rows: 24 }));
    const frame = await waitForFrame(rendered, 'Cursor Agent');
    const lines = frame.split('\n');
    expect(lines.find((line) => line.includes('Claude Code'))).not.toContain('Codex');
    expect(lines.length).toBeLessThan(24);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80);
    expect(frame).toMatch(/▸ 1 Claude Code .* running/);
    expect(frame).toContain('in 12.3k out 678');
  });

  it('follows a resize from wide to narrow', async () => {
    const rendered = track(renderAppAt(threeAgents(), { columns: 200, rows: 40 }));
    await waitForFrame(rendered, '╭');
    rendered.resize(80, 24);
    await vi.waitFor(() => expect(frameOf(rendered).split('\n').length).toBeLessThan(24), { timeout: 3000 });
    const lines = frameOf(rendered).split('\n');
    expect(lines.find((line) => line.includes('Claude Code'))).not.toContain('Codex');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80);
  });

  it('cuts long agent messages to the pane width and strips control sequences', async () => {
    const noisy = ev({
      kind: 'message',
      role: 'assistant',
      text: `\u001B[2Jclear attempt\r\n${'word '.repeat(200)}`,
    });
    const handle = new FakeHandle(
      raceSnapshot([agentSnapshot('claude', { recentEvents: [noisy] }), agentSnapshot('codex')]),
    );
    const rendered = track(renderAppAt(handle, { columns: 100, rows: 30 }));
    await waitForFrame(rendered, 'clear attempt');
    const raw = rendered.lastFrame();
    expect(raw).not.toContain('\u001B[2J');
    for (const line of frameOf(rendered).split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(100);
    expect(frameOf(rendered)).toContain('clear attempt word word');
  });

  it('renders new events as the engine publishes them', async () => {
    const handle = threeAgents();
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    const current = handle.getSnapshot();
    const claude = current.agents[0]!;
    handle.update({
      ...current,
      agents: [
        {
          ...claude,
          recentEvents: [
            ...claude.recentEvents,
            ev({ kind: 'tool_call', id: 'x', name: 'Write', summary: 'src/new-file.ts' }),
          ],
        },
        ...current.agents.slice(1),
      ],
    });
    await waitForFrame(rendered, '⚙ Write src/new-file.ts');
  });

  it('draws ASCII borders and symbols in ASCII mode', async () => {
    const rendered = track(renderAppAt(threeAgents(), { columns: 200, rows: 30 }, { ascii: true }));
    const frame = await waitForFrame(rendered, 'Claude Code');
    expect(frame).not.toMatch(/[─│╭╮╰╯┏┃━✔✘⚠⚙›·⠋▸]/);
    expect(frame).toContain('+----');
    expect(frame).toContain('> 1 Claude Code');
    expect(frame).toContain('+ 2 files +42 -7');
    expect(frame).not.toContain('ok ok');
    expect(frame).toContain('! experimental adapter');
  });

  it('uses no colours without the color option (NO_COLOR) and colours with it', async () => {
    const plainRender = track(renderApp(threeAgents(), { color: false }));
    await waitForFrame(plainRender, 'Claude Code');
    expect(plainRender.lastFrame()).not.toMatch(COLOUR);
    const colour = track(renderApp(threeAgents(), { color: true }));
    await waitForFrame(colour, 'Claude Code');
    expect(colour.lastFrame()).toMatch(COLOUR);
  });
});

describe('dashboard keys and views', () => {
  it('moves focus with Tab, arrows and digits', async () => {
    const rendered = track(renderApp(threeAgents()));
    await waitForFrame(rendered, '▸ 1 Claude Code');
    await press(rendered, KEYS.tab);
    await waitForFrame(rendered, '▸ 2 Codex');
    await press(rendered, KEYS.right);
    await waitForFrame(rendered, '▸ 3 Cursor Agent');
    await press(rendered, KEYS.right);
    await waitForFrame(rendered, '▸ 1 Claude Code');
    await press(rendered, KEYS.left);
    await waitForFrame(rendered, '▸ 3 Cursor Agent');
    await press(rendered, '2');
    await waitForFrame(rendered, '▸ 2 Codex');
  });

  it('opens the detail view with the full event log and scrolls it', async () => {
    const events = Array.from({ length: 60 }, (_, index) =>
      ev({ kind: 'tool_call', id: String(index), name: 'Bash', summary: `step ${index}` }),
    );
    const handle = new FakeHandle(
      raceSnapshot([agentSnapshot('claude', { recentEvents: events, eventCount: 75 })]),
    );
    const rendered = track(renderAppAt(handle, { columns: 100, rows: 24 }));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, KEYS.enter);
    // It opens at the top: branch, worktree, usage and diff summary first.
    let frame = await waitForFrame(rendered, 'branch   hydra/run-1/claude');
    expect(frame).toContain('usage    in 12.3k');
    expect(frame).toContain('latest 60 of 75 events (all: hydra show run-1)');
    expect(frame).not.toContain('step 59');
    await press(rendered, 'G');
    frame = await waitForFrame(rendered, 'step 59');
    expect(frame).not.toContain('step 10\n');
    await press(rendered, 'g');
    await waitForFrame(rendered, 'branch   hydra/run-1/claude');
    await press(rendered, KEYS.down, KEYS.down);
    frame = await waitForFrame(rendered, /3-\d+ of \d+/);
    await press(rendered, KEYS.escape);
    frame = await waitForFrame(rendered, 'x stop');
    expect(frame).not.toContain('latest 60 of 75 events');
  });

  it('folds per-message usage lines into the usage line at the top of the detail view', async () => {
    const events = [
      ev({ kind: 'tool_call', id: '1', name: 'Write', summary: 'hello.txt' }),
      ev({ kind: 'usage', usage: usage({ inputTokens: 100 }) }),
      ev({ kind: 'message', role: 'assistant', text: 'Done writing.' }),
      ev({ kind: 'usage', usage: usage({ inputTokens: 200 }) }),
    ];
    const handle = new FakeHandle(raceSnapshot([agentSnapshot('claude', { recentEvents: events })]));
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, KEYS.enter);
    const frame = await waitForFrame(rendered, 'Done writing.');
    expect(frame).toContain('usage    in ');
    expect(frame).not.toMatch(/· usage in/);
    expect(frame.match(/usage/g)).toHaveLength(1);
  });

  it('shows tool output and the error hint in the detail view', async () => {
    const handle = new FakeHandle(raceSnapshot([failedWithHint('codex'), agentSnapshot('claude')]));
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Codex');
    await press(rendered, KEYS.enter);
    const frame = await waitForFrame(rendered, 'detail');
    expect(frame).toContain('hint: Run `codex login` or set OPENAI_API_KEY, then race again.');
    expect(frame).toContain('exit code 1');
  });

  it('opens the diff view, coloured, file by file', async () => {
    const handle = threeAgents();
    handle.patches.codex = PATCH;
    // Short enough that the second file starts below the first screen.
    const rendered = track(renderAppAt(handle, { columns: 100, rows: 14 }, { color: true }));
    await waitForFrame(rendered, 'Codex');
    await press(rendered, '2', 'd');
    let frame = await waitForFrame(rendered, 'file 1/2: src/math.ts');
    expect(handle.calls).toContainEqual({ kind: 'getPatch', agent: 'codex' });
    expect(frame).toContain('-  return a + b + 1;');
    expect(frame).toContain('+  return a + b;');
    expect(rendered.lastFrame()).toContain(`${ESC}[32m+  return a + b;`);
    expect(rendered.lastFrame()).toContain(`${ESC}[31m-  return a + b + 1;`);
    await press(rendered, 'n');
    frame = await waitForFrame(rendered, 'file 2/2: src/math.test.ts');
    await press(rendered, 'p');
    frame = await waitForFrame(rendered, 'file 1/2: src/math.ts');
    await press(rendered, KEYS.escape);
    frame = await waitForFrame(rendered, 'x stop');
    expect(frame).not.toContain('file 1/2');
  });

  it('says so when an agent changed nothing', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude')]));
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, 'd');
    await waitForFrame(rendered, 'No changes: this agent left the files as they were.');
  });

  it('compares every agent in one table', async () => {
    const handle = new FakeHandle(
      raceSnapshot([completed('claude'), failedWithHint('codex'), experimental()]),
    );
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, 'c');
    const frame = await waitForFrame(rendered, 'Compare');
    expect(frame).toMatch(/Agent\s+Status\s+Time\s+Files\s+\+\s+-\s+In\s+Out/);
    expect(frame).toMatch(/1 Claude Code\s+completed\s+1m22s\s+2\s+\+42\s+-7/);
    expect(frame).toMatch(/2 Codex\s+failed/);
    expect(frame).toContain('Claude Code: src/math.ts +40 -7, src/math.test.ts +2 -0');
    expect(frame).toContain('Codex: AuthMissing: Codex is not logged in.');
    expect(frame).toContain('$0.0123');
  });

  it('asks before x stops the focused agent, then stops it and clears the Stopping line', async () => {
    const handle = threeAgents();
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, 'x');
    const dialog = await waitForFrame(rendered, 'Stop Claude Code?');
    expect(dialog).toContain('Its work so far is discarded');
    expect(dialog).toContain('y stop');
    expect(handle.calls.filter((call) => call.kind === 'stopAgent')).toEqual([]);
    await press(rendered, 'n');
    await vi.waitFor(() => expect(frameOf(rendered)).not.toContain('Stop Claude Code?'));
    expect(handle.calls.filter((call) => call.kind === 'stopAgent')).toEqual([]);

    await press(rendered, 'x', 'y');
    await vi.waitFor(() => expect(handle.calls).toContainEqual({ kind: 'stopAgent', agent: 'claude' }));
    await waitForFrame(rendered, '■ stopped');
    await vi.waitFor(() => expect(frameOf(rendered)).not.toContain('Stopping Claude Code'));
  });

  it('offers x stop only while an agent runs', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude'), completed('codex')]));
    const rendered = track(renderApp(handle));
    const frame = await waitForFrame(rendered, 'm merge');
    expect(frame).not.toContain('x stop');
  });

  it('keeps the clock running through the review, when no agent runs any more', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude')], { now: T0 + 59_000 }));
    const rendered = track(renderApp(handle));
    // From 59 s on the snapshot to a minute on the screen: it ticked (a frame of 59 s itself may be
    // missed on a loaded machine, where the first frame can come a second late).
    await waitForFrame(rendered, '· 1m00s');
  });

  it('spells the ellipsis ... in ASCII mode, in notices and event lines too', async () => {
    const events = [ev({ kind: 'message', role: 'assistant', text: 'thinking about it… (×3)' })];
    const handle = new FakeHandle(raceSnapshot([agentSnapshot('claude', { recentEvents: events })]));
    const rendered = track(renderApp(handle, { ascii: true }));
    const frame = await waitForFrame(rendered, 'thinking about it... (x3)');
    expect(frame).not.toContain('…');
    const ascii = createTheme({ ascii: true, color: false });
    const notice = noticeLines(
      { text: 'Stopping Claude Code…', tone: 'info', whileRunning: 'claude' },
      null,
      handle.getSnapshot(),
      ascii,
      80,
    );
    expect(notice.map((line) => line.map((part) => part.text).join(''))).toEqual(['Stopping Claude Code...']);
  });

  it('refuses to merge an agent that has not completed', async () => {
    const handle = threeAgents();
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, 'm');
    await waitForFrame(rendered, 'Claude Code cannot be merged: it is running');
    expect(handle.calls.filter((call) => call.kind === 'merge')).toEqual([]);
  });

  it('asks before merging and says exactly what will happen; n keeps racing', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude'), completed('codex')]));
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Codex');
    await press(rendered, '2', 'm');
    const frame = await waitForFrame(rendered, "Merge Codex's result into main?");
    expect(frame).toContain(
      'Merges branch hydra/run-1/codex (2 files +42 -7) into main (started at 1a2b3c4)',
    );
    expect(frame).toContain('fast-forward');
    expect(frame).toContain(
      "Then removes Codex's worktree and branch, and every other worktree; the other results (Claude",
    );
    expect(frame).toContain('y merge');
    expect(frame).toContain('d merge, drop the others');
    await press(rendered, 'n');
    await vi.waitFor(() => expect(frameOf(rendered)).not.toContain("Merge Codex's result"));
    expect(handle.calls.filter((call) => call.kind === 'merge')).toEqual([]);
  });

  it('merges on y and shows what was merged where and what was cleaned, then exits', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude'), completed('codex')]));
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Codex');
    await press(rendered, '2', 'm');
    await waitForFrame(rendered, 'y merge');
    await press(rendered, 'y');
    const frame = await waitForFrame(rendered, 'Merged Codex');
    expect(handle.calls).toContainEqual({ kind: 'merge', agent: 'codex', options: { discardOthers: false } });
    expect(frame).toContain(
      "Merged Codex's result (hydra/run-1/codex) into main: fast-forward, 2 files, now at abcdef0.",
    );
    expect(frame).toContain('Cleaned up 2 worktrees and 2 branches:');
    expect(frame).toContain('merged · 0 running · 2 done');
    expect(frame).toContain('/tmp/hydra-worktrees/run-1/claude');
    expect(rendered.outcomes).toEqual([expect.objectContaining({ kind: 'merged' })]);
  });

  it('merges and removes the other results on d in the merge dialog', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude'), completed('codex')]));
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Codex');
    await press(rendered, '2', 'm');
    await waitForFrame(rendered, 'd merge, drop the others');
    await press(rendered, 'd');
    await waitForFrame(rendered, 'Merged Codex');
    expect(handle.calls).toContainEqual({ kind: 'merge', agent: 'codex', options: { discardOthers: true } });
  });

  it('says the worktrees are kept when the race keeps them', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude')]));
    const rendered = track(renderApp(handle, { keepWorktrees: true }));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, 'm');
    await waitForFrame(rendered, 'All worktrees and branches of this race are kept (--keep-worktrees).');
    await press(rendered, 'y');
    await vi.waitFor(() =>
      expect(handle.calls).toContainEqual({
        kind: 'merge',
        agent: 'claude',
        options: { keepWorktrees: true },
      }),
    );
  });

  it('stops the agents still running before merging a winner', async () => {
    const handle = new FakeHandle(raceSnapshot([agentSnapshot('claude'), completed('codex')]));
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Codex');
    await press(rendered, '2', 'm');
    await waitForFrame(rendered, 'First stops Claude Code, still running.');
    await press(rendered, 'y');
    await waitForFrame(rendered, 'Merged Codex');
    const kinds = handle.calls.map((call) => `${call.kind}${'agent' in call ? `:${call.agent}` : ''}`);
    expect(kinds).toEqual(['stopAgent:claude', 'merge:codex']);
  });

  it('shows a refused merge with its hint and stays open', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude')]));
    // The error the engine's merge throws for a refusal.
    handle.mergeResult = async () => {
      throw new EngineError({
        kind: 'Refused',
        message: 'The merge would conflict in src/math.ts.',
        hint: 'Commit or stash your change to src/math.ts, then merge again.',
        files: ['src/math.ts'],
      });
    };
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, 'm', 'y');
    const frame = await waitForFrame(rendered, 'Merge refused: The merge would conflict in src/math.ts.');
    expect(frame).toContain('Commit or stash your change to src/math.ts');
    expect(rendered.outcomes).toEqual([]);
  });

  it('asks before quitting while agents run, then cancels and cleans up', async () => {
    const handle = threeAgents();
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, 'q');
    const dialog = await waitForFrame(rendered, 'Quit and stop the running agents?');
    expect(dialog).toContain('Stops Claude Code and Cursor Agent (still running)');
    expect(dialog).toContain('Nothing is merged: the completed result of Codex stays on its branch.');
    await press(rendered, 'y');
    const frame = await waitForFrame(rendered, 'Race cancelled; nothing was merged.');
    expect(handle.calls.map((call) => call.kind)).toEqual(['cancel', 'finish']);
    expect(frame).toContain('Details: hydra show run-1');
    expect(rendered.outcomes).toEqual([{ kind: 'quit', cancelled: true }]);
  });

  it('quits without asking when every agent failed', async () => {
    const handle = new FakeHandle(raceSnapshot([failedWithHint('codex'), timedOut('claude')]));
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Codex');
    await press(rendered, 'q');
    await waitForFrame(rendered, 'Race ended; nothing was merged. 0 completed, 2 failed');
    expect(handle.calls.map((call) => call.kind)).toEqual(['finish']);
  });

  it('cancels cleanly on Ctrl-C without asking', async () => {
    const handle = threeAgents();
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, KEYS.ctrlC);
    await waitForFrame(rendered, 'Race cancelled');
    expect(handle.calls.map((call) => call.kind)).toEqual(['cancel', 'finish']);
  });

  it('draws the final screen from the race as it ended, not from a throttled snapshot taken before the cancel', async () => {
    const handle = threeAgents();
    const rendered = track(renderApp(handle, { throttleMs: 60_000 }));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, KEYS.ctrlC);
    const frame = await waitForFrame(rendered, 'Race cancelled');
    expect(frame).toContain('cancelled · 0 running · 1 done · 0 failed · 2 stopped');
    expect(frame).toContain('Race cancelled; nothing was merged. 1 completed, 0 failed, 2 stopped.');
  });

  it('counts agents that have not started as waiting, not running, while the race is probing', async () => {
    const waiting = (agent: 'claude' | 'codex') =>
      agentSnapshot(agent, { status: 'pending', startedAt: null, recentEvents: [] });
    const handle = new FakeHandle(raceSnapshot([waiting('claude'), waiting('codex')], { phase: 'probing' }));
    const rendered = track(renderApp(handle));
    const frame = await waitForFrame(rendered, 'Claude Code');
    expect(frame).toContain('probing agents · 2 waiting · 0 running · 0 done · 0 failed');
  });

  it('points at hydra show only when the race got far enough to leave a record', async () => {
    const handle = new FakeHandle(
      raceSnapshot(
        [agentSnapshot('claude', { status: 'pending', startedAt: null, branch: null, worktree: null })],
        { phase: 'probing' },
      ),
    );
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, KEYS.ctrlC);
    const frame = await waitForFrame(rendered, 'Race cancelled');
    expect(frame).not.toContain('hydra show');
  });

  it('still points at hydra show after a cancel whose clean-up removed every branch', async () => {
    const handle = new FakeHandle(raceSnapshot([agentSnapshot('claude', { branch: null, worktree: null })]));
    const rendered = track(renderApp(handle));
    await waitForFrame(rendered, 'Claude Code');
    await press(rendered, KEYS.ctrlC);
    const frame = await waitForFrame(rendered, 'Race cancelled');
    expect(frame).toContain('Details: hydra show run-1');
  });

  it('shows a race-level failure with its hint and exits', async () => {
    const handle = new FakeHandle(
      raceSnapshot([], {
        phase: 'failed',
        error: {
          kind: 'BinaryMissing',
          message: 'No usable agent: claude is missing, codex is not logged in.',
          hint: 'Run `hydra doctor` to see what each agent needs.',
        },
      }),
    );
    const rendered = track(renderApp(handle));
    const frame = await waitForFrame(rendered, 'No usable agent');
    expect(frame).toContain('hint: Run `hydra doctor`');
    await vi.waitFor(() => expect(rendered.outcomes).toEqual([{ kind: 'race-ended' }]));
  });

  it('counts elapsed time from the snapshot clock', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude')], { now: T0 + 3_725_000 }));
    const rendered = track(renderApp(handle));
    const frame = await waitForFrame(rendered, 'Claude Code');
    expect(frame).toContain('· 1h02m');
  });
});
