import { describe, expect, it } from 'vitest';
import { keymap, noKey, type KeyPress } from '../../../../src/ui/state/keymap.js';
import { initialViewState, type ViewState } from '../../../../src/ui/state/view-state.js';

const key = (overrides: Partial<KeyPress>): KeyPress => ({ ...noKey, ...overrides });
const panes = initialViewState();
const inView = (view: ViewState['view']): ViewState => ({ ...panes, view });

describe('keymap on the panes', () => {
  it('moves focus with Tab, Shift-Tab and the arrows', () => {
    expect(keymap(panes, '', key({ tab: true }))).toEqual({ type: 'focus-next' });
    expect(keymap(panes, '', key({ tab: true, shift: true }))).toEqual({ type: 'focus-prev' });
    expect(keymap(panes, '', key({ rightArrow: true }))).toEqual({ type: 'focus-next' });
    expect(keymap(panes, '', key({ leftArrow: true }))).toEqual({ type: 'focus-prev' });
  });

  it('jumps to panes 1 to 9 and ignores 0', () => {
    expect(keymap(panes, '1', noKey)).toEqual({ type: 'focus-index', index: 0 });
    expect(keymap(panes, '9', noKey)).toEqual({ type: 'focus-index', index: 8 });
    expect(keymap(panes, '0', noKey)).toEqual({ type: 'none' });
  });

  it('opens the views', () => {
    expect(keymap(panes, '', key({ return: true }))).toEqual({ type: 'open-detail' });
    expect(keymap(panes, 'd', noKey)).toEqual({ type: 'open-diff' });
    expect(keymap(panes, 'c', noKey)).toEqual({ type: 'open-compare' });
  });

  it('maps the race commands', () => {
    expect(keymap(panes, 'x', noKey)).toEqual({ type: 'stop' });
    expect(keymap(panes, 'm', noKey)).toEqual({ type: 'merge' });
    expect(keymap(panes, 'q', noKey)).toEqual({ type: 'quit' });
  });

  it('treats Ctrl-C as cancel, not as the c key', () => {
    expect(keymap(panes, 'c', key({ ctrl: true }))).toEqual({ type: 'cancel' });
  });

  it('ignores other Ctrl combinations and unknown keys', () => {
    expect(keymap(panes, 'x', key({ ctrl: true }))).toEqual({ type: 'none' });
    expect(keymap(panes, 'z', noKey)).toEqual({ type: 'none' });
  });

  it('does not scroll the panes', () => {
    expect(keymap(panes, '', key({ downArrow: true }))).toEqual({ type: 'none' });
    expect(keymap(panes, 'n', noKey)).toEqual({ type: 'none' });
  });
});

describe('keymap in the scrollable views', () => {
  it('scrolls the detail view by line, page and to the ends', () => {
    const detail = inView('detail');
    expect(keymap(detail, '', key({ upArrow: true }))).toEqual({ type: 'scroll', by: -1 });
    expect(keymap(detail, '', key({ downArrow: true }))).toEqual({ type: 'scroll', by: 1 });
    expect(keymap(detail, 'j', noKey)).toEqual({ type: 'scroll', by: 1 });
    expect(keymap(detail, '', key({ pageUp: true }))).toEqual({ type: 'scroll-page', direction: -1 });
    expect(keymap(detail, '', key({ pageDown: true }))).toEqual({ type: 'scroll-page', direction: 1 });
    expect(keymap(detail, '', key({ home: true }))).toEqual({ type: 'scroll-edge', edge: 'top' });
    expect(keymap(detail, 'G', noKey)).toEqual({ type: 'scroll-edge', edge: 'end' });
  });

  it('jumps file by file only in the diff view', () => {
    expect(keymap(inView('diff'), 'n', noKey)).toEqual({ type: 'file', direction: 1 });
    expect(keymap(inView('diff'), 'p', noKey)).toEqual({ type: 'file', direction: -1 });
    expect(keymap(inView('detail'), 'n', noKey)).toEqual({ type: 'none' });
  });

  it('goes back with Esc and still switches agents with the arrows', () => {
    expect(keymap(inView('diff'), '', key({ escape: true }))).toEqual({ type: 'back' });
    expect(keymap(inView('diff'), '', key({ rightArrow: true }))).toEqual({ type: 'focus-next' });
  });

  it('moves the selection with up and down in the compare table, by its rows', () => {
    expect(keymap(inView('compare'), '', key({ downArrow: true }))).toEqual({ type: 'select-row', by: 1 });
    expect(keymap(inView('compare'), '', key({ upArrow: true }))).toEqual({ type: 'select-row', by: -1 });
  });
});

describe('keymap with a dialog open or while busy', () => {
  const dialog: ViewState = { ...panes, dialog: { kind: 'merge', agent: 'codex' } };

  it('answers the dialog with y, d, n or Esc and ignores everything else', () => {
    expect(keymap(dialog, 'y', noKey)).toEqual({ type: 'confirm' });
    expect(keymap(dialog, 'Y', noKey)).toEqual({ type: 'confirm' });
    expect(keymap(dialog, 'd', noKey)).toEqual({ type: 'confirm', discardOthers: true });
    expect(keymap(dialog, 'n', noKey)).toEqual({ type: 'decline' });
    expect(keymap(dialog, '', key({ escape: true }))).toEqual({ type: 'decline' });
    expect(keymap(dialog, 'q', noKey)).toEqual({ type: 'none' });
    expect(keymap(dialog, '', key({ return: true }))).toEqual({ type: 'none' });
  });

  it('takes only Ctrl-C while merging or quitting', () => {
    const busy: ViewState = { ...panes, busy: { kind: 'merging', agent: 'codex' } };
    expect(keymap(busy, 'q', noKey)).toEqual({ type: 'none' });
    expect(keymap(busy, 'c', key({ ctrl: true }))).toEqual({ type: 'cancel' });
  });

  it('ignores keys once the dashboard has its outcome', () => {
    const done: ViewState = { ...panes, outcome: { kind: 'race-ended' } };
    expect(keymap(done, 'q', noKey)).toEqual({ type: 'none' });
  });
});
