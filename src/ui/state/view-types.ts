/**
 * The dashboard's view state and what changes it: the shapes (views, dialogs, notices, actions,
 * effects) that view-state.ts's reducer and the components share.
 */
import type { AgentName, AgentStatus, MergeResult, RoundRequest } from '../../engine/index.js';

export type View = 'panes' | 'detail' | 'diff' | 'compare';

export type Dialog =
  | { kind: 'merge'; agent: AgentName }
  | { kind: 'stop'; agent: AgentName }
  | { kind: 'quit' }
  /** The prompt line of a follow-up (`f`): what has been typed so far. */
  | { kind: 'follow-up'; agent: AgentName; text: string };

export type Busy = { kind: 'merging'; agent: AgentName } | { kind: 'quitting'; cancelling: boolean };

export interface Notice {
  text: string;
  tone: 'info' | 'warn' | 'error';
  /** Shown while this agent still runs ("Stopping Codex..."), cleared once it has stopped. */
  whileRunning?: AgentName;
  /** Shown while a round (a rerun, a follow-up) runs, cleared once it has ended. */
  whileRound?: true;
}

/** How the dashboard ended; once set, the app exits. */
export type Outcome =
  | { kind: 'merged'; result: MergeResult }
  | { kind: 'quit'; cancelled: boolean; problem?: string }
  | { kind: 'race-ended' };

/** Scroll position of the detail and diff views: a line offset, or following the end. */
export type Scroll = number | 'end';

export interface ViewState {
  view: View;
  focus: number;
  scroll: Scroll;
  dialog: Dialog | null;
  busy: Busy | null;
  notice: Notice | null;
  outcome: Outcome | null;
}

export interface ViewContext {
  agents: ReadonlyArray<{
    agent: AgentName;
    displayName: string;
    status: AgentStatus;
    /** The agent's branch; null when it has none to continue or open (never made, or removed). */
    branch?: string | null;
  }>;
  /** Whether a merge already happened (then quitting needs no confirmation). */
  merged: boolean;
  /** Lines in the current scrollable view (detail, diff) and how many are visible at once. */
  contentLines: number;
  pageLines: number;
  /** Line offsets where each file starts in the diff view. */
  fileStarts: readonly number[];
  /** The commit the race started from, when that was a detached HEAD (nothing to merge into). */
  detachedAt?: string | null;
  /** The compare view's rows, top to bottom, as agent indexes (sorted by score once scored). */
  compareOrder?: readonly number[];
}

export type Action =
  | { type: 'none' }
  | { type: 'focus-next' }
  | { type: 'focus-prev' }
  | { type: 'focus-index'; index: number }
  /** The next or previous row of the compare view (its rows are sorted, not in pane order). */
  | { type: 'select-row'; by: 1 | -1 }
  | { type: 'open-detail' }
  | { type: 'open-diff' }
  | { type: 'open-compare' }
  | { type: 'back' }
  | { type: 'scroll'; by: number }
  | { type: 'scroll-page'; direction: 1 | -1 }
  | { type: 'scroll-edge'; edge: 'top' | 'end' }
  | { type: 'file'; direction: 1 | -1 }
  | { type: 'stop' }
  | { type: 'merge' }
  | { type: 'quit' }
  | { type: 'cancel' }
  /** Yes to the open dialog; in the merge dialog, `discardOthers` also removes the other results. */
  | { type: 'confirm'; discardOthers?: boolean }
  | { type: 'decline' }
  | { type: 'merge-succeeded'; result: MergeResult }
  | { type: 'merge-failed'; message: string }
  | { type: 'quit-finished'; cancelled: boolean; problem?: string }
  | { type: 'race-ended' }
  /** The agents' statuses changed (the app sends it with each new snapshot). */
  | { type: 'agents-changed' }
  /** Ends a settled race without asking (no keyboard to ask with). */
  | { type: 'finish' }
  | { type: 'follow-up' }
  | { type: 'prompt-type'; text: string }
  | { type: 'prompt-erase' }
  | { type: 'rerun' }
  | { type: 'shell' }
  | { type: 'round-failed'; message: string }
  /** A round the dashboard started has ended (its notice goes). */
  | { type: 'round-finished' }
  | { type: 'shell-finished'; message: string; tone: Notice['tone'] };

export type Effect =
  | { kind: 'stop'; agent: AgentName }
  /**
   * Stop `stopFirst` (still running), wait for the race to settle, then merge `agent`; the other
   * results stay unless `discardOthers`.
   */
  | { kind: 'merge'; agent: AgentName; stopFirst: AgentName[]; discardOthers: boolean }
  /** Cancel the race when agents still run, then finish it (clean-up) and exit. */
  | { kind: 'quit'; cancel: boolean }
  | { kind: 'load-patch'; agent: AgentName }
  /** Another round for a settled agent: a follow-up prompt or a rerun. */
  | { kind: 'round'; request: RoundRequest }
  /** Suspend the dashboard and open the user's shell in the agent's worktree. */
  | { kind: 'shell'; agent: AgentName };

export interface Transition {
  state: ViewState;
  effect: Effect | null;
}
