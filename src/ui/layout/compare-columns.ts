/**
 * The compare table's columns: the fixed ones (status, time, diff, tokens, turns, cost), the score,
 * one per check and cross-testing's reproductions; each with a width, an alignment, the priority
 * it is dropped by when the table does not fit, and how its cell reads an agent.
 */
import { contractOf } from '../../engine/index.js';
import type { AgentSnapshot, RaceSnapshot } from '../../engine/index.js';
import {
  agentElapsed,
  cachedTokens,
  checkFigure,
  checkSymbol,
  checkTone,
  displayWidth,
  formatCost,
  formatCount,
  formatDuration,
  formatScoreTotal,
  formatTokens,
  newTestsFigure,
  statusLabel,
  statusTone,
  type Theme,
} from '../text/index.js';

export interface Column {
  title: string;
  width: number;
  align: 'left' | 'right';
  /** Lower numbers are dropped last when the table does not fit. */
  priority: number;
  cell(agent: AgentSnapshot, now: number): { text: string; tone: ReturnType<typeof statusTone> | null };
}

export const COLUMNS: Column[] = [
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

/** The score column: the total, `-` until the race is scored. */
export const SCORE_COLUMN: Column = {
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

/** One column per check of the race (named after the check), its symbol and figure. */
export const checkColumns = (snapshot: RaceSnapshot, symbols: Theme['symbols']): Column[] => {
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
export const newTestsColumn = (snapshot: RaceSnapshot): Column[] => {
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

/**
 * The contract's column, when a result changed the base's tests: `own✔ base✘` (passes only with
 * its own tests: a warning), `-` for a result that changed none.
 */
export const contractColumn = (snapshot: RaceSnapshot, symbols: Theme['symbols']): Column[] => {
  if (!snapshot.agents.some((agent) => contractOf(agent.checks) !== null)) return [];
  const mark = (passes: boolean): string => (passes ? symbols.ok : symbols.fail);
  return [
    {
      title: 'Tests changed',
      width: 13,
      align: 'right',
      priority: 1,
      cell: (agent) => {
        const contract = contractOf(agent.checks);
        if (contract === null) return { text: '-', tone: 'muted' };
        return {
          text: `own${mark(contract.passesOwn)} base${mark(contract.passesBase)}`,
          tone: contract.passesOwn && !contract.passesBase ? 'warn' : 'muted',
        };
      },
    },
  ];
};
