/**
 * Key handling as a pure function: which action a key press means in the current view state.
 * Tests call it directly; the app feeds it Ink's `useInput` arguments. The keys themselves are
 * declared once, in the table of key-bindings.ts, which the footer's hints read too.
 */
import { inScope, KEY_BINDINGS, matches } from './key-bindings.js';
import type { KeyPress } from './key-bindings.js';
import type { Action, ViewState } from './view-state.js';

export type { KeyPress } from './key-bindings.js';

export const noKey: KeyPress = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
};

const NONE: Action = { type: 'none' };

/** The first binding in scope with a key that matches, or nothing. */
export const keymap = (state: ViewState, input: string, key: KeyPress): Action => {
  // While a merge or the quit runs, and once the dashboard has its outcome, only Ctrl-C counts.
  const waiting = state.outcome !== null || state.busy !== null;
  const prompting = state.dialog?.kind === 'follow-up';
  for (const binding of KEY_BINDINGS) {
    const active =
      binding.when === 'always' ||
      (!waiting && inScope(binding.when, state.view, state.dialog !== null, prompting));
    if (!active) continue;
    for (const { press, action } of binding.keys)
      if (matches(press, input, key)) return typeof action === 'function' ? action(input) : action;
  }
  return NONE;
};
