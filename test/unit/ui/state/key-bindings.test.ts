/**
 * The key table: the footer's hints per view come from it, and every hint it shows names keys that
 * keymap really acts on in that view (the table cannot promise a key that does nothing).
 */
import { describe, expect, it } from 'vitest';
import {
  dialogHints,
  footerHints,
  KEY_BINDINGS,
  type KeyPress,
  type KeySpec,
} from '../../../../src/ui/state/key-bindings.js';
import { keymap, noKey } from '../../../../src/ui/state/keymap.js';
import { initialViewState, type View, type ViewState } from '../../../../src/ui/state/view-state.js';
import { createTheme } from '../../../../src/ui/text/theme.js';

const unicode = createTheme({ ascii: false, color: false }).symbols;
const ascii = createTheme({ ascii: true, color: false }).symbols;
const VIEWS: View[] = ['panes', 'detail', 'diff', 'compare'];

const text = (hints: Array<{ keys: string; label: string }>): string =>
  hints.map((hint) => `${hint.keys} ${hint.label}`).join('  ');

/** A key press that a spec matches (a digit for the jump pattern). */
const pressFor = (spec: KeySpec): [string, KeyPress] =>
  'key' in spec
    ? ['', { ...noKey, [spec.key]: true, shift: spec.shift ?? false }]
    : [typeof spec.input === 'string' ? spec.input : '1', { ...noKey, ctrl: spec.ctrl ?? false }];

const stateFor = (scope: View | 'dialog' | 'prompt'): ViewState =>
  scope === 'dialog'
    ? { ...initialViewState(), dialog: { kind: 'merge', agent: 'codex' } }
    : scope === 'prompt'
      ? { ...initialViewState(), dialog: { kind: 'follow-up', agent: 'codex', text: '' } }
      : { ...initialViewState(), view: scope };

describe('footer hints from the key table', () => {
  it('shows each view its own keys, in order', () => {
    expect(text(footerHints('panes', unicode, 3))).toBe(
      '←/→/Tab focus  1-3 jump  ⏎ detail  d diff  c compare  x stop  m merge  f follow-up  r rerun  s shell  q quit',
    );
    expect(text(footerHints('detail', unicode, 3))).toBe(
      '↑/↓ scroll  PgUp/PgDn page  ←/→ agent  d diff  m merge  f follow-up  s shell  Esc back  q quit',
    );
    expect(text(footerHints('diff', unicode, 3))).toBe(
      '↑/↓ scroll  PgUp/PgDn page  n/p file  ←/→ agent  m merge  Esc back  q quit',
    );
    expect(text(footerHints('compare', unicode, 3))).toBe(
      '↑/↓ select  ⏎ detail  d diff  m merge  Esc back  q quit',
    );
  });

  it('spells the keys in ASCII and leaves out the jump with one agent', () => {
    expect(text(footerHints('panes', ascii, 1))).toBe(
      '<-/->/Tab focus  Enter detail  d diff  c compare  x stop  m merge  f follow-up  r rerun  s shell  q quit',
    );
    expect(text(footerHints('panes', ascii, 12))).toContain('1-9 jump');
  });

  it("names a dialog's answers after what it asks", () => {
    expect(text(dialogHints({ kind: 'merge', agent: 'codex' }, unicode))).toBe(
      'y merge  d merge, drop the others  n/Esc cancel',
    );
    expect(text(dialogHints({ kind: 'quit' }, unicode))).toBe('y quit  n/Esc cancel');
    expect(text(dialogHints({ kind: 'follow-up', agent: 'codex', text: '' }, unicode))).toBe(
      '⏎ send  Esc cancel',
    );
  });
});

describe('the key table and keymap agree', () => {
  it('every hinted key does what its binding says in the view that shows it', () => {
    for (const binding of KEY_BINDINGS) {
      for (const hint of binding.hints ?? []) {
        const scopes = hint.in === 'dialog' || hint.in === 'prompt' ? [hint.in] : hint.in;
        for (const scope of scopes) {
          const state = stateFor(scope);
          const acted = binding.keys.some(({ press, action }) => {
            const [input, key] = pressFor(press);
            const expected = typeof action === 'function' ? action(input) : action;
            return JSON.stringify(keymap(state, input, key)) === JSON.stringify(expected);
          });
          expect(acted, `${binding.command} in ${scope}`).toBe(true);
        }
      }
    }
  });

  it('no key of a binding is taken by an earlier binding where both work', () => {
    for (const binding of KEY_BINDINGS) {
      const scopes =
        binding.when === 'always'
          ? VIEWS
          : binding.when === 'dialog' || binding.when === 'prompt'
            ? [binding.when]
            : binding.when;
      for (const scope of scopes) {
        for (const { press, action } of binding.keys) {
          const [input, key] = pressFor(press);
          const expected = typeof action === 'function' ? action(input) : action;
          expect(keymap(stateFor(scope), input, key), `${binding.command} in ${scope}`).toEqual(expected);
        }
      }
    }
  });

  it('takes Ctrl with a letter only where a binding names Ctrl', () => {
    const detail = stateFor('detail');
    expect(keymap(detail, 'b', { ...noKey, ctrl: true })).toEqual({ type: 'scroll-page', direction: -1 });
    expect(keymap(detail, 'j', { ...noKey, ctrl: true })).toEqual({ type: 'none' });
    expect(keymap(stateFor('dialog'), 'y', { ...noKey, ctrl: true })).toEqual({ type: 'none' });
  });

  it('gives every letter to the prompt line while it is open (y, q and m are text there)', () => {
    const prompt = stateFor('prompt');
    for (const letter of ['y', 'q', 'm', 'f', 'n'])
      expect(keymap(prompt, letter, noKey)).toEqual({ type: 'prompt-type', text: letter });
    expect(keymap(prompt, '', { ...noKey, backspace: true })).toEqual({ type: 'prompt-erase' });
    expect(keymap(prompt, '', { ...noKey, return: true })).toEqual({ type: 'confirm' });
    expect(keymap(prompt, 'c', { ...noKey, ctrl: true })).toEqual({ type: 'cancel' });
  });
});
