/**
 * Header, footer, notices and dialogs: the lines around the panes.
 */
import { assertNever } from '../../core/events.js';
import type { AgentName, AgentSnapshot, MergeResult, RaceSnapshot } from '../../engine/index.js';
import {
  fileCount,
  formatDiff,
  formatDuration,
  isRunning,
  mergeMethodLabel,
  phaseLabel,
  raceCounts,
  shortRef,
} from '../text/index.js';
import { fitLine, lineText, lineWidth, seg, spread, wrapLines, type Line } from './lines.js';
import type { Theme } from '../text/index.js';
import { displayWidth, oneLine, plainEllipsis, sanitize, wrap } from '../text/index.js';
import { dialogHints, footerHints } from '../state/index.js';
import type { Busy, Dialog, KeyHint, Notice, View } from '../state/index.js';

/** A recorded run being reopened: what it checks before its review is not a new race's probing. */
const reopening = (snapshot: RaceSnapshot): boolean =>
  snapshot.reopened === true &&
  (snapshot.phase === 'checking_repo' ||
    snapshot.phase === 'probing' ||
    snapshot.phase === 'creating_worktrees');

export const headerLines = (
  snapshot: RaceSnapshot,
  now: number,
  theme: Theme,
  width: number,
  phaseOverride?: string,
  /** Said after the name (`hydra demo --here`: simulated agents). */
  marker?: string,
): Line[] => {
  const { symbols } = theme;
  const ellipsis = symbols.ellipsis;
  const base = snapshot.baseBranch ?? 'detached';
  // A reopened run that is only reviewed took what it took: its clock does not run on.
  const elapsed = formatDuration(Math.max(0, (snapshot.endedAt ?? now) - snapshot.startedAt));
  const right: Line = [
    seg(
      `run ${snapshot.runId} ${symbols.dot} ${base}@${shortRef(snapshot.baseRef)} ${symbols.dot} `,
      'muted',
    ),
    seg(elapsed, null, true),
  ];
  const left: Line = [
    seg('hydra ', 'accent', true),
    ...(marker === undefined ? [] : [seg(`[${marker}] `, 'warn', true)]),
    seg(`"${oneLine(snapshot.prompt)}"`),
  ];
  const lines: Line[] = [spread(left, right, width, ellipsis)];

  const counts = raceCounts(snapshot);
  const status: Line = [
    seg(
      phaseOverride ?? (reopening(snapshot) ? 'reopening the run' : phaseLabel(snapshot.phase)),
      snapshot.phase === 'failed' ? 'error' : 'accent',
      true,
    ),
    ...(counts.waiting > 0 ? [seg(` ${symbols.dot} `), seg(`${counts.waiting} waiting`, 'muted')] : []),
    seg(` ${symbols.dot} `),
    seg(`${counts.running} running`, counts.running > 0 ? 'accent' : 'muted'),
    seg(` ${symbols.dot} `),
    seg(`${counts.done} done`, counts.done > 0 ? 'ok' : 'muted'),
    seg(` ${symbols.dot} `),
    seg(`${counts.failed} failed`, counts.failed > 0 ? 'error' : 'muted'),
  ];
  if (counts.stopped > 0) status.push(seg(` ${symbols.dot} `), seg(`${counts.stopped} stopped`, 'warn'));
  lines.push(status);

  if (snapshot.error !== null) {
    lines.push([
      seg(`${symbols.fail} ${snapshot.error.kind}: ${oneLine(snapshot.error.message)}`, 'error', true),
    ]);
    lines.push([seg(`  hint: ${oneLine(snapshot.error.hint)}`, 'warn')]);
  }
  const [firstWarning] = snapshot.warnings;
  if (firstWarning !== undefined) {
    const more = snapshot.warnings.length > 1 ? ` (+${snapshot.warnings.length - 1} more)` : '';
    // Two lines at most: the end of a warning often says what it means for the user.
    const [first, ...rest] = wrapLines(
      [[seg(`${symbols.warn} ${oneLine(firstWarning)}${more}`, 'warn')]],
      width,
    );
    if (first !== undefined) lines.push(first);
    if (rest.length > 0) lines.push([seg(`  ${rest.map(lineText).join(' ')}`, 'warn')]);
  }
  return lines.map((line) => fitLine(line, width, ellipsis));
};

/** The hints as one line: two spaces apart, or (compact) one space apart with shorter keys. */
const hintsLine = (hints: KeyHint[], compact = false): Line => {
  const line: Line = [];
  for (const hint of hints) {
    if (line.length > 0) line.push(seg(compact ? ' ' : '  '));
    const keys = compact ? (hint.compactKeys ?? hint.keys) : hint.keys;
    line.push(seg(keys, 'accent', true), seg(` ${hint.label}`, 'muted'));
  }
  return line;
};

export const footerLine = (
  view: View,
  theme: Theme,
  width: number,
  agentCount: number,
  position: string | null,
  anyRunning = true,
  canRound = true,
  merged = false,
): Line => {
  let hints = footerHints(view, theme.symbols, agentCount, anyRunning, canRound, merged);
  const room = width - (position === null ? 0 : displayWidth(position) + 1);
  // Too narrow: closer together first, then drop the lesser hints (the key table ranks them).
  const compact = lineWidth(hintsLine(hints)) > room;
  const ranks = [...new Set(hints.flatMap((hint) => hint.dropOrder ?? []))].sort((a, b) => a - b);
  for (const rank of ranks) {
    if (lineWidth(hintsLine(hints, compact)) <= room) break;
    hints = hints.filter((hint) => hint.dropOrder !== rank);
  }
  const line = hintsLine(hints, compact);
  if (position === null) return fitLine(line, width, theme.symbols.ellipsis);
  return spread(line, [seg(position, 'muted')], width, theme.symbols.ellipsis);
};

export const noticeLines = (
  notice: Notice | null,
  busy: Busy | null,
  snapshot: RaceSnapshot,
  theme: Theme,
  width: number,
): Line[] => {
  const lines: Line[] = [];
  if (busy !== null) lines.push([seg(busyText(busy, snapshot, theme), 'accent', true)]);
  if (notice !== null) {
    // A notice is a sentence to read whole: wrapped onto a second line, cut only past that.
    const text = plainEllipsis(notice.text, theme.symbols.ellipsis);
    const wrapped = wrapLines([[seg(text, notice.tone === 'info' ? 'accent' : notice.tone)]], width);
    const shown = wrapped.slice(0, NOTICE_LINES);
    if (wrapped.length > NOTICE_LINES) {
      const last = shown.length - 1;
      shown[last] = fitLine(
        [...(shown[last] ?? []), seg(` ${wrapped.slice(NOTICE_LINES).map(lineText).join(' ')}`)],
        width,
        theme.symbols.ellipsis,
      );
    }
    lines.push(...shown);
  }
  return lines.map((line) => fitLine(line, width, theme.symbols.ellipsis));
};

/** The rows a notice may take: enough for a sentence with a path or a command in it. */
export const NOTICE_LINES = 2;

const nameOf = (snapshot: RaceSnapshot, agent: AgentName): string =>
  snapshot.agents.find((candidate) => candidate.agent === agent)?.displayName ?? agent;

const busyText = (busy: Busy, snapshot: RaceSnapshot, theme: Theme): string => {
  const spinner = theme.symbols.spinner[0] ?? '';
  switch (busy.kind) {
    case 'merging':
      return `${spinner} Merging ${nameOf(snapshot, busy.agent)}'s result into ${snapshot.baseBranch ?? 'the base branch'}${theme.symbols.ellipsis}`;
    case 'quitting':
      return busy.cancelling
        ? `${spinner} Stopping the running agents and cleaning up${theme.symbols.ellipsis}`
        : `${spinner} Cleaning up${theme.symbols.ellipsis}`;
    default:
      return assertNever(busy);
  }
};

/** "A", "A and B", "A, B and C". */
const names = (agents: readonly AgentSnapshot[]): string => {
  const all = agents.map((agent) => agent.displayName);
  return all.length <= 1 ? (all[0] ?? '') : `${all.slice(0, -1).join(', ')} and ${all.at(-1) ?? ''}`;
};

export interface DialogOptions {
  keepWorktrees: boolean;
}

/** What the confirmation says, as plain sentences (wrapped by dialogLines). */
const dialogText = (
  dialog: Dialog,
  snapshot: RaceSnapshot,
  options: DialogOptions,
): { title: string; body: string[] } => {
  const base = snapshot.baseBranch ?? 'the commit the race started from';
  switch (dialog.kind) {
    case 'merge': {
      const winner = snapshot.agents.find((agent) => agent.agent === dialog.agent);
      const name = winner?.displayName ?? dialog.agent;
      const branch = winner?.branch ?? `hydra/${snapshot.runId}/${dialog.agent}`;
      const diff = winner?.diff === null || winner === undefined ? '' : ` (${formatDiff(winner.diff)})`;
      const running = snapshot.agents.filter(
        (agent) => agent.agent !== dialog.agent && isRunning(agent.status),
      );
      const others = snapshot.agents.filter((agent) => agent.agent !== dialog.agent);
      const body = [
        `Merges branch ${branch}${diff} into ${base} (started at ${shortRef(snapshot.baseRef)}): a fast-forward when ${base} has not moved, otherwise a merge commit.`,
        `Nothing changes if the merge would conflict or touch files with uncommitted changes; your uncommitted work is left as it is.`,
      ];
      if (running.length > 0) body.push(`First stops ${names(running)}, still running.`);
      if (options.keepWorktrees)
        body.push(`All worktrees and branches of this race are kept (--keep-worktrees).`);
      else if (others.length === 0) body.push(`Then removes ${name}'s worktree and branch.`);
      else {
        // The race then ends as any other: the rule of what stays is the same as for q.
        const results = others.filter((agent) => agent.status === 'completed');
        const kept =
          results.length === 0
            ? ''
            : `; the other results (${names(results)}) stay on their branches until hydra clean ${snapshot.runId}, unless you answer d to remove them now`;
        body.push(`Then removes ${name}'s worktree and branch, and every other worktree${kept}.`);
      }
      return { title: `Merge ${name}'s result into ${base}?`, body };
    }
    case 'stop': {
      const agent = snapshot.agents.find((candidate) => candidate.agent === dialog.agent);
      const name = agent?.displayName ?? dialog.agent;
      return {
        title: `Stop ${name}?`,
        body: [
          `Ends ${name}'s process (SIGTERM, then SIGKILL after a grace period) and everything it started.`,
          options.keepWorktrees
            ? `Its work so far is discarded as a result (a stopped agent cannot be merged); its worktree is kept (--keep-worktrees).`
            : `Its work so far is discarded: a stopped agent cannot be merged, and its worktree and branch are removed when the race ends (quit or merge).`,
        ],
      };
    }
    case 'quit': {
      const running = snapshot.agents.filter((agent) => isRunning(agent.status));
      const completed = snapshot.agents.filter((agent) => agent.status === 'completed');
      const body: string[] = [];
      if (running.length > 0)
        body.push(`Stops ${names(running)} (still running) and waits until their processes are gone.`);
      if (completed.length > 0) {
        body.push(
          `Nothing is merged: the completed result${completed.length === 1 ? '' : 's'} of ${names(completed)} stay${completed.length === 1 ? 's' : ''} on ${completed.length === 1 ? 'its branch' : 'their branches'}.`,
        );
      }
      if (options.keepWorktrees) body.push(`The worktrees and branches are kept (--keep-worktrees).`);
      else
        body.push(
          `Then removes this race's worktrees and the branches of agents that did not complete (hydra open brings a result's worktree back).`,
        );
      if (completed.length > 0)
        body.push(
          `A completed result can still be merged later: hydra merge ${snapshot.runId} <agent> (hydra clean removes it).`,
        );
      return {
        title: running.length > 0 ? 'Quit and stop the running agents?' : 'Quit without merging?',
        body,
      };
    }
    case 'follow-up': {
      const agent = snapshot.agents.find((item) => item.agent === dialog.agent);
      const name = agent?.displayName ?? dialog.agent;
      const branch = agent?.branch ?? `hydra/${snapshot.runId}/${dialog.agent}`;
      return {
        title: `Follow-up for ${name}`,
        body: [
          `It goes on in its own session, in its worktree; its new work is committed on ${branch} as a new commit.`,
          // The typed text with a cursor; sanitized like anything shown that hydra did not write.
          `> ${sanitize(dialog.text)}_`,
        ],
      };
    }
    default:
      return assertNever(dialog);
  }
};

/** The dialog as lines for a box of `width` columns (borders not included). */
export const dialogLines = (
  dialog: Dialog,
  snapshot: RaceSnapshot,
  theme: Theme,
  width: number,
  options: DialogOptions,
): Line[] => {
  const { title, body } = dialogText(dialog, snapshot, options);
  const inner = Math.max(10, width);
  const lines: Line[] = [fitLine([seg(title, 'warn', true)], inner, theme.symbols.ellipsis)];
  for (const paragraph of body) for (const text of wrap(paragraph, inner)) lines.push([seg(text)]);
  const answers: Line = [];
  for (const hint of dialogHints(dialog, theme.symbols)) {
    if (answers.length > 0) answers.push(seg('   '));
    answers.push(seg(hint.keys, 'accent', true), seg(` ${hint.label}`));
  }
  lines.push(answers);
  return lines;
};

/** "2 worktrees and 1 branch": what a clean-up removed, each kind counted (worktrees are paths). */
export const removedCounts = (removed: readonly string[]): string => {
  const worktrees = removed.filter((item) => item.startsWith('/')).length;
  const branches = removed.length - worktrees;
  const parts = [
    ...(worktrees > 0 ? [`${worktrees} worktree${worktrees === 1 ? '' : 's'}`] : []),
    ...(branches > 0 ? [`${branches} branch${branches === 1 ? '' : 'es'}`] : []),
  ];
  return parts.join(' and ');
};

/**
 * The final screen after a merge: what went where and what was cleaned. Within `room` rows (the rest
 * of the screen holds one line per agent) the list of removed paths gives way first: the paths that
 * fit, then how many more.
 */
export const mergedLines = (
  result: MergeResult,
  snapshot: RaceSnapshot,
  theme: Theme,
  width: number,
  room = Number.POSITIVE_INFINITY,
): Line[] => {
  const { symbols } = theme;
  const name = nameOf(snapshot, result.agent);
  const winner = snapshot.agents.find((agent) => agent.agent === result.agent);
  const from = winner?.branch ?? `hydra/${result.runId}/${result.agent}`;
  const lines: Line[] = [];
  if (result.method === 'nothing-to-merge') {
    lines.push([
      seg(
        `${symbols.ok} ${name} changed nothing; ${result.into} is unchanged at ${shortRef(result.commit)}.`,
        'ok',
        true,
      ),
    ]);
  } else {
    const files = fileCount(result.filesChanged);
    lines.push([
      seg(
        `${symbols.ok} Merged ${name}'s result (${from}) into ${result.into}: ${mergeMethodLabel(result.method)}, ${files}, now at ${shortRef(result.commit)}.`,
        'ok',
        true,
      ),
    ]);
  }
  // A removed path or branch on one line each (its end, which names the agent, kept when cut).
  const listed: Line[] = [];
  if (result.removed.length === 0) {
    lines.push([seg('Nothing was removed: the worktrees and branches are kept.', 'muted')]);
  } else {
    lines.push([seg(`Cleaned up ${removedCounts(result.removed)}:`)]);
    const room = Math.max(1, width - 4);
    for (const removed of result.removed) {
      const shown = [...removed];
      while (shown.length > 1 && displayWidth(shown.join('')) > room - 1) shown.shift();
      const text = shown.length === [...removed].length ? removed : `${symbols.ellipsis}${shown.join('')}`;
      listed.push([seg(`  ${symbols.dot} ${text}`, 'muted')]);
    }
  }
  // A merge keeps the choice open: what is left of the other results, and how to use or remove it.
  const after: Line[] = [];
  const kept = snapshot.agents.filter((agent) => agent.agent !== result.agent && agent.branch !== null);
  if (kept.length > 0)
    after.push([
      seg(
        `Kept: ${names(kept)}'s result${kept.length === 1 ? '' : 's'} on ${kept.length === 1 ? 'its branch' : 'their branches'}; merge another with hydra merge ${result.runId} <agent>, get a worktree back with hydra open ${result.runId} <agent>, remove ${kept.length === 1 ? 'it' : 'them'} with hydra clean ${result.runId}.`,
        'muted',
      ),
    ]);
  const head = wrapLines(lines, width);
  const tail = wrapLines(after, width);
  const fits = Math.max(0, room - head.length - tail.length);
  if (listed.length > fits) {
    const shown = listed.slice(0, Math.max(0, fits - 1));
    const more = listed.length - shown.length;
    listed.splice(0, listed.length, ...shown);
    if (fits > 0) listed.push([seg(`  ${symbols.dot} ${symbols.ellipsis} ${more} more`, 'muted')]);
  }
  return [...head, ...listed, ...tail];
};

/** The final screen after quitting or when the race ended on its own. */
export const endedLines = (
  snapshot: RaceSnapshot,
  cancelled: boolean,
  theme: Theme,
  width: number,
  keepWorktrees: boolean,
  problem?: string,
): Line[] => {
  const { symbols } = theme;
  const lines: Line[] = [];
  if (problem !== undefined)
    lines.push([seg(`${symbols.warn} Clean-up problem: ${oneLine(problem)}`, 'warn', true)]);
  if (snapshot.error !== null) {
    lines.push([
      seg(`${symbols.fail} ${snapshot.error.kind}: ${oneLine(snapshot.error.message)}`, 'error', true),
    ]);
    lines.push([seg(`hint: ${oneLine(snapshot.error.hint)}`, 'warn')]);
  }
  const counts = raceCounts(snapshot);
  // A reopened race whose result was merged before: say so, not "nothing was merged".
  const merged =
    snapshot.merge === null
      ? null
      : `${nameOf(snapshot, snapshot.merge.agent)}'s result was merged into ${snapshot.merge.into}`;
  const headline =
    merged !== null
      ? `Race ended; ${merged}.`
      : cancelled
        ? 'Race cancelled; nothing was merged.'
        : 'Race ended; nothing was merged.';
  lines.push([
    seg(
      `${headline} ${counts.done} completed, ${counts.failed} failed, ${counts.stopped} stopped.`,
      counts.done > 0 ? null : 'warn',
      true,
    ),
  ]);
  // How to merge later is said once, under this screen, by the command that ran the dashboard.
  if (keepWorktrees)
    lines.push([seg('The worktrees are kept (--keep-worktrees); hydra clean removes them.', 'muted')]);
  else if (snapshot.agents.some((agent) => agent.status === 'completed' && agent.branch !== null))
    lines.push([
      seg(
        `The worktrees are removed; results stay on their branches (hydra open ${snapshot.runId} <agent> brings a worktree back).`,
        'muted',
      ),
    ]);
  // A race stopped before any agent started has no run record to show. (Branches are no test:
  // the clean-up forgets the ones it removed.)
  if (snapshot.agents.some((agent) => agent.startedAt !== null))
    lines.push([seg(`Details: hydra show ${snapshot.runId}`, 'muted')]);
  return wrapLines(lines, width);
};
