/**
 * The one ANSI stripper (src/core/text.ts), used by the terminal sanitizer, the help-flag reader and
 * the test-count reader: every case any of the three handled before they shared it.
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { stripEscapes } from '../../../src/core/text.js';

const ESC = '\u001b';
const BEL = '\u0007';
const ST = `${ESC}\\`;

describe('stripEscapes', () => {
  it('removes colours and styles, with or without parameters', () => {
    expect(stripEscapes(`${ESC}[1;31mred${ESC}[0m ${ESC}[mplain`)).toBe('red plain');
    expect(stripEscapes(`  ${ESC}[1m--json${ESC}[22m   Print JSONL`)).toBe('  --json   Print JSONL');
  });

  it('removes colon-separated true colours and private modes', () => {
    expect(stripEscapes(`${ESC}[38:2:255:0:0mred${ESC}[?25l${ESC}[?25h`)).toBe('red');
  });

  it('removes cursor moves and screen clears with intermediate bytes', () => {
    expect(stripEscapes(`a${ESC}[2Jb${ESC}[10;5Hc${ESC}[1 qd${ESC}[2K`)).toBe('abcd');
  });

  it('removes the 8-bit CSI', () => {
    expect(stripEscapes('a\u009b31mb')).toBe('ab');
  });

  it('removes OSC strings ended by BEL or ST: titles with spaces and hyperlinks', () => {
    expect(stripEscapes(`a${ESC}]0;my title${BEL}b`)).toBe('ab');
    expect(stripEscapes(`${ESC}]8;;https://x.test/a b${ST}link${ESC}]8;;${ST}`)).toBe('link');
  });

  it('removes the 8-bit OSC up to its 8-bit ST', () => {
    expect(stripEscapes('a\u009d0;a title\u009cb')).toBe('ab');
  });

  it('removes DCS, SOS, PM and APC strings', () => {
    expect(stripEscapes(`a${ESC}Pq#0;2;0;0;0${ST}b`)).toBe('ab');
    expect(stripEscapes(`a${ESC}Xsos${ST}b${ESC}^pm${ST}c${ESC}_apc data${ST}d`)).toBe('abcd');
    expect(stripEscapes('a\u0090dcs\u009cb')).toBe('ab');
  });

  it('removes an unterminated string to the end of the text, as a terminal would swallow it', () => {
    expect(stripEscapes(`visible${ESC}]0;title and the rest`)).toBe('visible');
  });

  it('removes other escape sequences: charset, reset, save and restore cursor', () => {
    expect(stripEscapes(`a${ESC}(Bb${ESC}cc${ESC}7d${ESC}8e`)).toBe('abcde');
  });

  it('keeps line breaks, carriage returns, tabs and plain text', () => {
    expect(stripEscapes('Tests  3 passed\r\n\tdone\r50%\n')).toBe('Tests  3 passed\r\n\tdone\r50%\n');
    expect(stripEscapes('日本語 ✓ [brackets] ~tilde')).toBe('日本語 ✓ [brackets] ~tilde');
  });

  it("removes what Node's stripVTControlCharacters leaves", () => {
    const cases = [
      `a${ESC}]0;my title${BEL}b`,
      `a${ESC}Pq#0${ST}b`,
      `a${ESC}_x y${ST}b`,
      'a\u009d0;t t\u009cb',
    ];
    for (const text of cases) {
      expect(stripVTControlCharacters(text)).not.toBe('ab');
      expect(stripEscapes(text)).toBe('ab');
    }
  });
});
