/**
 * Widths as Ink measures them (string-width), and the sanitizer's handling of characters that
 * draw as nothing or reorder text (issue 21, case 19), in the text helpers and on the dashboard.
 */
import stringWidth from 'string-width';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ev } from '../../../../src/core/events.js';
import { fitLine, lineText, seg, spread } from '../../../../src/ui/layout/lines.js';
import {
  displayWidth,
  oneLine,
  padEnd,
  padStart,
  sanitize,
  sanitizeName,
  sanitizeStrings,
  terminalSafeJson,
  truncate,
  wrap,
} from '../../../../src/ui/text/text.js';
import { agentSnapshot, completed, FakeHandle, raceSnapshot } from '../../../support/ui-fixtures.js';
import { plain, renderAppAt, type Rendered } from '../../../support/ui-harness.js';

const FAMILY = '👨‍👩‍👧‍👦';
const HEART = '❤️';

describe('display width', () => {
  it('counts emoji as two columns, as Ink does (string-width is the measure in these tests)', () => {
    expect(displayWidth('✅')).toBe(2);
    expect(displayWidth('☕')).toBe(2);
    expect(displayWidth(HEART)).toBe(2);
    expect(displayWidth(FAMILY)).toBe(2);
    expect(displayWidth('👍🏽')).toBe(2);
    expect(displayWidth('🇯🇵')).toBe(2);
  });

  it('counts CJK as two columns and combining marks as none', () => {
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('한국어')).toBe(6);
    expect(displayWidth('ｆｕｌｌ')).toBe(8);
    expect(displayWidth('e\u0301a\u0308')).toBe(2);
  });

  it('agrees with string-width on mixed text', () => {
    for (const text of [`ok ✅ ☕ ${HEART} ${FAMILY} 日本語 e\u0301 done`, 'plain ascii', '🏳️‍🌈 flag'])
      expect(displayWidth(text)).toBe(stringWidth(text));
  });
});

describe('cutting and padding to a width', () => {
  it('never splits an emoji sequence or a wide character', () => {
    expect(truncate(`ab${FAMILY}cd`, 5)).toBe(`ab${FAMILY}…`);
    expect(truncate(`ab${FAMILY}cd`, 4)).toBe('ab…');
    expect(truncate('✅✅✅✅', 6)).toBe('✅✅…');
    expect(truncate(`${HEART}${HEART}${HEART}`, 5)).toBe(`${HEART}${HEART}…`);
    expect(truncate('日本語テキスト', 6, '')).toBe('日本語');
  });

  it('pads to exactly the width, emoji and CJK included', () => {
    for (const text of ['✅ ok', `${FAMILY} family`, `${HEART} love`, '☕ 日本語', 'e\u0301te\u0301'])
      for (const width of [4, 7, 12]) {
        expect(stringWidth(padEnd(text, width))).toBe(width);
        expect(stringWidth(padStart(text, width))).toBe(width);
      }
  });

  it('wraps emoji text to lines no wider than the width', () => {
    const lines = wrap(`✅ done ☕ break ${FAMILY} ${HEART} 日本語のテキストです`, 9);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(9);
    expect(lines.join('')).toContain(FAMILY);
    // A picture wider than the line still goes somewhere, on a line of its own.
    expect(wrap('✅✅', 1)).toEqual(['✅', '✅']);
  });

  it('fits styled lines with emoji to the width', () => {
    const line = [seg('✅ done', 'ok'), seg(` ${FAMILY} ${HEART} 日本語のテキストです`)];
    for (const width of [6, 11, 17, 20]) {
      // At most the width; one column short where the next character is a wide one.
      const fitted = stringWidth(lineText(fitLine(line, width, '…')));
      expect(fitted).toBeLessThanOrEqual(width);
      expect(fitted).toBeGreaterThanOrEqual(width - 1);
    }
    const spreadLine = spread([seg('☕ left 日本語')], [seg(`${HEART} right`)], 24, '…');
    expect(stringWidth(lineText(spreadLine))).toBe(24);
  });
});

describe('invisible and reordering characters', () => {
  it('shows bidi overrides and isolates as escapes', () => {
    expect(sanitize('invoice\u202Etxt.exe')).toBe('invoice\\u202Etxt.exe');
    for (const code of [
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f,
    ]) {
      const char = String.fromCodePoint(code);
      expect(sanitize(`a${char}b`)).toBe(`a\\u${code.toString(16).toUpperCase()}b`);
    }
  });

  it('shows zero-width and other invisible format characters as escapes', () => {
    expect(sanitize('pass\u200Bword')).toBe('pass\\u200Bword');
    expect(sanitize('a\u200Cb\u200Dc\u2060d\uFEFFe\u00ADf')).toBe(
      'a\\u200Cb\\u200Dc\\u2060d\\uFEFFe\\u00ADf',
    );
    expect(sanitize('tag\u{E0041}')).toBe('tag\\u{E0041}');
  });

  it('keeps emoji sequences that use joiners and tags', () => {
    const england = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';
    expect(sanitize(`family ${FAMILY} flag ${england} heart ${HEART}`)).toBe(
      `family ${FAMILY} flag ${england} heart ${HEART}`,
    );
  });

  it('applies to one-line text and to records', () => {
    expect(oneLine('fine\u202E\nnext')).toBe('fine\\u202E next');
    expect(sanitizeStrings({ files: ['a\u2066b'] })).toEqual({ files: ['a\\u2066b'] });
  });

  it('escapes them in JSON for a terminal, keeping the same value', () => {
    const value = { text: 'a\u202Eb\u200Bc' };
    const json = terminalSafeJson(value);
    expect(json).toBe('{"text":"a\\u202eb\\u200bc"}');
    expect(JSON.parse(json)).toEqual(value);
  });

  it('shows control characters and line breaks in a name instead of acting on them', () => {
    expect(sanitizeName('a\nb')).toBe('a\\nb');
    expect(sanitizeName('a\r\tb')).toBe('a\\r\\tb');
    expect(sanitizeName('x\u001B[2Jy\u0007')).toBe('x\\u001B[2Jy\\u0007');
    expect(sanitizeName('evil\u202Efdp.exe')).toBe('evil\\u202Efdp.exe');
    expect(sanitizeName('src/日本語 ✅.ts')).toBe('src/日本語 ✅.ts');
  });
});

// Every character a terminal would not show as itself: bidi, zero-width, format, controls.
const RAW_INVISIBLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u00AD\u061C\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/u;

describe('the dashboard', () => {
  const open: Rendered[] = [];
  afterEach(() => {
    for (const rendered of open.splice(0)) rendered.unmount();
  });

  const frameWhen = async (rendered: Rendered, text: string): Promise<string> => {
    await vi.waitFor(
      () => {
        if (!plain(rendered.lastFrame()).includes(text))
          throw new Error(`no ${text}:\n${rendered.lastFrame()}`);
      },
      { timeout: 3000, interval: 10 },
    );
    return plain(rendered.lastFrame());
  };

  it('keeps every pane row the width of the terminal with emoji and CJK in the panes', async () => {
    const text = `✅ tests pass ☕ ${HEART} ✅ ☕ ✅ ☕ ✅ ☕ 日本語のテキストです e\u0301 ${FAMILY} ${'✅ 漢字 '.repeat(12)}`;
    const events = [
      ev({ kind: 'message', role: 'assistant', text }),
      ev({ kind: 'message', role: 'assistant', text: '☕ short' }),
    ];
    const snapshot = raceSnapshot(
      [
        agentSnapshot('claude', { recentEvents: events, eventCount: 2 }),
        agentSnapshot('codex', { recentEvents: [...events].reverse(), eventCount: 2 }),
        completed('gemini', {
          recentEvents: events,
          diff: {
            filesChanged: 1,
            insertions: 1,
            deletions: 0,
            files: [{ path: 'src/日本語.ts', insertions: 1, deletions: 0 }],
          },
        }),
      ],
      { prompt: `✅ 日本語 ${FAMILY} prompt ${'☕'.repeat(60)}` },
    );
    const rendered = renderAppAt(new FakeHandle(snapshot), { columns: 120, rows: 30 });
    open.push(rendered);
    const frame = await frameWhen(rendered, '☕ short');
    const rows = frame.split('\n');
    const paneRows = rows.filter((row) => /^[│┃╭╰┏┗]/.test(row));
    expect(paneRows.length).toBeGreaterThan(10);
    for (const row of paneRows) expect(stringWidth(row)).toBe(120);
    // The long message is cut on its own row (ending in the ellipsis), not wrapped onto the next.
    expect(frame.match(/tests pass[^│┃]*…\s*[│┃]/g)).toHaveLength(3);
    // Each pane keeps its usage line at the bottom: nothing pushed it out.
    expect(frame.match(/\$0\.0123/g)).toHaveLength(3);
    for (const row of rows) expect(stringWidth(row)).toBeLessThanOrEqual(120);
  });

  it('shows no raw bidi, zero-width or control character from agent text or a file name', async () => {
    const hostile = 'done\u202Egnp.exe \u2066hidden\u2069 pass\u200Bword \uFEFFbom\u200Dzwj';
    const file = 'src/evil\u202Etxt.exe\nfake-header';
    const snapshot = raceSnapshot([
      completed('claude', {
        recentEvents: [
          ev({ kind: 'message', role: 'assistant', text: hostile }),
          ev({ kind: 'completed', result: hostile, exitCode: 0 }),
        ],
        diff: {
          filesChanged: 1,
          insertions: 1,
          deletions: 0,
          files: [{ path: file, insertions: 1, deletions: 0 }],
        },
      }),
    ]);
    const rendered = renderAppAt(new FakeHandle(snapshot), { columns: 160, rows: 40 });
    open.push(rendered);
    const panes = await frameWhen(rendered, 'completed');
    expect(panes).not.toMatch(RAW_INVISIBLE);
    expect(panes).toContain('done\\u202Egnp.exe');
    // The detail view lists the files.
    rendered.press('\r');
    const detail = await frameWhen(rendered, 'txt.exe');
    expect(detail).not.toMatch(RAW_INVISIBLE);
    expect(detail).toContain('evil\\u202Etxt.exe\\nfake-header');
    expect(detail).toContain('pass\\u200Bword');
  });
});
