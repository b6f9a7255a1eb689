import { describe, expect, it } from 'vitest';
import { emptyUsage, ev } from '../../../../src/core/events.js';
import {
  formatCost,
  formatDuration,
  formatTokens,
  formatUsageToFit,
} from '../../../../src/ui/text/format.js';
import { eventLine, isShownInPane } from '../../../../src/ui/text/event-line.js';
import { fitLine, lineText, seg, spread } from '../../../../src/ui/layout/lines.js';
import {
  createTheme,
  detectAscii,
  detectNoColor,
  resolveDisplayOptions,
} from '../../../../src/ui/text/theme.js';
import { displayWidth, oneLine, sanitize, truncate, wrap } from '../../../../src/ui/text/text.js';
import { dashboardExitCode } from '../../../../src/ui/state/exit-code.js';
import {
  agentSnapshot,
  completed,
  failedWithHint,
  raceSnapshot,
  usage,
} from '../../../support/ui-fixtures.js';

describe('text', () => {
  it('counts wide characters as two columns and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
  });

  it('truncates to a column budget without splitting wide characters', () => {
    expect(truncate('hello world', 8)).toBe('hello w…');
    expect(truncate('日本語テキスト', 7)).toBe('日本語…');
    expect(displayWidth(truncate('日本語テキスト', 7))).toBeLessThanOrEqual(7);
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('hello world', 8, '...')).toBe('hello...');
  });

  it('removes escape sequences and control characters from agent output', () => {
    expect(sanitize('\u001B[31mred\u001B[0m \u001B]0;title\u0007ok\u0008')).toBe('red ok');
    expect(oneLine('line one\r\nline two\t end')).toBe('line one line two end');
  });

  it('wraps on spaces and breaks words longer than the width', () => {
    expect(wrap('the quick brown fox', 10)).toEqual(['the quick', 'brown fox']);
    expect(wrap('abcdefghijkl', 5)).toEqual(['abcde', 'fghij', 'kl']);
  });

  it('fits styled lines to a width, keeping their styles', () => {
    const line = [seg('Claude Code', 'accent', true), seg(' · a very long model name')];
    const fitted = fitLine(line, 20, '…');
    expect(lineText(fitted)).toBe('Claude Code · a ver…');
    expect(fitted[0]).toEqual(line[0]);
    expect(lineText(spread([seg('left side text')], [seg('right')], 16, '…'))).toBe('left side… right');
  });
});

describe('format', () => {
  it('formats durations, tokens and costs', () => {
    expect(formatDuration(950)).toBe('0s');
    expect(formatDuration(65_000)).toBe('1m05s');
    expect(formatDuration(7_260_000)).toBe('2h01m');
    expect(formatTokens(999)).toBe('999');
    expect(formatTokens(12_345)).toBe('12.3k');
    expect(formatTokens(2_000_000)).toBe('2M');
    expect(formatTokens(1_234_567)).toBe('1.2M');
    expect(formatTokens(null)).toBe('n/a');
    expect(formatCost({ costUsd: 0.01234, costSource: 'reported' })).toBe('$0.0123');
    expect(formatCost({ costUsd: 0.01234, costSource: 'estimated' })).toBe('~$0.0123');
    expect(formatCost({ costUsd: 12.5, costSource: 'reported' })).toBe('$12.50');
    expect(formatCost({ costUsd: null, costSource: 'unknown' })).toBe('n/a');
  });

  it('shortens the usage line to fit a narrow pane, keeping the cost', () => {
    const spent = usage({
      inputTokens: 2500,
      outputTokens: 52,
      cacheReadTokens: 600,
      turns: 2,
      costUsd: 0.0126,
      costSource: 'reported',
    });
    expect(formatUsageToFit(spent, 80, '·')).toBe('in 2.5k out 52 cached 600 · 2 turns · $0.0126');
    expect(formatUsageToFit(spent, 36, '·')).toBe('2.5k/52/600 tok · 2t · $0.0126');
    expect(formatUsageToFit(spent, 14, '·')).toBe('$0.0126 · 2t');
  });

  it('says n/a rather than zeros when an agent reported no usage at all', () => {
    const none = emptyUsage();
    expect(formatUsageToFit(none, 80, '·')).toBe('tokens n/a (none reported) · cost n/a');
    expect(formatUsageToFit(none, 24, '·')).toBe('tokens n/a · cost n/a');
    expect(formatUsageToFit({ ...none, turns: 1 }, 80, '·')).toBe('in n/a out n/a cached n/a · 1 turn · n/a');
    expect(formatUsageToFit({ ...none, inputTokens: 0, outputTokens: 0, turns: 1 }, 80, '·')).toBe(
      'in 0 out 0 cached n/a · 1 turn · n/a',
    );
  });

  it('describes each event kind on one line', () => {
    const symbols = createTheme({ ascii: false, color: false }).symbols;
    expect(
      eventLine(ev({ kind: 'tool_call', id: '1', name: 'Bash', summary: 'npm test' }), symbols).text,
    ).toBe('Bash npm test');
    expect(
      eventLine(ev({ kind: 'tool_call', id: '1', name: 'Write', summary: 'Write hello.txt' }), symbols).text,
    ).toBe('Write hello.txt');
    expect(
      eventLine(ev({ kind: 'tool_result', id: '1', ok: false, summary: 'exit 1' }), symbols),
    ).toMatchObject({ text: 'error exit 1', tone: 'error' });
    expect(eventLine(ev({ kind: 'parse_error', raw: 'garbage', reason: 'not JSON' }), symbols).text).toBe(
      'unparsed output: garbage',
    );
    expect(eventLine(ev({ kind: 'unknown', type: 'new_thing', raw: {} }), symbols).text).toBe(
      'unrecognised event new_thing',
    );
    // Runs of noise the engine merged say how many lines they stand for.
    expect(
      eventLine(
        ev({ kind: 'parse_error', raw: 'flood 0', reason: '3 lines were not JSON', lines: 3 }),
        symbols,
      ).text,
    ).toBe('3 unparsed lines, e.g.: flood 0');
    expect(eventLine(ev({ kind: 'unknown', type: 'ping', raw: {}, lines: 5 }), symbols).text).toBe(
      'unrecognised event ping (×5)',
    );
    expect(
      eventLine(ev({ kind: 'message', role: 'assistant', text: 'hm', thinking: true }), symbols).tone,
    ).toBe('muted');
  });

  it('shows what the sandbox refused an agent as a warning', () => {
    const symbols = createTheme({ ascii: false, color: false }).symbols;
    const detail = 'a write to ../outside.txt (read-only file system)';
    expect(eventLine(ev({ kind: 'progress', stage: 'sandbox_refused', detail }), symbols)).toEqual({
      symbol: symbols.warn,
      text: `sandbox refused ${detail}`,
      tone: 'warn',
    });
  });

  it('keeps usage events and streamed fragments out of the panes', () => {
    expect(isShownInPane(ev({ kind: 'usage', usage: agentSnapshot('claude').usage }))).toBe(false);
    expect(isShownInPane(ev({ kind: 'message', role: 'assistant', text: 'par', partial: true }))).toBe(false);
    expect(isShownInPane(ev({ kind: 'message', role: 'assistant', text: 'full' }))).toBe(true);
  });
});

describe('display detection', () => {
  it('turns colours off for NO_COLOR and dumb terminals', () => {
    expect(detectNoColor({ NO_COLOR: '1' })).toBe(true);
    expect(detectNoColor({ NO_COLOR: '' })).toBe(false);
    expect(detectNoColor({ TERM: 'dumb' })).toBe(true);
    expect(detectNoColor({ TERM: 'xterm-256color' })).toBe(false);
  });

  it('uses ASCII when the locale does not say UTF-8', () => {
    expect(detectAscii({ LANG: 'en_US.UTF-8' })).toBe(false);
    expect(detectAscii({ LC_ALL: 'C', LANG: 'en_US.UTF-8' })).toBe(true);
    expect(detectAscii({ LC_CTYPE: 'de_DE.utf8' })).toBe(false);
    expect(detectAscii({})).toBe(true);
    expect(detectAscii({ LANG: 'C', HYDRA_ASCII: '0' })).toBe(false);
    expect(detectAscii({ LANG: 'en_US.UTF-8', HYDRA_ASCII: '1' })).toBe(true);
  });

  it('lets explicit options win over the environment', () => {
    expect(resolveDisplayOptions({ ascii: false, noColor: false }, { LANG: 'C', NO_COLOR: '1' })).toEqual({
      ascii: false,
      noColor: false,
    });
    expect(resolveDisplayOptions({}, { LANG: 'C', NO_COLOR: '1' })).toEqual({ ascii: true, noColor: true });
  });
});

describe('exit code', () => {
  it('is 0 after a merge or when an agent completed, 1 otherwise', () => {
    const merged = {
      runId: 'r',
      agent: 'codex' as const,
      into: 'main',
      method: 'fast-forward' as const,
      commit: 'a',
      filesChanged: 1,
      removed: [],
    };
    expect(dashboardExitCode(raceSnapshot([failedWithHint('codex')]), merged)).toBe(0);
    expect(dashboardExitCode(raceSnapshot([completed('claude'), failedWithHint('codex')]), null)).toBe(0);
    expect(
      dashboardExitCode(
        raceSnapshot([failedWithHint('codex'), agentSnapshot('claude', { status: 'cancelled' })]),
        null,
      ),
    ).toBe(1);
    expect(
      dashboardExitCode(
        raceSnapshot([], { phase: 'failed', error: { kind: 'InvalidConfig', message: 'x', hint: 'y' } }),
        null,
      ),
    ).toBe(1);
  });
});
