/**
 * Key handling as a pure function: which action a key press means in the current view state.
 * Tests call it directly; the app feeds it Ink's `useInput` arguments.
 */
import type { Action, ViewState } from './view-state.js';

/** The subset of Ink's `Key` the dashboard reads (so tests can build keys by hand). */
export interface KeyPress {
  upArrow: boolean;
  downArrow: boolean;
  leftArrow: boolean;
  rightArrow: boolean;
  pageDown: boolean;
  pageUp: boolean;
  home: boolean;
  end: boolean;
  return: boolean;
  escape: boolean;
  ctrl: boolean;
  shift: boolean;
  tab: boolean;
}

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

const dialogKey = (input: string, key: KeyPress): Action => {
  if (input === 'y' || input === 'Y') return { type: 'confirm' };
  if (input === 'n' || input === 'N' || key.escape) return { type: 'decline' };
  return NONE;
};

const scrollKey = (state: ViewState, input: string, key: KeyPress): Action | null => {
  if (state.view !== 'detail' && state.view !== 'diff') return null;
  if (key.upArrow || input === 'k') return { type: 'scroll', by: -1 };
  if (key.downArrow || input === 'j') return { type: 'scroll', by: 1 };
  if (key.pageUp || (key.ctrl && input === 'b') || input === 'b')
    return { type: 'scroll-page', direction: -1 };
  if (key.pageDown || (key.ctrl && input === 'f') || input === ' ')
    return { type: 'scroll-page', direction: 1 };
  if (key.home || input === 'g') return { type: 'scroll-edge', edge: 'top' };
  if (key.end || input === 'G') return { type: 'scroll-edge', edge: 'end' };
  if (state.view === 'diff' && input === 'n') return { type: 'file', direction: 1 };
  if (state.view === 'diff' && input === 'p') return { type: 'file', direction: -1 };
  return null;
};

export const keymap = (state: ViewState, input: string, key: KeyPress): Action => {
  if (key.ctrl && input === 'c') return { type: 'cancel' };
  if (state.outcome !== null || state.busy !== null) return NONE;
  if (state.dialog !== null) return dialogKey(input, key);

  const scroll = scrollKey(state, input, key);
  if (scroll !== null) return scroll;

  if (key.tab) return key.shift ? { type: 'focus-prev' } : { type: 'focus-next' };
  if (key.rightArrow) return { type: 'focus-next' };
  if (key.leftArrow) return { type: 'focus-prev' };
  if (state.view === 'compare' && key.downArrow) return { type: 'focus-next' };
  if (state.view === 'compare' && key.upArrow) return { type: 'focus-prev' };
  if (key.escape) return { type: 'back' };
  if (key.return) return { type: 'open-detail' };
  if (key.ctrl) return NONE;
  if (/^[1-9]$/.test(input)) return { type: 'focus-index', index: Number(input) - 1 };

  switch (input) {
    case 'q':
      return { type: 'quit' };
    case 'd':
      return { type: 'open-diff' };
    case 'c':
      return { type: 'open-compare' };
    case 'x':
      return { type: 'stop' };
    case 'm':
      return { type: 'merge' };
    default:
      return NONE;
  }
};
