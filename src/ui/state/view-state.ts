/**
 * The dashboard's own state (which view, which pane has focus, scroll offsets, dialogs) and the
 * pure reducer that changes it. The reducer never touches the race: when an action needs the
 * engine (stop an agent, merge, quit), it returns an `Effect` that the app carries out and whose
 * outcome comes back as another action.
 */
import { assertNever } from '../../core/events.js';
import type { AgentName } from '../../engine/index.js';
import { isRunning, statusLabel } from '../text/index.js';

export type {
  View,
  Dialog,
  Busy,
  Notice,
  Outcome,
  Scroll,
  ViewState,
  ViewContext,
  Action,
  Effect,
  Transition,
} from './view-types.js';
import type {
  View,
  Notice,
  Scroll,
  ViewState,
  ViewContext,
  Action,
  Effect,
  Transition,
} from './view-types.js';

export const initialViewState = (): ViewState => ({
  view: 'panes',
  focus: 0,
  scroll: 0,
  dialog: null,
  busy: null,
  notice: null,
  outcome: null,
});

/** What the reducer needs to know about the race and the current screen. */
const stay = (state: ViewState): Transition => ({ state, effect: null });
const to = (state: ViewState, effect: Effect | null = null): Transition => ({ state, effect });

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

const maxScroll = (context: ViewContext): number => Math.max(0, context.contentLines - context.pageLines);

/** The scroll offset as a line number, resolving 'end'. */
export const resolveScroll = (scroll: Scroll, contentLines: number, pageLines: number): number =>
  scroll === 'end'
    ? Math.max(0, contentLines - pageLines)
    : clamp(scroll, 0, Math.max(0, contentLines - pageLines));

const scrollTo = (state: ViewState, line: number, context: ViewContext): ViewState => {
  const max = maxScroll(context);
  const next = clamp(line, 0, max);
  // At the bottom of the detail log, follow new events as they arrive.
  return { ...state, scroll: state.view === 'detail' && next >= max ? 'end' : next };
};

const focusedAgent = (state: ViewState, context: ViewContext) => context.agents[state.focus];

const runningAgents = (context: ViewContext): AgentName[] =>
  context.agents.filter((agent) => isRunning(agent.status)).map((agent) => agent.agent);

/** Entering a view or moving focus inside one resets its scroll; the diff view loads its patch. */
const enter = (state: ViewState, view: View, focus: number, context: ViewContext): Transition => {
  const agent = context.agents[focus];
  // The detail view opens at its top: status, branch, worktree and diff summary first.
  const next: ViewState = { ...state, view, focus, scroll: 0, notice: keepNotice(state.notice) };
  if (view === 'diff' && agent !== undefined) return to(next, { kind: 'load-patch', agent: agent.agent });
  return to(next);
};

const moveFocus = (state: ViewState, focus: number, context: ViewContext): Transition => {
  if (context.agents.length === 0) return stay(state);
  const wrapped = ((focus % context.agents.length) + context.agents.length) % context.agents.length;
  if (state.view === 'detail' || state.view === 'diff') return enter(state, state.view, wrapped, context);
  return to({ ...state, focus: wrapped, notice: keepNotice(state.notice) });
};

/** Moving around clears a notice, except one that lasts while an agent stops. */
const keepNotice = (notice: Notice | null): Notice | null =>
  notice?.whileRunning === undefined ? null : notice;

const requestMerge = (state: ViewState, context: ViewContext): Transition => {
  const agent = focusedAgent(state, context);
  if (agent === undefined) return stay(state);
  if (context.merged)
    return to({ ...state, notice: { text: 'A result was already merged in this race.', tone: 'warn' } });
  if (agent.status !== 'completed') {
    const text = `${agent.displayName} cannot be merged: it is ${statusLabel(agent.status)}, only a completed agent's result can be merged.`;
    return to({ ...state, notice: { text, tone: 'warn' } });
  }
  if (typeof context.detachedAt === 'string') {
    const at = context.detachedAt.slice(0, 12);
    const text = `This race started on a detached HEAD (${at}): there is no branch to merge into. Quit, create one with \`git switch -c <branch> ${at}\`, then \`hydra merge last ${agent.agent}\` there.`;
    return to({ ...state, notice: { text, tone: 'warn' } });
  }
  return to({ ...state, dialog: { kind: 'merge', agent: agent.agent }, notice: null });
};

const requestStop = (state: ViewState, context: ViewContext): Transition => {
  const agent = focusedAgent(state, context);
  if (agent === undefined) return stay(state);
  if (!isRunning(agent.status)) {
    return to({
      ...state,
      notice: { text: `${agent.displayName} is not running (${statusLabel(agent.status)}).`, tone: 'warn' },
    });
  }
  // Stopping discards what the agent did so far: ask first.
  return to({ ...state, dialog: { kind: 'stop', agent: agent.agent }, notice: null });
};

/** The stop, once confirmed: the notice stays until the agent has stopped. */
const stopConfirmed = (state: ViewState, agent: AgentName, context: ViewContext): Transition => {
  const target = context.agents.find((candidate) => candidate.agent === agent);
  if (target === undefined || !isRunning(target.status)) return to({ ...state, dialog: null });
  return to(
    {
      ...state,
      dialog: null,
      notice: { text: `Stopping ${target.displayName}…`, tone: 'info', whileRunning: agent },
    },
    { kind: 'stop', agent },
  );
};

/** Clears a notice that lasts while an agent runs, once that agent has stopped. */
const agentsChanged = (state: ViewState, context: ViewContext): Transition => {
  const watched = state.notice?.whileRunning;
  if (watched === undefined) return stay(state);
  const agent = context.agents.find((candidate) => candidate.agent === watched);
  if (agent !== undefined && isRunning(agent.status)) return stay(state);
  // Its result was in before the stop reached it (issue 36): the stop changed nothing, say so.
  const late =
    agent?.status === 'completed'
      ? `${agent.displayName} had finished before the stop: its result is kept.`
      : null;
  return to({ ...state, notice: late === null ? null : { text: late, tone: 'info' } });
};

/**
 * Why another round (or a shell) cannot start for the focused agent now, or null. Rounds start once
 * every agent has settled, on an agent with a branch, before a merge.
 */
const roundRefusal = (
  context: ViewContext,
  agent: ViewContext['agents'][number],
  what: string,
): string | null => {
  if (context.merged) return `A result was already merged in this race: no ${what} now.`;
  if (runningAgents(context).length > 0) return `A ${what} starts once every agent has settled.`;
  if (agent.status === 'skipped' || agent.branch === null)
    return `${agent.displayName} has no branch to work on (${statusLabel(agent.status)}).`;
  return null;
};

const requestRound = (
  state: ViewState,
  context: ViewContext,
  kind: 'follow-up' | 'rerun' | 'shell',
): Transition => {
  const agent = focusedAgent(state, context);
  if (agent === undefined) return stay(state);
  const what = kind === 'follow-up' ? 'follow-up' : kind === 'rerun' ? 'rerun' : 'shell';
  const refusal = roundRefusal(context, agent, what);
  if (refusal !== null) return to({ ...state, notice: { text: refusal, tone: 'warn' } });
  switch (kind) {
    case 'follow-up':
      return to({ ...state, dialog: { kind: 'follow-up', agent: agent.agent, text: '' }, notice: null });
    case 'rerun':
      return to(
        {
          ...state,
          notice: {
            text: `Running ${agent.displayName} again from the base…`,
            tone: 'info',
            whileRound: true,
          },
        },
        { kind: 'round', request: { kind: 'rerun', agent: agent.agent } },
      );
    case 'shell':
      return to({ ...state, notice: null }, { kind: 'shell', agent: agent.agent });
    default:
      return assertNever(kind);
  }
};

/** What was typed into the prompt line: printable text only (a pasted newline becomes a space). */
const typed = (state: ViewState, text: string): Transition => {
  const dialog = state.dialog;
  if (dialog?.kind !== 'follow-up') return stay(state);
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\r\n\t]/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
  if (clean === '') return stay(state);
  return to({ ...state, dialog: { ...dialog, text: dialog.text + clean } });
};

const erased = (state: ViewState): Transition => {
  const dialog = state.dialog;
  if (dialog?.kind !== 'follow-up' || dialog.text === '') return stay(state);
  return to({ ...state, dialog: { ...dialog, text: [...dialog.text].slice(0, -1).join('') } });
};

const requestQuit = (state: ViewState, context: ViewContext): Transition => {
  const running = runningAgents(context).length > 0;
  const unmergedResults = !context.merged && context.agents.some((agent) => agent.status === 'completed');
  if (running || unmergedResults) return to({ ...state, dialog: { kind: 'quit' }, notice: null });
  return to(
    { ...state, busy: { kind: 'quitting', cancelling: false }, notice: null },
    { kind: 'quit', cancel: false },
  );
};

const cancel = (state: ViewState, context: ViewContext): Transition => {
  if (state.busy?.kind === 'quitting') return stay(state);
  if (state.busy?.kind === 'merging') {
    return to({
      ...state,
      notice: { text: 'A merge is in progress; hydra exits when it is done.', tone: 'warn' },
    });
  }
  const cancelling = runningAgents(context).length > 0;
  return to(
    { ...state, dialog: null, busy: { kind: 'quitting', cancelling }, notice: null },
    { kind: 'quit', cancel: cancelling },
  );
};

const confirm = (state: ViewState, context: ViewContext, discardOthers: boolean): Transition => {
  const dialog = state.dialog;
  if (dialog === null) return stay(state);
  switch (dialog.kind) {
    case 'merge': {
      const stopFirst = runningAgents(context).filter((agent) => agent !== dialog.agent);
      return to(
        { ...state, dialog: null, busy: { kind: 'merging', agent: dialog.agent }, notice: null },
        { kind: 'merge', agent: dialog.agent, stopFirst, discardOthers },
      );
    }
    case 'stop':
      return discardOthers ? stay(state) : stopConfirmed(state, dialog.agent, context);
    case 'quit': {
      // Only the merge dialog has a second yes.
      if (discardOthers) return stay(state);
      const cancelling = runningAgents(context).length > 0;
      return to(
        { ...state, dialog: null, busy: { kind: 'quitting', cancelling } },
        { kind: 'quit', cancel: cancelling },
      );
    }
    case 'follow-up': {
      const prompt = dialog.text.trim();
      if (prompt === '') return stay(state);
      const name = context.agents.find((agent) => agent.agent === dialog.agent)?.displayName ?? dialog.agent;
      return to(
        {
          ...state,
          dialog: null,
          notice: { text: `Follow-up sent to ${name}.`, tone: 'info', whileRound: true },
        },
        { kind: 'round', request: { kind: 'follow_up', agent: dialog.agent, prompt } },
      );
    }
    default:
      return assertNever(dialog);
  }
};

const back = (state: ViewState): Transition => {
  if (state.dialog !== null) return to({ ...state, dialog: null });
  if (state.view !== 'panes') return to({ ...state, view: 'panes', scroll: 0, notice: null });
  if (state.notice !== null) return to({ ...state, notice: null });
  return stay(state);
};

const jumpFile = (state: ViewState, direction: 1 | -1, context: ViewContext): Transition => {
  if (state.view !== 'diff' || context.fileStarts.length === 0) return stay(state);
  const current = resolveScroll(state.scroll, context.contentLines, context.pageLines);
  const starts = context.fileStarts;
  const target =
    direction === 1
      ? starts.find((start) => start > current)
      : [...starts].reverse().find((start) => start < current);
  if (target === undefined) return stay(state);
  return to(scrollTo(state, target, context));
};

/** ↑/↓ in the compare view: the row above or below the focused one, as the table sorts them. */
const selectRow = (state: ViewState, by: 1 | -1, context: ViewContext): Transition => {
  const order = context.compareOrder ?? context.agents.map((_, index) => index);
  const at = order.indexOf(state.focus);
  if (state.view !== 'compare' || order.length === 0 || at === -1)
    return moveFocus(state, state.focus + by, context);
  const next = order[(((at + by) % order.length) + order.length) % order.length];
  return next === undefined ? stay(state) : moveFocus(state, next, context);
};

const scrollable = (state: ViewState): boolean => state.view === 'detail' || state.view === 'diff';

/** The one place the dashboard's state changes. */
export const reduce = (state: ViewState, action: Action, context: ViewContext): Transition => {
  if (state.outcome !== null) return stay(state);
  switch (action.type) {
    case 'none':
      return stay(state);
    case 'focus-next':
      return moveFocus(state, state.focus + 1, context);
    case 'focus-prev':
      return moveFocus(state, state.focus - 1, context);
    case 'select-row':
      return selectRow(state, action.by, context);
    case 'focus-index':
      return action.index >= 0 && action.index < context.agents.length
        ? moveFocus(state, action.index, context)
        : stay(state);
    case 'open-detail':
      return context.agents.length === 0 ? stay(state) : enter(state, 'detail', state.focus, context);
    case 'open-diff':
      return context.agents.length === 0 ? stay(state) : enter(state, 'diff', state.focus, context);
    case 'open-compare':
      return to({ ...state, view: 'compare', scroll: 0, notice: null });
    case 'back':
      return back(state);
    case 'scroll': {
      if (!scrollable(state)) return stay(state);
      const current = resolveScroll(state.scroll, context.contentLines, context.pageLines);
      return to(scrollTo(state, current + action.by, context));
    }
    case 'scroll-page': {
      if (!scrollable(state)) return stay(state);
      const current = resolveScroll(state.scroll, context.contentLines, context.pageLines);
      const page = Math.max(1, context.pageLines - 1);
      return to(scrollTo(state, current + action.direction * page, context));
    }
    case 'scroll-edge':
      if (!scrollable(state)) return stay(state);
      return to(scrollTo(state, action.edge === 'top' ? 0 : maxScroll(context), context));
    case 'file':
      return jumpFile(state, action.direction, context);
    case 'stop':
      return requestStop(state, context);
    case 'merge':
      return requestMerge(state, context);
    case 'quit':
      return requestQuit(state, context);
    case 'cancel':
      return cancel(state, context);
    case 'confirm':
      return confirm(state, context, action.discardOthers === true);
    case 'decline':
      return to({ ...state, dialog: null });
    case 'merge-succeeded':
      return to({ ...state, busy: null, outcome: { kind: 'merged', result: action.result } });
    case 'merge-failed':
      return to({ ...state, busy: null, notice: { text: action.message, tone: 'error' } });
    case 'quit-finished':
      return to({
        ...state,
        busy: null,
        outcome: {
          kind: 'quit',
          cancelled: action.cancelled,
          ...(action.problem === undefined ? {} : { problem: action.problem }),
        },
      });
    case 'finish':
      if (state.busy !== null) return stay(state);
      return to(
        { ...state, dialog: null, busy: { kind: 'quitting', cancelling: false } },
        { kind: 'quit', cancel: false },
      );
    case 'agents-changed':
      return agentsChanged(state, context);
    case 'follow-up':
      return requestRound(state, context, 'follow-up');
    case 'rerun':
      return requestRound(state, context, 'rerun');
    case 'shell':
      return requestRound(state, context, 'shell');
    case 'prompt-type':
      return typed(state, action.text);
    case 'prompt-erase':
      return erased(state);
    case 'round-failed':
      return to({ ...state, notice: { text: action.message, tone: 'error' } });
    case 'round-finished':
      return state.notice?.whileRound === true ? to({ ...state, notice: null }) : stay(state);
    case 'shell-finished':
      return to({ ...state, notice: { text: action.message, tone: action.tone } });
    case 'race-ended':
      return state.busy === null
        ? to({ ...state, dialog: null, outcome: { kind: 'race-ended' } })
        : stay(state);
    default:
      return assertNever(action);
  }
};
