/**
 * Every key the dashboard knows, in one table: what it does, which keys do it, when it works, and
 * how the footer (or a dialog) names it. `keymap` reads the table to turn a key press into an
 * action; the footer and the dialogs read it for their hints, so the two cannot disagree.
 * In the spirit of gemini-cli's keyBindings.ts: one table, many uses.
 */
import type { Theme } from '../text/index.js';
import type { Action, Dialog, View } from './view-state.js';

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
  /** Ink reports these too; optional so a test's key needs only the keys it presses. */
  backspace?: boolean;
  delete?: boolean;
}

type NamedKey = Exclude<keyof KeyPress, 'ctrl' | 'shift'>;

const NAMED_KEYS: readonly NamedKey[] = [
  'upArrow',
  'downArrow',
  'leftArrow',
  'rightArrow',
  'pageDown',
  'pageUp',
  'home',
  'end',
  'return',
  'escape',
  'tab',
  'backspace',
  'delete',
];

/**
 * One key: a named key (modifiers ignored unless `shift` is given), or typed text, which matches
 * only when no named key is pressed and with Ctrl held exactly when `ctrl` says so.
 */
export type KeySpec = { key: NamedKey; shift?: boolean } | { input: string | RegExp; ctrl?: boolean };

/**
 * When a binding works. Bindings of views work only while no dialog is open; 'dialog' bindings in
 * a yes/no dialog, 'prompt' bindings while a prompt line (a follow-up) takes the typing.
 */
export type KeyScope = 'always' | 'dialog' | 'prompt' | readonly View[];

/** What hints are worded from. */
export interface HintContext {
  symbols: Theme['symbols'];
  agentCount: number;
  dialog: Dialog | null;
  /** Whether any agent still runs (stopping is offered only then). */
  anyRunning: boolean;
  /**
   * Whether another round or a shell can start for the focused agent (every agent settled, no
   * merge yet, the agent has a branch): follow-up, rerun and shell are offered only then.
   */
  canRound: boolean;
  /** Whether a result was merged already (the dashboard merges once: `m` is not offered again). */
  merged?: boolean;
}

export interface KeyHintSpec {
  /** Where the hint is shown: in these views' footer, in a yes/no dialog, or under a prompt line. */
  in: readonly View[] | 'dialog' | 'prompt';
  /** The keys as shown; null leaves the hint out. */
  keys: string | ((context: HintContext) => string | null);
  /** Shorter keys for a footer too narrow for `keys` (default: `keys`). */
  compactKeys?: (context: HintContext) => string;
  label: string | ((context: HintContext) => string);
  /** When the footer is too narrow, hints go by ascending dropOrder; those without one stay. */
  dropOrder?: number;
}

export interface KeyBinding {
  command: string;
  description: string;
  when: KeyScope;
  keys: ReadonlyArray<{ press: KeySpec; action: Action | ((input: string) => Action) }>;
  hints?: readonly KeyHintSpec[];
}

const ALL_VIEWS: readonly View[] = ['panes', 'detail', 'diff', 'compare'];
const SCROLLING: readonly View[] = ['detail', 'diff'];

const named = (key: NamedKey, shift?: boolean): KeySpec => (shift === undefined ? { key } : { key, shift });
const text = (input: string | RegExp): KeySpec => ({ input });
const ctrl = (input: string): KeySpec => ({ input, ctrl: true });

const FOCUS_NEXT: Action = { type: 'focus-next' };
const FOCUS_PREV: Action = { type: 'focus-prev' };

/** In table order: the footer shows its hints in this order. */
export const KEY_BINDINGS: readonly KeyBinding[] = [
  {
    command: 'cancel',
    description: 'Cancel the race: stop every agent, clean up and exit (works even while busy)',
    when: 'always',
    keys: [{ press: ctrl('c'), action: { type: 'cancel' } }],
  },
  {
    command: 'confirm',
    description: 'Answer yes to the open dialog',
    when: 'dialog',
    keys: [
      { press: text('y'), action: { type: 'confirm' } },
      { press: text('Y'), action: { type: 'confirm' } },
    ],
    hints: [{ in: 'dialog', keys: 'y', label: ({ dialog }) => dialog?.kind ?? 'yes' }],
  },
  {
    command: 'confirm-discard',
    description: "Merge, and remove the other agents' worktrees and branches too",
    when: 'dialog',
    keys: [
      { press: text('d'), action: { type: 'confirm', discardOthers: true } },
      { press: text('D'), action: { type: 'confirm', discardOthers: true } },
    ],
    hints: [
      {
        in: 'dialog',
        keys: ({ dialog }) => (dialog?.kind === 'merge' ? 'd' : null),
        label: 'merge, drop the others',
      },
    ],
  },
  {
    command: 'decline',
    description: 'Close the open dialog without doing anything',
    when: 'dialog',
    keys: [
      { press: text('n'), action: { type: 'decline' } },
      { press: text('N'), action: { type: 'decline' } },
      { press: named('escape'), action: { type: 'decline' } },
    ],
    hints: [{ in: 'dialog', keys: 'n/Esc', label: 'cancel' }],
  },
  {
    command: 'prompt-send',
    description: 'Send the follow-up prompt typed so far',
    when: 'prompt',
    keys: [{ press: named('return'), action: { type: 'confirm' } }],
    hints: [{ in: 'prompt', keys: ({ symbols }) => symbols.enter, label: 'send' }],
  },
  {
    command: 'prompt-cancel',
    description: 'Close the prompt line without sending',
    when: 'prompt',
    keys: [{ press: named('escape'), action: { type: 'decline' } }],
    hints: [{ in: 'prompt', keys: 'Esc', label: 'cancel' }],
  },
  {
    command: 'prompt-erase',
    description: 'Erase the last character of the prompt line',
    when: 'prompt',
    keys: [
      { press: named('backspace'), action: { type: 'prompt-erase' } },
      { press: named('delete'), action: { type: 'prompt-erase' } },
    ],
  },
  {
    command: 'prompt-type',
    description: 'Type into the prompt line',
    when: 'prompt',
    keys: [
      {
        // Printable text only (typed or pasted); control keys are the named bindings above.
        // eslint-disable-next-line no-control-regex
        press: text(/^[^\u0000-\u001f\u007f]+$/u),
        action: (input) => ({ type: 'prompt-type', text: input }),
      },
    ],
  },
  {
    command: 'scroll',
    description: 'Scroll the log or the diff by one line',
    when: SCROLLING,
    keys: [
      { press: named('upArrow'), action: { type: 'scroll', by: -1 } },
      { press: text('k'), action: { type: 'scroll', by: -1 } },
      { press: named('downArrow'), action: { type: 'scroll', by: 1 } },
      { press: text('j'), action: { type: 'scroll', by: 1 } },
    ],
    hints: [{ in: SCROLLING, keys: ({ symbols }) => symbols.arrowUpDown, label: 'scroll' }],
  },
  {
    command: 'page',
    description: 'Scroll the log or the diff by one page',
    when: SCROLLING,
    keys: [
      { press: named('pageUp'), action: { type: 'scroll-page', direction: -1 } },
      { press: ctrl('b'), action: { type: 'scroll-page', direction: -1 } },
      { press: text('b'), action: { type: 'scroll-page', direction: -1 } },
      { press: named('pageDown'), action: { type: 'scroll-page', direction: 1 } },
      { press: ctrl('f'), action: { type: 'scroll-page', direction: 1 } },
      { press: text(' '), action: { type: 'scroll-page', direction: 1 } },
    ],
    hints: [{ in: SCROLLING, keys: 'PgUp/PgDn', label: 'page', dropOrder: 2 }],
  },
  {
    command: 'edge',
    description: 'Jump to the top or the end of the log or the diff',
    when: SCROLLING,
    keys: [
      { press: named('home'), action: { type: 'scroll-edge', edge: 'top' } },
      { press: text('g'), action: { type: 'scroll-edge', edge: 'top' } },
      { press: named('end'), action: { type: 'scroll-edge', edge: 'end' } },
      { press: text('G'), action: { type: 'scroll-edge', edge: 'end' } },
    ],
  },
  {
    command: 'file',
    description: 'Jump to the next or previous file of the diff',
    when: ['diff'],
    keys: [
      { press: text('n'), action: { type: 'file', direction: 1 } },
      { press: text('p'), action: { type: 'file', direction: -1 } },
    ],
    hints: [{ in: ['diff'], keys: 'n/p', label: 'file' }],
  },
  {
    command: 'focus',
    description: 'Focus the next or previous agent',
    when: ALL_VIEWS,
    keys: [
      { press: named('tab', true), action: FOCUS_PREV },
      { press: named('tab', false), action: FOCUS_NEXT },
      { press: named('rightArrow'), action: FOCUS_NEXT },
      { press: named('leftArrow'), action: FOCUS_PREV },
    ],
    hints: [
      {
        in: ['panes'],
        keys: ({ symbols }) => `${symbols.arrowLeftRight}/Tab`,
        compactKeys: ({ symbols }) => symbols.arrowLeftRight,
        label: 'focus',
        dropOrder: 5,
      },
      { in: SCROLLING, keys: ({ symbols }) => symbols.arrowLeftRight, label: 'agent', dropOrder: 3 },
    ],
  },
  {
    command: 'select',
    description: 'Move the selection in the comparison table',
    when: ['compare'],
    keys: [
      { press: named('downArrow'), action: { type: 'select-row', by: 1 } },
      { press: named('upArrow'), action: { type: 'select-row', by: -1 } },
    ],
    hints: [{ in: ['compare'], keys: ({ symbols }) => symbols.arrowUpDown, label: 'select', dropOrder: 4 }],
  },
  {
    command: 'jump',
    description: 'Focus agent 1 to 9',
    when: ALL_VIEWS,
    keys: [
      { press: text(/^[1-9]$/), action: (input) => ({ type: 'focus-index', index: Number(input) - 1 }) },
    ],
    hints: [
      {
        in: ['panes'],
        keys: ({ agentCount }) => (agentCount > 1 ? `1-${Math.min(9, agentCount)}` : null),
        label: 'jump',
        dropOrder: 1,
      },
    ],
  },
  {
    command: 'detail',
    description: "Open the focused agent's full log",
    when: ALL_VIEWS,
    keys: [{ press: named('return'), action: { type: 'open-detail' } }],
    hints: [
      { in: ['panes', 'compare'], keys: ({ symbols }) => symbols.enter, label: 'detail', dropOrder: 6 },
    ],
  },
  {
    command: 'diff',
    description: "Open the focused agent's diff",
    when: ALL_VIEWS,
    keys: [{ press: text('d'), action: { type: 'open-diff' } }],
    hints: [{ in: ['panes', 'detail', 'compare'], keys: 'd', label: 'diff', dropOrder: 8 }],
  },
  {
    command: 'compare',
    description: 'Compare the agents side by side',
    when: ALL_VIEWS,
    keys: [{ press: text('c'), action: { type: 'open-compare' } }],
    hints: [{ in: ['panes'], keys: 'c', label: 'compare', dropOrder: 7 }],
  },
  {
    command: 'stop',
    description: 'Stop the focused agent',
    when: ALL_VIEWS,
    keys: [{ press: text('x'), action: { type: 'stop' } }],
    hints: [{ in: ['panes'], keys: ({ anyRunning }) => (anyRunning ? 'x' : null), label: 'stop' }],
  },
  {
    command: 'merge',
    description: "Merge the focused agent's result (asks first)",
    when: ALL_VIEWS,
    keys: [{ press: text('m'), action: { type: 'merge' } }],
    hints: [{ in: ALL_VIEWS, keys: ({ merged }) => (merged === true ? null : 'm'), label: 'merge' }],
  },
  {
    command: 'follow-up',
    description: 'Send the focused agent a follow-up prompt: it goes on in its session, on its branch',
    when: ALL_VIEWS,
    keys: [{ press: text('f'), action: { type: 'follow-up' } }],
    hints: [
      {
        in: ['panes', 'detail'],
        keys: ({ canRound }) => (canRound ? 'f' : null),
        label: 'follow-up',
        dropOrder: 9,
      },
    ],
  },
  {
    command: 'rerun',
    description: 'Run the focused agent again from the base, on a new branch <agent>-2',
    when: ALL_VIEWS,
    keys: [{ press: text('r'), action: { type: 'rerun' } }],
    hints: [
      { in: ['panes'], keys: ({ canRound }) => (canRound ? 'r' : null), label: 'rerun', dropOrder: 10 },
    ],
  },
  {
    command: 'shell',
    description: "Open a shell in the focused agent's worktree; what you change there joins its result",
    when: ALL_VIEWS,
    keys: [{ press: text('s'), action: { type: 'shell' } }],
    hints: [
      {
        in: ['panes', 'detail'],
        keys: ({ canRound }) => (canRound ? 's' : null),
        label: 'shell',
        dropOrder: 11,
      },
    ],
  },
  {
    command: 'back',
    description: 'Back to the panes',
    when: ALL_VIEWS,
    keys: [{ press: named('escape'), action: { type: 'back' } }],
    hints: [{ in: ['detail', 'diff', 'compare'], keys: 'Esc', label: 'back' }],
  },
  {
    command: 'quit',
    description: 'Quit: end the race without merging (asks first)',
    when: ALL_VIEWS,
    keys: [{ press: text('q'), action: { type: 'quit' } }],
    hints: [{ in: ALL_VIEWS, keys: 'q', label: 'quit' }],
  },
];

/** Whether one key spec matches the press. */
export const matches = (spec: KeySpec, input: string, key: KeyPress): boolean => {
  if ('key' in spec) return key[spec.key] === true && (spec.shift === undefined || key.shift === spec.shift);
  if (key.ctrl !== (spec.ctrl ?? false) || NAMED_KEYS.some((name) => key[name] === true)) return false;
  return typeof spec.input === 'string' ? input === spec.input : spec.input.test(input);
};

/**
 * Whether a binding works now: in a yes/no dialog, in a prompt line, in a view with no dialog
 * open, or always.
 */
export const inScope = (scope: KeyScope, view: View, dialogOpen: boolean, prompting = false): boolean => {
  if (scope === 'always') return true;
  if (scope === 'dialog') return dialogOpen && !prompting;
  if (scope === 'prompt') return prompting;
  return !dialogOpen && scope.includes(view);
};

/** A hint as shown: the keys and what they do. */
export interface KeyHint {
  keys: string;
  label: string;
  /** The keys for a narrow footer. */
  compactKeys?: string;
  dropOrder?: number;
}

const shown = (spec: KeyHintSpec, context: HintContext): KeyHint | null => {
  const keys = typeof spec.keys === 'string' ? spec.keys : spec.keys(context);
  if (keys === null) return null;
  const label = typeof spec.label === 'string' ? spec.label : spec.label(context);
  return {
    keys,
    label,
    ...(spec.compactKeys === undefined ? {} : { compactKeys: spec.compactKeys(context) }),
    ...(spec.dropOrder === undefined ? {} : { dropOrder: spec.dropOrder }),
  };
};

const hintsWhere = (where: (spec: KeyHintSpec) => boolean, context: HintContext): KeyHint[] =>
  KEY_BINDINGS.flatMap((binding) => binding.hints ?? [])
    .filter(where)
    .map((spec) => shown(spec, context))
    .filter((hint): hint is KeyHint => hint !== null);

/** The footer's hints for a view, in table order. */
export const footerHints = (
  view: View,
  symbols: Theme['symbols'],
  agentCount: number,
  anyRunning = true,
  canRound = true,
  merged = false,
): KeyHint[] =>
  hintsWhere((spec) => typeof spec.in !== 'string' && spec.in.includes(view), {
    symbols,
    agentCount,
    dialog: null,
    anyRunning,
    canRound,
    merged,
  });

/** The answers a dialog offers (a prompt line: send or cancel). */
export const dialogHints = (dialog: Dialog, symbols: Theme['symbols']): KeyHint[] =>
  hintsWhere((spec) => spec.in === (dialog.kind === 'follow-up' ? 'prompt' : 'dialog'), {
    symbols,
    agentCount: 0,
    dialog,
    anyRunning: false,
    canRound: false,
  });
