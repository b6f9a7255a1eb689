import { describe, expect, it } from 'vitest';
import type { MergeResult } from '../../../../src/engine/index.js';
import {
  initialViewState,
  reduce,
  resolveScroll,
  type ViewContext,
  type ViewState,
} from '../../../../src/ui/state/view-state.js';

const context = (overrides: Partial<ViewContext> = {}): ViewContext => ({
  agents: [
    { agent: 'claude', displayName: 'Claude Code', status: 'running' },
    { agent: 'codex', displayName: 'Codex', status: 'completed' },
    { agent: 'cursor', displayName: 'Cursor Agent', status: 'failed' },
  ],
  merged: false,
  contentLines: 100,
  pageLines: 20,
  fileStarts: [],
  ...overrides,
});

const start = initialViewState();
const at = (overrides: Partial<ViewState>): ViewState => ({ ...start, ...overrides });

describe('focus', () => {
  it('wraps around in both directions', () => {
    expect(reduce(at({ focus: 2 }), { type: 'focus-next' }, context()).state.focus).toBe(0);
    expect(reduce(start, { type: 'focus-prev' }, context()).state.focus).toBe(2);
  });

  it('ignores a jump past the last pane', () => {
    expect(reduce(start, { type: 'focus-index', index: 5 }, context()).state).toBe(start);
    expect(reduce(start, { type: 'focus-index', index: 1 }, context()).state.focus).toBe(1);
  });

  it('loads the next agent patch when focus moves inside the diff view', () => {
    const transition = reduce(at({ view: 'diff', scroll: 40 }), { type: 'focus-next' }, context());
    expect(transition.state).toMatchObject({ view: 'diff', focus: 1, scroll: 0 });
    expect(transition.effect).toEqual({ kind: 'load-patch', agent: 'codex' });
  });
});

describe('views and scrolling', () => {
  it('opens the detail view at its top (branch, worktree, diff summary)', () => {
    const transition = reduce(start, { type: 'open-detail' }, context());
    expect(transition.state).toMatchObject({ view: 'detail', scroll: 0 });
    expect(transition.effect).toBeNull();
  });

  it('opens the diff view at the top and asks for the patch', () => {
    const transition = reduce(at({ focus: 1 }), { type: 'open-diff' }, context());
    expect(transition.state).toMatchObject({ view: 'diff', scroll: 0 });
    expect(transition.effect).toEqual({ kind: 'load-patch', agent: 'codex' });
  });

  it('scrolls up from the end and clamps at the top and bottom', () => {
    const detail = at({ view: 'detail', scroll: 'end' });
    expect(reduce(detail, { type: 'scroll', by: -1 }, context()).state.scroll).toBe(79);
    expect(reduce(at({ view: 'diff', scroll: 3 }), { type: 'scroll', by: -10 }, context()).state.scroll).toBe(
      0,
    );
    expect(reduce(at({ view: 'diff', scroll: 75 }), { type: 'scroll', by: 10 }, context()).state.scroll).toBe(
      80,
    );
  });

  it('follows the end again when the detail view is scrolled to the bottom', () => {
    expect(
      reduce(at({ view: 'detail', scroll: 79 }), { type: 'scroll', by: 1 }, context()).state.scroll,
    ).toBe('end');
  });

  it('pages by one line less than a page', () => {
    expect(
      reduce(at({ view: 'diff', scroll: 0 }), { type: 'scroll-page', direction: 1 }, context()).state.scroll,
    ).toBe(19);
  });

  it('jumps to the next and previous file in the diff', () => {
    const diff = at({ view: 'diff', scroll: 0 });
    const withFiles = context({ fileStarts: [0, 30, 60] });
    expect(reduce(diff, { type: 'file', direction: 1 }, withFiles).state.scroll).toBe(30);
    expect(
      reduce(at({ view: 'diff', scroll: 45 }), { type: 'file', direction: -1 }, withFiles).state.scroll,
    ).toBe(30);
    expect(
      reduce(at({ view: 'diff', scroll: 60 }), { type: 'file', direction: 1 }, withFiles).state.scroll,
    ).toBe(60);
  });

  it('does not scroll the panes', () => {
    expect(reduce(start, { type: 'scroll', by: 5 }, context()).state).toBe(start);
  });

  it('goes back from a dialog first, then from a view', () => {
    const both = at({ view: 'compare', dialog: { kind: 'quit' } });
    const once = reduce(both, { type: 'back' }, context()).state;
    expect(once).toMatchObject({ view: 'compare', dialog: null });
    expect(reduce(once, { type: 'back' }, context()).state.view).toBe('panes');
  });

  it('resolves the end of a scroll to the last full page', () => {
    expect(resolveScroll('end', 100, 20)).toBe(80);
    expect(resolveScroll('end', 5, 20)).toBe(0);
    expect(resolveScroll(500, 100, 20)).toBe(80);
  });
});

describe('stopping and merging', () => {
  it('asks before stopping a running agent, and stops it on yes', () => {
    const asked = reduce(start, { type: 'stop' }, context());
    expect(asked.effect).toBeNull();
    expect(asked.state.dialog).toEqual({ kind: 'stop', agent: 'claude' });
    const stopped = reduce(asked.state, { type: 'confirm' }, context());
    expect(stopped.effect).toEqual({ kind: 'stop', agent: 'claude' });
    expect(stopped.state.notice).toMatchObject({ text: 'Stopping Claude Code…', whileRunning: 'claude' });
    const declined = reduce(asked.state, { type: 'decline' }, context());
    expect(declined.effect).toBeNull();
    expect(declined.state.dialog).toBeNull();
  });

  it('clears the Stopping line once the agent has stopped, not before', () => {
    const stopping = reduce(reduce(start, { type: 'stop' }, context()).state, { type: 'confirm' }, context());
    const still = reduce(stopping.state, { type: 'agents-changed' }, context());
    expect(still.state.notice?.text).toBe('Stopping Claude Code…');
    const agents = context().agents.map((agent) =>
      agent.agent === 'claude' ? { ...agent, status: 'cancelled' as const } : agent,
    );
    const gone = reduce(stopping.state, { type: 'agents-changed' }, context({ agents }));
    expect(gone.state.notice).toBeNull();
  });

  it('says so when the stop arrived after the agent finished: its result is kept', () => {
    const stopping = reduce(reduce(start, { type: 'stop' }, context()).state, { type: 'confirm' }, context());
    const agents = context().agents.map((agent) =>
      agent.agent === 'claude' ? { ...agent, status: 'completed' as const } : agent,
    );
    const late = reduce(stopping.state, { type: 'agents-changed' }, context({ agents }));
    expect(late.state.notice).toEqual({
      text: 'Claude Code had finished before the stop: its result is kept.',
      tone: 'info',
    });
  });

  it('explains why a settled agent cannot be stopped', () => {
    const transition = reduce(at({ focus: 1 }), { type: 'stop' }, context());
    expect(transition.effect).toBeNull();
    expect(transition.state.notice?.text).toBe('Codex is not running (completed).');
  });

  it('asks for confirmation before merging a completed agent', () => {
    const transition = reduce(at({ focus: 1 }), { type: 'merge' }, context());
    expect(transition.state.dialog).toEqual({ kind: 'merge', agent: 'codex' });
    expect(transition.effect).toBeNull();
  });

  it('refuses to merge an agent that did not complete', () => {
    const transition = reduce(at({ focus: 2 }), { type: 'merge' }, context());
    expect(transition.state.dialog).toBeNull();
    expect(transition.state.notice).toEqual({
      text: expect.stringContaining('Cursor Agent cannot be merged: it is failed'),
      tone: 'warn',
    });
  });

  it('refuses a second merge', () => {
    expect(
      reduce(at({ focus: 1 }), { type: 'merge' }, context({ merged: true })).state.notice?.text,
    ).toContain('already merged');
  });

  it('merges on confirmation, stopping the agents still running first', () => {
    const transition = reduce(
      at({ focus: 1, dialog: { kind: 'merge', agent: 'codex' } }),
      { type: 'confirm' },
      context(),
    );
    expect(transition.state).toMatchObject({ dialog: null, busy: { kind: 'merging', agent: 'codex' } });
    expect(transition.effect).toEqual({
      kind: 'merge',
      agent: 'codex',
      stopFirst: ['claude'],
      discardOthers: false,
    });
  });

  it('merges and discards the other results on the second yes of the merge dialog only', () => {
    const merge = reduce(
      at({ focus: 1, dialog: { kind: 'merge', agent: 'codex' } }),
      { type: 'confirm', discardOthers: true },
      context(),
    );
    expect(merge.effect).toMatchObject({ kind: 'merge', agent: 'codex', discardOthers: true });
    const quit = reduce(
      at({ dialog: { kind: 'quit' } }),
      { type: 'confirm', discardOthers: true },
      context(),
    );
    expect(quit.effect).toBeNull();
    expect(quit.state.dialog).toEqual({ kind: 'quit' });
  });

  it('says at merge time that a race on a detached HEAD has no branch to merge into, and how to make one', () => {
    const transition = reduce(
      at({ focus: 1 }),
      { type: 'merge' },
      { ...context(), detachedAt: 'abcdef0123456789' },
    );
    expect(transition.state.dialog).toBeNull();
    expect(transition.state.notice?.text).toContain('detached HEAD (abcdef012345)');
    expect(transition.state.notice?.text).toContain('git switch -c <branch> abcdef012345');
  });

  it('keeps racing when the merge is declined', () => {
    const transition = reduce(
      at({ dialog: { kind: 'merge', agent: 'codex' } }),
      { type: 'decline' },
      context(),
    );
    expect(transition.state.dialog).toBeNull();
    expect(transition.effect).toBeNull();
  });

  it('ends with the merge result, or shows why it was refused', () => {
    const result: MergeResult = {
      runId: 'r',
      agent: 'codex',
      into: 'main',
      method: 'fast-forward',
      commit: 'abc',
      filesChanged: 1,
      removed: [],
    };
    const merging = at({ busy: { kind: 'merging', agent: 'codex' } });
    expect(reduce(merging, { type: 'merge-succeeded', result }, context()).state.outcome).toEqual({
      kind: 'merged',
      result,
    });
    const refused = reduce(
      merging,
      { type: 'merge-failed', message: 'Merge refused: conflict.' },
      context(),
    ).state;
    expect(refused).toMatchObject({
      busy: null,
      outcome: null,
      notice: { text: 'Merge refused: conflict.', tone: 'error' },
    });
  });
});

describe('quitting and cancelling', () => {
  it('asks before quitting while agents run', () => {
    const transition = reduce(start, { type: 'quit' }, context());
    expect(transition.state.dialog).toEqual({ kind: 'quit' });
    expect(transition.effect).toBeNull();
  });

  it('asks before quitting with an unmerged completed result', () => {
    const settled = context({ agents: [{ agent: 'codex', displayName: 'Codex', status: 'completed' }] });
    expect(reduce(start, { type: 'quit' }, settled).state.dialog).toEqual({ kind: 'quit' });
  });

  it('quits at once when nothing runs and nothing is left to merge', () => {
    const failed = context({ agents: [{ agent: 'codex', displayName: 'Codex', status: 'failed' }] });
    const transition = reduce(start, { type: 'quit' }, failed);
    expect(transition.effect).toEqual({ kind: 'quit', cancel: false });
    expect(transition.state.busy).toEqual({ kind: 'quitting', cancelling: false });
  });

  it('cancels the running agents when the quit is confirmed', () => {
    expect(reduce(at({ dialog: { kind: 'quit' } }), { type: 'confirm' }, context()).effect).toEqual({
      kind: 'quit',
      cancel: true,
    });
  });

  it('cancels on Ctrl-C without asking, even with a dialog open', () => {
    const transition = reduce(
      at({ dialog: { kind: 'merge', agent: 'codex' } }),
      { type: 'cancel' },
      context(),
    );
    expect(transition.effect).toEqual({ kind: 'quit', cancel: true });
    expect(transition.state.dialog).toBeNull();
  });

  it('does not interrupt a merge on Ctrl-C', () => {
    const transition = reduce(
      at({ busy: { kind: 'merging', agent: 'codex' } }),
      { type: 'cancel' },
      context(),
    );
    expect(transition.effect).toBeNull();
    expect(transition.state.notice?.text).toContain('merge is in progress');
  });

  it('ignores a second Ctrl-C while already quitting', () => {
    const quitting = at({ busy: { kind: 'quitting', cancelling: true } });
    expect(reduce(quitting, { type: 'cancel' }, context()).effect).toBeNull();
  });

  it('ends when the race ends on its own, unless a command is under way', () => {
    expect(reduce(start, { type: 'race-ended' }, context()).state.outcome).toEqual({ kind: 'race-ended' });
    const merging = at({ busy: { kind: 'merging', agent: 'codex' } });
    expect(reduce(merging, { type: 'race-ended' }, context()).state.outcome).toBeNull();
  });

  it('changes nothing once the outcome is set', () => {
    const done = at({ outcome: { kind: 'race-ended' } });
    expect(reduce(done, { type: 'focus-next' }, context()).state).toBe(done);
  });
});

describe('more rounds: follow-up, rerun, shell', () => {
  const settled = (overrides: Partial<ViewContext> = {}): ViewContext =>
    context({
      agents: [
        { agent: 'claude', displayName: 'Claude Code', status: 'completed', branch: 'hydra/r/claude' },
        { agent: 'codex', displayName: 'Codex', status: 'skipped', branch: null },
      ],
      ...overrides,
    });

  it('opens a prompt line on f, takes what is typed, and sends it as a follow-up on Enter', () => {
    let state = reduce(start, { type: 'follow-up' }, settled()).state;
    expect(state.dialog).toEqual({ kind: 'follow-up', agent: 'claude', text: '' });
    state = reduce(state, { type: 'prompt-type', text: 'Add a tesx' }, settled()).state;
    state = reduce(state, { type: 'prompt-erase' }, settled()).state;
    state = reduce(state, { type: 'prompt-type', text: 't\nnow' }, settled()).state;
    expect(state.dialog).toEqual({ kind: 'follow-up', agent: 'claude', text: 'Add a test now' });

    const sent = reduce(state, { type: 'confirm' }, settled());

    expect(sent.state.dialog).toBeNull();
    expect(sent.effect).toEqual({
      kind: 'round',
      request: { kind: 'follow_up', agent: 'claude', prompt: 'Add a test now' },
    });
  });

  it('sends nothing for an empty prompt line', () => {
    const open = at({ dialog: { kind: 'follow-up', agent: 'claude', text: '   ' } });
    expect(reduce(open, { type: 'confirm' }, settled())).toEqual({ state: open, effect: null });
  });

  it('refuses a follow-up while an agent still runs, and for an agent without a branch', () => {
    const running = reduce(start, { type: 'follow-up' }, context());
    expect(running.state.dialog).toBeNull();
    expect(running.state.notice?.text).toBe('A follow-up starts once every agent has settled.');
    const noBranch = reduce(at({ focus: 1 }), { type: 'rerun' }, settled());
    expect(noBranch.effect).toBeNull();
    expect(noBranch.state.notice?.text).toContain('Codex has no branch to work on');
  });

  it('refuses every round once a result is merged', () => {
    const merged = reduce(start, { type: 'shell' }, settled({ merged: true }));
    expect(merged.effect).toBeNull();
    expect(merged.state.notice?.tone).toBe('warn');
  });

  it('reruns the focused agent on r and opens its shell on s', () => {
    expect(reduce(start, { type: 'rerun' }, settled()).effect).toEqual({
      kind: 'round',
      request: { kind: 'rerun', agent: 'claude' },
    });
    expect(reduce(start, { type: 'shell' }, settled()).effect).toEqual({ kind: 'shell', agent: 'claude' });
  });
});
