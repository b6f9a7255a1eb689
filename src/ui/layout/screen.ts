/**
 * Lays out the whole dashboard for a terminal size: which lines go where, how tall each part is.
 * Pure, so the layout rules (side by side or stacked, the live area always shorter than the
 * terminal) are tested without rendering, and the components only draw what this returns.
 */
import { assertNever } from '../../core/events.js';
import type { AgentName, AgentSnapshot, RaceSnapshot } from '../../engine/index.js';
import {
  dialogLines,
  endedLines,
  footerLine,
  headerLines,
  mergedLines,
  NOTICE_LINES,
  noticeLines,
} from './chrome-lines.js';
import {
  agentElapsed,
  formatCost,
  formatDiff,
  formatDuration,
  isRunning,
  statusLabel,
  statusSymbol,
  statusTone,
} from '../text/index.js';
import { fitLine, seg, type Line } from './lines.js';
import { paneLines, titleLine } from './pane-lines.js';
import type { Theme } from '../text/index.js';
import { compareLines, detailLines, diffView, type PatchState } from './view-lines.js';
import { resolveScroll, type ViewState } from '../state/index.js';

/** Narrowest pane worth putting side by side with others. */
const MIN_PANE_WIDTH = 40;
/** Shortest grid cell (borders included) worth a grid instead of stacked rows. */
const MIN_GRID_HEIGHT = 7;
/** Lines a stacked pane keeps while a dialog is open: its border and its title. */
const MIN_STACKED_HEIGHT = 2;
/** Smallest terminal the layout plans for; smaller ones are drawn as if this size, clipped. */
const MIN_COLUMNS = 20;
const MIN_ROWS = 6;

export interface ScreenInput {
  snapshot: RaceSnapshot;
  state: ViewState;
  now: number;
  columns: number;
  rows: number;
  theme: Theme;
  patches: Partial<Record<AgentName, PatchState>>;
  keepWorktrees: boolean;
  /** Said in the header, on every screen (`simulated agents` for `hydra demo --here`). */
  marker?: string;
}

export interface PaneBox {
  agent: AgentName;
  focused: boolean;
  /** Outer size, borders included. */
  width: number;
  height: number;
  lines: Line[];
}

export type Body =
  /** Grid: `perRow` panes a row (side by side: all in one row; stacked: one a row). */
  | { kind: 'panes'; mode: PaneMode; perRow: number; panes: PaneBox[] }
  | { kind: 'scroll'; title: Line; lines: Line[]; height: number }
  | { kind: 'final'; lines: Line[] };

export interface Screen {
  columns: number;
  /** Total height of the live area; always below the terminal's height. */
  height: number;
  header: Line[];
  body: Body;
  /** Inner lines of the dialog box (drawn with a border), or null. */
  dialog: Line[] | null;
  notices: Line[];
  footer: Line | null;
  /** What the reducer needs for scrolling the current view. */
  scroll: { contentLines: number; pageLines: number; fileStarts: number[] };
}

const NO_SCROLL = { contentLines: 0, pageLines: 0, fileStarts: [] };

const focusedAgent = (input: ScreenInput): AgentSnapshot | undefined =>
  input.snapshot.agents[input.state.focus];

export type PaneMode = 'side-by-side' | 'grid' | 'stacked';

/**
 * Side by side while every pane gets MIN_PANE_WIDTH columns; for four agents or more, a grid of
 * two or three columns (as many as fit) when its cells are tall enough; else stacked rows.
 */
export const paneLayout = (
  columns: number,
  agentCount: number,
  height = Number.POSITIVE_INFINITY,
): { mode: PaneMode; perRow: number } => {
  if (agentCount > 0 && Math.floor(columns / agentCount) >= MIN_PANE_WIDTH)
    return { mode: 'side-by-side', perRow: agentCount };
  if (agentCount >= 4) {
    for (const perRow of [3, 2]) {
      const rows = Math.ceil(agentCount / perRow);
      // Three columns only when they are needed to fit (four agents make a 2×2 grid).
      if (perRow === 3 && agentCount === 4) continue;
      if (Math.floor(columns / perRow) >= MIN_PANE_WIDTH && Math.floor(height / rows) >= MIN_GRID_HEIGHT)
        return { mode: 'grid', perRow };
    }
  }
  return { mode: 'stacked', perRow: 1 };
};

export const paneMode = (columns: number, agentCount: number, height?: number): PaneMode =>
  paneLayout(columns, agentCount, height).mode;

/** Splits `total` into `parts` sizes that differ by at most one, the larger ones first. */
const split = (total: number, parts: number, index: number): number =>
  Math.floor(total / parts) + (index < total % parts ? 1 : 0);

/**
 * One pane's outer size: a cell of the grid or a column side by side, every pane of a row as wide
 * as the others (200 columns make three of 66, not 67, 67 and 66: a narrower last column reads as
 * a fault; the one or two columns left over stay blank at the right), rows split as evenly as they
 * go; or a band of the stack.
 */
const paneSize = (
  mode: PaneMode,
  perRow: number,
  index: number,
  count: number,
  columns: number,
  height: number,
): { width: number; height: number } => {
  if (mode === 'grid') {
    const row = Math.floor(index / perRow);
    const inRow = Math.min(perRow, count - row * perRow);
    return {
      width: Math.floor(columns / inRow),
      height: split(height, Math.ceil(count / perRow), row),
    };
  }
  if (mode === 'side-by-side') return { width: Math.floor(columns / count), height };
  return { width: columns, height: split(height, count, index) };
};

const panesBody = (input: ScreenInput, columns: number, height: number): Body => {
  const { snapshot, theme, now, state } = input;
  const agents = snapshot.agents;
  const { mode, perRow } = paneLayout(columns, agents.length, height);
  if (agents.length === 0) {
    return {
      kind: 'scroll',
      title: [seg(`waiting for the race to start${theme.symbols.ellipsis}`, 'muted')],
      lines: [],
      height,
    };
  }
  const panes: PaneBox[] = agents.map((agent, index) => {
    const focused = index === state.focus;
    const size = paneSize(mode, perRow, index, agents.length, columns, height);
    // A stacked pane has one rule above it; the others a border all round and a space each side.
    const compact = mode === 'stacked';
    const lines = paneLines(agent, {
      index,
      focused,
      now,
      theme,
      width: compact ? size.width : size.width - 4,
      height: size.height - (compact ? 1 : 2),
      compact,
    });
    return { agent: agent.agent, focused, ...size, lines };
  });
  return { kind: 'panes', mode, perRow, panes };
};

const scrollBody = (
  input: ScreenInput,
  title: Line,
  content: Line[],
  height: number,
  fileStarts: number[] = [],
  /** Lines that are content (the rest is padding that lets the last file scroll to the top). */
  realLines: number = content.length,
): { body: Body; scroll: Screen['scroll']; position: string } => {
  const pageLines = Math.max(0, height - 1);
  const offset = resolveScroll(input.state.scroll, content.length, pageLines);
  const visible = content.slice(offset, offset + pageLines);
  const last = Math.min(realLines, offset + pageLines);
  const position =
    content.length <= pageLines
      ? `${realLines} lines`
      : `${Math.min(offset + 1, realLines)}-${last} of ${realLines}`;
  return {
    body: { kind: 'scroll', title, lines: visible, height },
    scroll: { contentLines: content.length, pageLines, fileStarts },
    position,
  };
};

const viewTitle = (agent: AgentSnapshot, input: ScreenInput, label: string): Line => [
  ...titleLine(agent, { index: input.state.focus, focused: true, theme: input.theme }),
  seg(` ${input.theme.symbols.dot} ${label}`, 'muted', true),
];

/** One line per agent for the final screen. */
const summaryLine = (agent: AgentSnapshot, input: ScreenInput): Line => {
  const { theme, now } = input;
  const elapsed = agentElapsed(agent, now);
  const outcome =
    agent.status === 'completed' && agent.diff !== null ? formatDiff(agent.diff) : (agent.error?.kind ?? '');
  // The race is over: an agent still marked as waiting or running never finished.
  const unfinished = isRunning(agent.status);
  const label = unfinished
    ? agent.startedAt === null
      ? 'not started'
      : 'stopped'
    : statusLabel(agent.status);
  return [
    seg(
      `${unfinished ? theme.symbols.stopped : statusSymbol(agent.status, theme.symbols, 0)} `,
      unfinished ? 'warn' : statusTone(agent.status),
    ),
    seg(agent.displayName, null, true),
    seg(` ${label}`, unfinished ? 'warn' : statusTone(agent.status)),
    seg(elapsed === null ? '' : ` ${formatDuration(elapsed)}`),
    seg(outcome === '' ? '' : ` ${theme.symbols.dot} ${outcome}`),
    seg(` ${theme.symbols.dot} ${formatCost(agent.usage)}`, 'muted'),
  ];
};

const finalBody = (input: ScreenInput, columns: number, room: number): Body | null => {
  const { state, snapshot, theme } = input;
  const outcome = state.outcome;
  if (outcome === null) return null;
  const summaries = snapshot.agents.map((agent) =>
    fitLine(summaryLine(agent, input), columns, theme.symbols.ellipsis),
  );
  switch (outcome.kind) {
    case 'merged':
      return {
        kind: 'final',
        // Every agent's line stays (a rerun's too): the list of removed paths gives way.
        lines: [
          ...mergedLines(outcome.result, snapshot, theme, columns, room - summaries.length),
          ...summaries,
        ],
      };
    case 'quit':
      return {
        kind: 'final',
        lines: [
          ...endedLines(snapshot, outcome.cancelled, theme, columns, input.keepWorktrees, outcome.problem),
          ...summaries,
        ],
      };
    case 'race-ended':
      return {
        kind: 'final',
        lines: [
          ...endedLines(snapshot, snapshot.phase === 'cancelled', theme, columns, input.keepWorktrees),
          ...summaries,
        ],
      };
    default:
      return assertNever(outcome);
  }
};

/** Keeps a dialog's title and answer line, cutting its body to fit `room` lines. */
const fitDialog = (lines: Line[], room: number, theme: Theme): Line[] => {
  if (lines.length <= room) return lines;
  const first = lines[0] ?? [];
  const last = lines.at(-1) ?? [];
  if (room <= 2) return [first, last].slice(0, Math.max(1, room));
  const body = lines.slice(1, -1).slice(0, room - 2);
  const cut = body.at(-1);
  if (cut !== undefined) body[body.length - 1] = [...cut, seg(theme.symbols.ellipsis, 'muted')];
  return [first, ...body, last];
};

/** The phase to show once the dashboard is done (the last snapshot may lag behind). */
const outcomeLabel = (state: ViewState): string | undefined => {
  switch (state.outcome?.kind) {
    case 'merged':
      return 'merged';
    case 'quit':
      return state.outcome.cancelled ? 'cancelled' : 'finished';
    case 'race-ended':
    case undefined:
      return undefined;
    default:
      return assertNever(state.outcome);
  }
};

export const buildScreen = (input: ScreenInput): Screen => {
  const { snapshot, state, theme, now } = input;
  const columns = Math.max(MIN_COLUMNS, input.columns);
  // Ink clears the whole screen when its output reaches the terminal's height: stay one below.
  const height = Math.max(MIN_ROWS, input.rows) - 1;
  // On a very short terminal the header keeps its first two lines (title and counts).
  const allHeader = headerLines(snapshot, now, theme, columns, undefined, input.marker);
  const header = height < 12 ? allHeader.slice(0, 2) : allHeader;

  // The final lines say what went wrong themselves: the header keeps its title and counts.
  const finalHeader =
    state.outcome === null
      ? []
      : headerLines(snapshot, now, theme, columns, outcomeLabel(state), input.marker).slice(0, 2);
  const room = Math.max(1, height - finalHeader.length);
  const final = finalBody(input, columns, room);
  if (final !== null && final.kind === 'final') {
    const lines = final.lines.slice(0, room);
    return {
      columns,
      height: finalHeader.length + lines.length,
      header: finalHeader,
      body: { kind: 'final', lines },
      dialog: null,
      notices: [],
      footer: null,
      scroll: NO_SCROLL,
    };
  }

  // The busy line and the notice (up to NOTICE_LINES, on a short terminal one line less).
  const noticeRoom = height < 12 ? NOTICE_LINES : NOTICE_LINES + 1;
  const notices = noticeLines(state.notice, state.busy, snapshot, theme, columns).slice(0, noticeRoom);
  const fullDialog =
    state.dialog === null
      ? null
      : dialogLines(state.dialog, snapshot, theme, columns - 4, { keepWorktrees: input.keepWorktrees });
  // The panes keep their titles under a dialog: side-by-side ones their borders, title and
  // status; others a border and a title line each (a grid too short for its cells is stacked).
  const bodyRoom = height - header.length - notices.length - 1;
  const keptForPanes =
    state.view !== 'panes' || snapshot.agents.length === 0
      ? 0
      : paneLayout(columns, snapshot.agents.length, bodyRoom).mode === 'side-by-side'
        ? 4
        : snapshot.agents.length * MIN_STACKED_HEIGHT;
  const dialog =
    fullDialog === null
      ? null
      : fitDialog(fullDialog, height - header.length - notices.length - 1 - 2 - keptForPanes, theme);
  const dialogHeight = dialog === null ? 0 : dialog.length + 2;
  const footerHeight = 1;
  const bodyHeight = Math.max(0, height - header.length - notices.length - dialogHeight - footerHeight);
  const agent = focusedAgent(input);

  let body: Body;
  let scroll: Screen['scroll'] = NO_SCROLL;
  let position: string | null = null;
  switch (state.view) {
    case 'panes':
      body = panesBody(input, columns, bodyHeight);
      break;
    case 'compare': {
      const lines = compareLines(snapshot, state.focus, now, theme, columns);
      body = {
        kind: 'scroll',
        title: [seg('Compare', 'accent', true), seg(` ${theme.symbols.dot} all agents`, 'muted')],
        lines: lines.slice(0, Math.max(0, bodyHeight - 1)),
        height: bodyHeight,
      };
      break;
    }
    case 'detail': {
      if (agent === undefined) {
        body = panesBody(input, columns, bodyHeight);
        break;
      }
      const result = scrollBody(
        input,
        viewTitle(agent, input, 'detail'),
        detailLines(agent, now, theme, columns, input.snapshot.runId),
        bodyHeight,
      );
      ({ body, scroll, position } = result);
      break;
    }
    case 'diff': {
      if (agent === undefined) {
        body = panesBody(input, columns, bodyHeight);
        break;
      }
      const diff = diffView(input.patches[agent.agent], theme, columns);
      const pageLines = Math.max(0, bodyHeight - 1);
      // Blank lines after the patch let n/p bring even the last file to the top of the view.
      const lastStart = diff.fileStarts.at(-1) ?? 0;
      const realLines = diff.lines.length;
      while (diff.lines.length < lastStart + pageLines) diff.lines.push([]);
      const offset = resolveScroll(state.scroll, diff.lines.length, pageLines);
      const fileIndex = diff.fileStarts.filter((start) => start <= offset).length - 1;
      const fileLabel =
        diff.files.length === 0
          ? 'diff'
          : `diff ${theme.symbols.dot} file ${Math.max(1, fileIndex + 1)}/${diff.files.length}: ${diff.files[Math.max(0, fileIndex)] ?? ''}`;
      const result = scrollBody(
        input,
        viewTitle(agent, input, fileLabel),
        diff.lines,
        bodyHeight,
        diff.fileStarts,
        realLines,
      );
      ({ body, scroll, position } = result);
      break;
    }
    default:
      body = assertNever(state.view);
  }
  if (body.kind === 'scroll') body = { ...body, title: fitLine(body.title, columns, theme.symbols.ellipsis) };
  const anyRunning = snapshot.agents.some((agent) => isRunning(agent.status));
  // As the engine decides: rounds and shells once the race reviews (every agent settled, its
  // result committed), before a merge, for an agent with a branch.
  const canRound =
    snapshot.phase === 'reviewing' &&
    !anyRunning &&
    snapshot.merge === null &&
    agent !== undefined &&
    agent.status !== 'skipped' &&
    agent.branch !== null;
  const footer = footerLine(
    state.view,
    theme,
    columns,
    snapshot.agents.length,
    position,
    anyRunning,
    canRound,
    snapshot.merge !== null,
  );
  return { columns, height, header, body, dialog, notices, footer, scroll };
};
