/**
 * The scrollable views: an agent's detail (its whole recent event log), its diff, and the table
 * comparing every agent. Pure functions from snapshot data to lines.
 */
import type { AgentSnapshot, RaceSnapshot } from '../../engine/index.js';
import {
  agentElapsed,
  cachedTokens,
  checkFigure,
  checkSymbol,
  checkTone,
  eventLine,
  formatCheck,
  formatScore,
  formatScoreTotal,
  UNVERIFIED,
  formatCost,
  formatCount,
  formatDiff,
  formatDuration,
  formatTokens,
  formatUsage,
  newTestsFigure,
  statusLabel,
  statusTone,
} from '../text/index.js';
import { fitLine, seg, wrapLines, type Line } from './lines.js';
import type { Theme } from '../text/index.js';
import {
  agentStatusLabel,
  displayWidth,
  oneLine,
  runnerLabel,
  padEnd,
  padStart,
  sanitize,
  sanitizeName,
  truncate,
  wrap,
} from '../text/index.js';

/** Lines of tool output shown under a tool result in the detail view. */
const OUTPUT_LINES = 4;

export const detailLines = (
  agent: AgentSnapshot,
  now: number,
  theme: Theme,
  width: number,
  runId: string,
): Line[] => {
  const { symbols } = theme;
  const lines: Line[] = [];
  const elapsed = agentElapsed(agent, now);
  lines.push([
    seg(agentStatusLabel(agent, symbols.ellipsis), statusTone(agent.status), true),
    seg(elapsed === null ? '' : ` ${symbols.dot} ${formatDuration(elapsed)}`),
    seg(
      ` ${symbols.dot} ${agent.tier === 'experimental' ? 'experimental adapter' : 'tier 1'}`,
      agent.tier === 'experimental' ? 'warn' : 'muted',
    ),
    seg(agent.exitCode === null ? '' : ` ${symbols.dot} exit code ${agent.exitCode}`, 'muted'),
  ]);
  if (agent.inferredFlags)
    lines.push([seg(`${symbols.warn} flags inferred from documentation, not verified from --help`, 'warn')]);
  for (const warning of agent.warnings) lines.push([seg(`${symbols.warn} ${oneLine(warning)}`, 'warn')]);
  if (agent.branch !== null) lines.push([seg(`branch   ${agent.branch}`, 'muted')]);
  if (agent.worktree !== null) lines.push([seg(`worktree ${agent.worktree}`, 'muted')]);
  // Its block of ports (HYDRA_PORT and the next 9): where its dev server listens.
  if (agent.port !== undefined && agent.port !== null) lines.push([seg(`port     ${agent.port}`, 'muted')]);
  const runner = runnerLabel(agent);
  if (runner !== null) lines.push([seg(`runner   ${runner}`, 'muted')]);
  lines.push([seg(`usage    ${formatUsage(agent.usage, symbols.dot)}`)]);
  if (agent.diff !== null) {
    lines.push([seg(`diff     ${formatDiff(agent.diff)}`, 'ok')]);
    for (const file of agent.diff.files) {
      const counts = file.binary === true ? 'binary' : `+${file.insertions} -${file.deletions}`;
      lines.push([seg(`  ${symbols.dot} ${sanitizeName(file.path)} `), seg(counts, 'muted')]);
    }
    // Every commit a merge would bring, with the secrets each adds (the net diff above hides them).
    for (const item of agent.diff.commits ?? [])
      lines.push([
        seg(`commit   ${item.commit.slice(0, 7)} `, 'muted'),
        seg(sanitize(oneLine(item.subject))),
        ...item.secrets.map((found) =>
          seg(`  ${symbols.warn} adds ${found.label} in ${sanitize(found.file)}`, 'error', true),
        ),
      ]);
  }
  if (agent.error !== null) {
    lines.push(
      ...wrapLines(
        [[seg(`${symbols.fail} ${agent.error.kind}: ${agent.error.message}`, 'error', true)]],
        width,
      ),
    );
    lines.push(...wrapLines([[seg(`hint: ${agent.error.hint}`, 'warn')]], width));
  }
  if (agent.score !== null) lines.push([seg(formatScore(agent.score, symbols.dot), 'accent', true)]);
  if ((agent.score?.flags ?? []).length > 0)
    lines.push([
      seg(
        `${symbols.warn} its checks are not evidence: it cannot win --auto-merge best without --allow-test-changes`,
        'warn',
      ),
    ]);
  for (const check of agent.checks ?? []) {
    lines.push([
      seg(`${checkSymbol(check, symbols)} `, checkTone(check), true),
      seg(
        `${formatCheck(check, symbols.dot)}${check.gate ? ' (gate)' : ''} ${symbols.dot} ${formatDuration(check.durationMs)}`,
      ),
    ]);
    for (const reason of check.tampered ?? [])
      lines.push([seg(`    ${symbols.warn} not evidence: ${sanitize(reason)}`, 'warn')]);
    if (check.checkoutChanged !== undefined)
      lines.push([
        seg(
          `    ${symbols.warn} its checkout changed while it ran: ${sanitize(check.checkoutChanged.join(', '))}`,
          'warn',
        ),
      ]);
    // What it printed last, when it did not pass (the run record keeps the last 8 KB).
    if (check.status === 'passed') continue;
    const output = sanitize(check.output)
      .split('\n')
      .filter((text) => text.trim() !== '');
    for (const text of output.slice(-OUTPUT_LINES)) lines.push([seg(`    ${text}`, 'muted')]);
    for (const name of check.newlyFailing ?? [])
      lines.push([seg(`    newly failing: ${sanitize(name)}`, 'error')]);
  }
  const hidden = agent.eventCount - agent.recentEvents.length;
  // The dashboard keeps a bounded window; the run record has every event.
  const count =
    hidden > 0
      ? `latest ${agent.recentEvents.length} of ${agent.eventCount} events (all: hydra show ${runId})`
      : `${agent.eventCount} event${agent.eventCount === 1 ? '' : 's'}`;
  lines.push([
    seg(`${'-'.repeat(2)} ${count} ${'-'.repeat(Math.max(2, width - displayWidth(count) - 4))}`, 'muted'),
  ]);
  for (const event of agent.recentEvents) {
    if (event.kind === 'message' && event.partial === true) continue;
    // Per-message usage is folded into the usage line at the top.
    if (event.kind === 'usage') continue;
    const line = eventLine(event, symbols);
    const full = event.kind === 'message' ? sanitize(event.text).trim() : line.text;
    const wrapped = wrap(full, Math.max(10, width - 2));
    wrapped.forEach((text, index) =>
      lines.push([
        seg(index === 0 ? `${line.symbol} ` : '  ', line.tone),
        seg(text, line.tone === 'muted' ? 'muted' : null),
      ]),
    );
    if (event.kind === 'tool_result' && event.output !== undefined) {
      const output = sanitize(event.output)
        .split('\n')
        .filter((text) => text.trim() !== '');
      for (const text of output.slice(0, OUTPUT_LINES)) lines.push([seg(`    ${text}`, 'muted')]);
      if (output.length > OUTPUT_LINES)
        lines.push([seg(`    ${symbols.ellipsis} ${output.length - OUTPUT_LINES} more lines`, 'muted')]);
    }
    if (event.kind === 'failed' && event.stderrTail !== undefined && event.stderrTail.trim() !== '') {
      for (const text of sanitize(event.stderrTail).trim().split('\n').slice(-OUTPUT_LINES))
        lines.push([seg(`    stderr: ${text}`, 'muted')]);
    }
  }
  return lines.map((line) => fitLine(line, width, symbols.ellipsis));
};

export type PatchState =
  { status: 'loading' } | { status: 'ready'; text: string } | { status: 'error'; message: string };

export interface DiffView {
  lines: Line[];
  /** Line index where each file starts. */
  fileStarts: number[];
  files: string[];
}

const FILE_HEADER = /^diff --git a\/(.*) b\/(.*)$/;

/** A unified patch as coloured lines, with the offsets of each file for n/p. */
export const diffView = (patch: PatchState | undefined, theme: Theme, width: number): DiffView => {
  const ellipsis = theme.symbols.ellipsis;
  if (patch === undefined || patch.status === 'loading')
    return { lines: [[seg(`loading patch${ellipsis}`, 'muted')]], fileStarts: [], files: [] };
  if (patch.status === 'error') {
    return {
      lines: wrapLines([[seg(`Could not read the patch: ${patch.message}`, 'error')]], width),
      fileStarts: [],
      files: [],
    };
  }
  if (patch.text.trim() === '')
    return {
      lines: [[seg('No changes: this agent left the files as they were.', 'muted')]],
      fileStarts: [],
      files: [],
    };
  const lines: Line[] = [];
  const fileStarts: number[] = [];
  const files: string[] = [];
  for (const raw of sanitize(patch.text).replace(/\n$/, '').split('\n')) {
    const header = FILE_HEADER.exec(raw);
    if (header !== null) {
      fileStarts.push(lines.length);
      files.push(header[2] ?? header[1] ?? raw);
      lines.push([seg(raw, 'accent', true)]);
    } else if (raw.startsWith('+++') || raw.startsWith('---')) lines.push([seg(raw, null, true)]);
    else if (raw.startsWith('@@')) lines.push([seg(raw, 'hunk')]);
    else if (raw.startsWith('+')) lines.push([seg(raw, 'added')]);
    else if (raw.startsWith('-')) lines.push([seg(raw, 'removed')]);
    else if (raw.startsWith(' ') || raw === '') lines.push([seg(raw)]);
    else lines.push([seg(raw, 'muted')]);
  }
  return { lines: lines.map((line) => fitLine(line, width, ellipsis)), fileStarts, files };
};

interface Column {
  title: string;
  width: number;
  align: 'left' | 'right';
  /** Lower numbers are dropped last when the table does not fit. */
  priority: number;
  cell(agent: AgentSnapshot, now: number): { text: string; tone: ReturnType<typeof statusTone> | null };
}

const COLUMNS: Column[] = [
  {
    title: 'Status',
    width: 10,
    align: 'left',
    priority: 0,
    cell: (agent) => ({ text: statusLabel(agent.status), tone: statusTone(agent.status) }),
  },
  {
    title: 'Time',
    width: 7,
    align: 'right',
    priority: 1,
    cell: (agent, now) => {
      const elapsed = agentElapsed(agent, now);
      return { text: elapsed === null ? '-' : formatDuration(elapsed), tone: null };
    },
  },
  {
    title: 'Files',
    width: 5,
    align: 'right',
    priority: 0,
    cell: (agent) => ({ text: agent.diff === null ? '-' : String(agent.diff.filesChanged), tone: null }),
  },
  {
    title: '+',
    width: 6,
    align: 'right',
    priority: 0,
    cell: (agent) => ({ text: agent.diff === null ? '-' : `+${agent.diff.insertions}`, tone: 'added' }),
  },
  {
    title: '-',
    width: 6,
    align: 'right',
    priority: 0,
    cell: (agent) => ({ text: agent.diff === null ? '-' : `-${agent.diff.deletions}`, tone: 'removed' }),
  },
  {
    title: 'In',
    width: 7,
    align: 'right',
    priority: 2,
    cell: (agent) => ({ text: formatTokens(agent.usage.inputTokens), tone: null }),
  },
  {
    title: 'Out',
    width: 7,
    align: 'right',
    priority: 2,
    cell: (agent) => ({ text: formatTokens(agent.usage.outputTokens), tone: null }),
  },
  {
    title: 'Cached',
    width: 7,
    align: 'right',
    priority: 3,
    cell: (agent) => ({
      text: formatTokens(cachedTokens(agent.usage)),
      tone: null,
    }),
  },
  {
    title: 'Turns',
    width: 5,
    align: 'right',
    priority: 3,
    cell: (agent) => ({ text: formatCount(agent.usage.turns), tone: null }),
  },
  {
    title: 'Cost',
    width: 9,
    align: 'right',
    priority: 1,
    cell: (agent) => ({ text: formatCost(agent.usage), tone: null }),
  },
];

const NAME_WIDTH = 16;

/** The score column: the total, `-` until the race is scored. */
const SCORE_COLUMN: Column = {
  title: 'Score',
  width: 6,
  align: 'right',
  priority: 0,
  cell: (agent) =>
    agent.score === null
      ? { text: '-', tone: null }
      : agent.score.disqualified === null && !agent.score.verified
        ? // Unverified: marked, and explained under the table (unverifiedNote).
          { text: `${formatScoreTotal(agent.score)}?`, tone: 'warn' }
        : {
            text: formatScoreTotal(agent.score),
            tone: agent.score.disqualified === null ? 'accent' : 'muted',
          },
};

/** The judge's verdict on a tie (`--judge`): its ranking with reasons, or why it was ignored. */
const judgeLines = (snapshot: RaceSnapshot, symbols: Theme['symbols'], width: number): Line[] => {
  const judge = snapshot.judge;
  if (judge === null || judge === undefined) return [];
  const name = sanitizeName(judge.agent);
  const lines: Line[] = [];
  if (judge.ranking === null)
    lines.push([seg(`${symbols.warn} judge ${name}: ${oneLine(judge.warning ?? 'no ranking')}`, 'warn')]);
  else {
    lines.push([seg(`judge ${name} ranked ${judge.contenders.length} tied results:`, null, true)]);
    for (const [index, item] of judge.ranking.entries())
      lines.push(
        ...wrapLines(
          [[seg(`  ${index + 1}. ${sanitizeName(item.agent)} ${symbols.dot} ${oneLine(item.reason)}`)]],
          width,
        ),
      );
  }
  for (const item of judge.addressedJudge)
    lines.push([seg(`${symbols.warn} addresses the judge: ${oneLine(item)}`, 'warn')]);
  return lines;
};

/** Under the table when a score is unverified: what its `?` means and how to verify it. */
const unverifiedNote = (snapshot: RaceSnapshot, symbols: Theme['symbols']): Line[] =>
  snapshot.agents.some(
    (agent) => agent.score !== null && agent.score.disqualified === null && !agent.score.verified,
  )
    ? [
        [
          seg(
            `${symbols.warn} ? ${UNVERIFIED}: the score is diff size, time and cost alone; --auto-merge best will not merge it (race with --check auto, or --check "<command>")`,
            'warn',
          ),
        ],
      ]
    : [];

/** One column per check of the race (named after the check), its symbol and figure. */
const checkColumns = (snapshot: RaceSnapshot, symbols: Theme['symbols']): Column[] => {
  const names = snapshot.baseline?.checks.map((check) => check.name) ?? [];
  for (const agent of snapshot.agents)
    for (const check of agent.checks ?? []) if (!names.includes(check.name)) names.push(check.name);
  return names.map((name): Column => ({
    title: name,
    width: Math.max(7, Math.min(12, displayWidth(name))),
    align: 'left',
    priority: 1,
    cell: (agent) => {
      const check = agent.checks?.find((item) => item.name === name);
      if (check === undefined)
        return { text: agent.checking ? `${symbols.progress}${symbols.ellipsis}` : '-', tone: 'muted' };
      return { text: `${checkSymbol(check, symbols)} ${checkFigure(check)}`, tone: checkTone(check) };
    },
  }));
};

/**
 * Cross-testing's column, when an agent wrote tests: its reproductions of its new tests (`1/1`:
 * fails on the base, passes on its result), a warning tone when another agent's reproduction fails on it.
 */
const newTestsColumn = (snapshot: RaceSnapshot): Column[] => {
  if (!snapshot.agents.some((agent) => agent.newTests !== undefined)) return [];
  const failsRival = (agent: AgentSnapshot): boolean =>
    snapshot.agents.some((author) =>
      (author.newTests?.tests ?? []).some(
        (test) =>
          test.onBase === 'failed' && test.onSelf === 'passed' && test.onOthers[agent.agent] === 'failed',
      ),
    );
  return [
    {
      title: 'Repro',
      width: 5,
      align: 'right',
      priority: 1,
      cell: (agent) => ({
        text: newTestsFigure(agent.newTests),
        tone: failsRival(agent) ? 'warn' : (agent.newTests?.reproductions ?? 0) > 0 ? 'ok' : 'muted',
      }),
    },
  ];
};

/** Once scored, the best first (ties keep the race's order); before that, the race's order. */
/** The compare view's rows as agent indexes, top to bottom: by score once scored, else pane order. */
export const compareRowOrder = (snapshot: RaceSnapshot): number[] => {
  const order = snapshot.agents.map((_, index) => index);
  if (!snapshot.agents.some((agent) => agent.score !== null)) return order;
  const total = (index: number): number => snapshot.agents[index]?.score?.total ?? -1;
  return order.sort((a, b) => total(b) - total(a) || a - b);
};

export const compareLines = (
  snapshot: RaceSnapshot,
  focus: number,
  now: number,
  theme: Theme,
  width: number,
): Line[] => {
  const { symbols } = theme;
  const [status, ...rest] = COLUMNS;
  // The score once there is one (or checks to wait for); a column per check.
  const scored = snapshot.baseline !== null || snapshot.agents.some((agent) => agent.score !== null);
  const columns = [
    ...(status === undefined ? [] : [status]),
    ...(scored ? [SCORE_COLUMN] : []),
    ...checkColumns(snapshot, symbols),
    ...newTestsColumn(snapshot),
    ...rest,
  ];
  const tableWidth = (): number =>
    NAME_WIDTH + 2 + columns.reduce((sum, column) => sum + column.width + 1, 0);
  while (tableWidth() > width && columns.length > 0) {
    const lowest = Math.max(...columns.map((column) => column.priority));
    const index = columns.map((column) => column.priority).lastIndexOf(lowest);
    columns.splice(index, 1);
  }
  const cell = (text: string, column: Column): string =>
    column.align === 'left'
      ? padEnd(text, column.width, symbols.ellipsis)
      : padStart(text, column.width, symbols.ellipsis);
  const lines: Line[] = [];
  lines.push([
    seg(`  ${padEnd('Agent', NAME_WIDTH)}`, null, true),
    ...columns.map((column) => seg(` ${cell(column.title, column)}`, null, true)),
  ]);
  for (const index of compareRowOrder(snapshot)) {
    const agent = snapshot.agents[index];
    if (agent === undefined) continue;
    const focused = index === focus;
    lines.push([
      seg(focused ? `${symbols.focus} ` : '  ', 'accent', true),
      seg(
        padEnd(`${index + 1} ${agent.displayName}`, NAME_WIDTH, symbols.ellipsis),
        focused ? 'accent' : null,
        focused,
      ),
      ...columns.map((column) => {
        const value = column.cell(agent, now);
        return seg(` ${cell(value.text, column)}`, value.tone);
      }),
    ]);
  }
  lines.push(...unverifiedNote(snapshot, symbols), ...judgeLines(snapshot, symbols, width), []);
  const baseline = snapshot.baseline;
  if (baseline !== null) {
    const state =
      baseline.status === 'running'
        ? [seg(`running${symbols.ellipsis}`, 'muted')]
        : baseline.status === 'cancelled'
          ? [seg('cancelled before its checks finished', 'muted')]
          : baseline.error !== null
            ? [seg(`could not run: ${oneLine(baseline.error)}`, 'error')]
            : baseline.checks.flatMap((check, index) => [
                seg(`${index === 0 ? '' : '  '}${checkSymbol(check, symbols)} `, checkTone(check)),
                seg(formatCheck(check, symbols.dot)),
              ]);
    lines.push([seg('baseline: ', null, true), ...state]);
  }
  // Cross-testing: a result that fails another agent's reproduction.
  for (const author of snapshot.agents)
    for (const test of author.newTests?.tests ?? [])
      for (const [rival, status] of Object.entries(test.onOthers))
        if (test.onBase === 'failed' && test.onSelf === 'passed' && status === 'failed')
          lines.push([
            seg('cross-test: ', null, true),
            seg(
              `${symbols.warn} ${sanitizeName(rival)} fails ${sanitizeName(author.agent)}'s reproduction ${sanitizeName(test.file)}`,
              'warn',
            ),
          ]);
  for (const agent of snapshot.agents) {
    if (agent.diff !== null && agent.diff.files.length > 0) {
      const files = agent.diff.files.map((file) =>
        file.binary === true
          ? `${sanitizeName(file.path)} (binary)`
          : `${sanitizeName(file.path)} +${file.insertions} -${file.deletions}`,
      );
      lines.push([
        seg(`${agent.displayName}: `, null, true),
        seg(
          truncate(
            files.join(', '),
            Math.max(10, width - displayWidth(agent.displayName) - 2),
            symbols.ellipsis,
          ),
        ),
      ]);
    } else if (agent.error !== null) {
      lines.push([
        seg(`${agent.displayName}: `, null, true),
        seg(`${agent.error.kind}: ${oneLine(agent.error.message)}`, 'error'),
      ]);
    } else if (agent.diff !== null) {
      lines.push([seg(`${agent.displayName}: `, null, true), seg('no changes', 'muted')]);
    }
  }
  return lines.map((line) => fitLine(line, width, symbols.ellipsis));
};
