/**
 * The CLI's printers and the dashboard format every figure and event with the same functions:
 * `hydra show`, the headless summary line and the dashboard's panes and views are compared on the
 * same data, and usage nobody reported reads `n/a` on screen and `null` in JSON.
 */
import { describe, expect, it } from 'vitest';
import { emptyUsage, ev, type AgentEvent, type Usage } from '../../../src/core/events.js';
import type { AdapterId } from '../../../src/adapters/types.js';
import { renderRun } from '../../../src/cli/commands/show.js';
import { eventLine, eventLineJson, summaryLine } from '../../../src/cli/headless.js';
import { createStyle } from '../../../src/cli/style.js';
import type { AgentSnapshot, RaceSummary, RunRecord } from '../../../src/engine/index.js';
import { lineText } from '../../../src/ui/layout/lines.js';
import { paneLines } from '../../../src/ui/layout/pane-lines.js';
import { compareLines, detailLines } from '../../../src/ui/layout/view-lines.js';
import { terminalSafeJson } from '../../../src/ui/text/text.js';
import { createTheme } from '../../../src/ui/text/theme.js';
import {
  T0,
  agentSnapshot,
  completed,
  raceSnapshot,
  runningEvents,
  usage,
} from '../../support/ui-fixtures.js';

const theme = createTheme({ ascii: false, color: false });
const plain = createStyle(false);

const millionTokens = usage({
  inputTokens: 1_234_567,
  outputTokens: 2_500,
  cacheReadTokens: 40_000,
  turns: 3,
  costUsd: 1.5,
  costSource: 'reported',
});

/** A run record with one finished agent per entry, as `hydra show` reads it back. */
const runRecord = (agents: Array<{ agent: AdapterId; usage: Usage; events?: AgentEvent[] }>): RunRecord => {
  const summary: RaceSummary = {
    runId: 'run-1',
    prompt: 'Fix the failing test',
    baseRef: '1a2b3c4d5e6f',
    baseBranch: 'main',
    startedAt: T0,
    endedAt: T0 + 90_000,
    agents: agents.map((item) => ({
      agent: item.agent,
      adapter: item.agent,
      status: 'completed',
      exitCode: 0,
      durationMs: 80_000,
      usage: item.usage,
      diff: { filesChanged: 2, insertions: 42, deletions: 7 },
      branch: `hydra/run-1/${item.agent}`,
      worktree: null,
    })),
    error: null,
  };
  return {
    runId: 'run-1',
    notes: [],
    dir: '/tmp/repo/.hydra/runs/run-1',
    meta: {
      runId: 'run-1',
      prompt: 'Fix the failing test',
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
    events: agents.flatMap((item) =>
      (item.events ?? []).map((event, index) => ({ agent: item.agent, at: T0 + 1_000 * (index + 1), event })),
    ),
    summary,
    merge: null,
  };
};

const showLines = (record: RunRecord): string[] => renderRun(record, plain, theme.symbols);

const detail = (agent: AgentSnapshot): string[] =>
  detailLines(agent, T0 + 90_000, theme, 120, 'run-1').map(lineText);

const compare = (agents: AgentSnapshot[]): string[] =>
  compareLines(raceSnapshot(agents), 0, T0 + 90_000, theme, 120).map(lineText);

const usageOfShow = (lines: string[]): string | undefined =>
  lines.find((line) => line.startsWith('  usage   '))?.slice('  usage   '.length);

const usageOfDetail = (lines: string[]): string | undefined =>
  lines.find((line) => line.startsWith('usage    '))?.slice('usage    '.length);

describe('headless event lines', () => {
  it('are the event line serialized whole, built around the JSON the record already made', () => {
    const events: AgentEvent[] = [
      ev({
        kind: 'message',
        role: 'assistant',
        text: 'say "hi"\n\u009b31m red \u007f ☃ \ud83d\ude00 \ud800',
        partial: true,
      }),
      ev({
        kind: 'tool_call',
        id: 't1',
        name: 'Bash',
        summary: '$ ls',
        input: { command: 'ls', n: [1, null] },
      }),
      ev({ kind: 'completed', result: 'done', usage: emptyUsage(), exitCode: 0 }),
    ];
    for (const event of events) {
      const record = { agent: 'claude-2', at: T0, event };

      const line = eventLineJson(record, 'claude');

      expect(line).toBe(terminalSafeJson(eventLine(record, 'claude')));
      expect(line).not.toMatch(/[\u007f-\u009f]/);
      expect(JSON.parse(line)).toEqual({ type: 'agent_event', agent: 'claude-2', adapter: 'claude', event });
    }
  });
});

describe('one figure, one format', () => {
  it('prints 1,234,567 tokens as 1.2M in hydra show, the detail view, the compare view and the pane', () => {
    const shown = usageOfShow(showLines(runRecord([{ agent: 'claude', usage: millionTokens }])));
    const agent = completed('claude', { usage: millionTokens });

    expect(shown).toBe('in 1.2M out 2.5k cached 40k · 3 turns · $1.50');
    expect(usageOfDetail(detail(agent))).toBe(shown);
    expect(compare([agent])[1]).toMatch(/ 1\.2M +2\.5k +40k +3 +\$1\.50$/);
    const pane = paneLines(agent, {
      index: 0,
      focused: true,
      now: T0 + 90_000,
      theme,
      width: 60,
      height: 20,
      compact: false,
    }).map(lineText);
    expect(pane).toContain(shown);
  });

  it('prints the same event lines in hydra show as in the pane', () => {
    const events = runningEvents('codex');
    const record = runRecord([{ agent: 'codex', usage: millionTokens, events }]);
    const shown = showLines(record)
      .filter((line) => /^ +\+\d/.test(line))
      .map((line) => line.replace(/^ +\+\S+ /, ''));
    const agent = agentSnapshot('codex', { recentEvents: events });
    const paneEvents = paneLines(agent, {
      index: 0,
      focused: false,
      now: T0 + 90_000,
      theme,
      width: 80,
      height: 30,
      compact: false,
    })
      .map(lineText)
      .slice(2, 2 + 6);

    // hydra show lists every event; the pane leaves out usage events.
    expect(shown.filter((line) => !line.startsWith('· usage'))).toEqual(paneEvents);
    expect(paneEvents).toEqual([
      '· init (test-model)',
      '› codex is reading the failing test first.',
      '⚙ Bash npm test -- src/math.test.ts',
      '✘ error 1 failed, 3 passed',
      '⚙ Edit src/math.ts',
      '✔ ok src/math.ts updated',
    ]);
  });
});

describe('usage nobody reported (Cursor)', () => {
  const cursor = completed('cursor', { usage: emptyUsage() });

  it('reads n/a in every column of the compare view, never 0', () => {
    const row = compare([cursor])[1] ?? '';
    expect(row).toMatch(/Cursor Agent +completed +1m22s +2 +\+42 +-7 +n\/a +n\/a +n\/a +n\/a +n\/a$/);
  });

  it('reads n/a in the detail view, the pane and hydra show', () => {
    const expected = 'tokens n/a (none reported) · cost n/a';
    expect(usageOfDetail(detail(cursor))).toBe(expected);
    expect(usageOfShow(showLines(runRecord([{ agent: 'cursor', usage: emptyUsage() }])))).toBe(expected);
  });

  it('is null, not 0, in the headless summary line', () => {
    const record = runRecord([{ agent: 'cursor', usage: emptyUsage() }]);
    const line = JSON.parse(JSON.stringify(summaryLine(record.summary as RaceSummary))) as {
      agents: Array<{ usage: Record<string, unknown> }>;
    };
    expect(line.agents[0]?.usage).toEqual({
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      turns: null,
      costUsd: null,
      costSource: 'unknown',
    });
  });

  it('keeps a reported 0 as 0', () => {
    const spent = usage({ inputTokens: 0, outputTokens: 5, turns: 1 });
    expect(usageOfShow(showLines(runRecord([{ agent: 'codex', usage: spent }])))).toBe(
      'in 0 out 5 cached 0 · 1 turn · n/a',
    );
  });
});

describe('the detail view', () => {
  it("lists a tool's output once, not its first line again under the result that says it", () => {
    const said = 'File created successfully at: /repo/hello.txt';
    const agent = completed('claude', {
      recentEvents: [
        ev({ kind: 'tool_call', id: 't1', name: 'Write', summary: 'Write hello.txt' }),
        ev({ kind: 'tool_result', id: 't1', name: 'Write', ok: true, summary: said, output: `${said}\n` }),
        ev({
          kind: 'tool_result',
          id: 't2',
          name: 'Bash',
          ok: true,
          summary: 'line one',
          output: 'line one\nline two',
        }),
      ],
    });
    const text = detail(agent);
    expect(text.filter((line) => line.includes('File created successfully at:'))).toHaveLength(1);
    expect(text).toContain('    line two');
    expect(text.filter((line) => line.includes('line one'))).toHaveLength(1);
  });
});

describe('hydra show', () => {
  it('uses ASCII symbols when asked to', () => {
    const ascii = createTheme({ ascii: true, color: false }).symbols;
    const record = runRecord([
      {
        agent: 'codex',
        usage: millionTokens,
        events: [ev({ kind: 'tool_call', id: '1', name: 'Bash', summary: 'ls' })],
      },
    ]);
    const lines = renderRun(record, plain, ascii);
    expect(lines).toContain('         +1s $ Bash ls');
    expect(usageOfShow(lines)).toBe('in 1.2M out 2.5k cached 40k - 3 turns - $1.50');
  });

  it('prints a streamed message once, not its fragments too (Gemini CLI)', () => {
    const fragment = (text: string): AgentEvent =>
      ev({ kind: 'message', role: 'assistant', text, partial: true });
    const record = runRecord([
      {
        agent: 'gemini',
        usage: millionTokens,
        events: [
          fragment('I will create'),
          fragment(' the file.'),
          ev({ kind: 'message', role: 'assistant', text: 'I will create the file.' }),
          ev({ kind: 'tool_call', id: '1', name: 'write_file', summary: 'Write hello.txt' }),
          // A stream cut short: no whole message follows these.
          fragment('Now I'),
          ev({ kind: 'failed', error: { kind: 'TimedOut', message: 'idle', hint: '' } }),
        ],
      },
    ]);
    const said = renderRun(record, plain, theme.symbols).filter((line) => line.includes('I will create'));
    expect(said).toEqual([expect.stringMatching(/ I will create the file\.$/)]);
    expect(renderRun(record, plain, theme.symbols).some((line) => line.endsWith('Now I'))).toBe(true);
  });
});
