/**
 * The compare view: the table of every agent (columns from compare-columns.ts, dropped by priority
 * to fit), then the notes under it: unverified scores, the judge's verdict, the baseline, cross-test
 * failures and each agent's files or error.
 */
import type { RaceSnapshot } from '../../engine/index.js';
import {
  checkSymbol,
  checkTone,
  displayWidth,
  formatCheck,
  formatWhere,
  oneLine,
  padEnd,
  padStart,
  sanitizeName,
  truncate,
  UNVERIFIED,
  type Theme,
} from '../text/index.js';
import {
  checkColumns,
  COLUMNS,
  contractColumn,
  newTestsColumn,
  SCORE_COLUMN,
  type Column,
} from './compare-columns.js';
import { fitLine, seg, wrapLines, type Line } from './lines.js';

const NAME_WIDTH = 16;

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
    ...contractColumn(snapshot, symbols),
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
                ...(formatWhere(check) === null ? [] : [seg(` (${formatWhere(check) ?? ''})`, 'muted')]),
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
