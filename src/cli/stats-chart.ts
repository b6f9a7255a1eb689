/**
 * `hydra stats` on a terminal: a small chart of quality (how often an agent's result passed the
 * checks) against cost (its dollars a race), one letter an agent, with the letters' key below. Plain
 * ASCII, so it reads the same in every terminal and in a copied log.
 */
import type { AgentLedger } from '../engine/index.js';

const WIDTH = 44;
const HEIGHT = 8;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

const usd = (value: number): string => `$${value < 1 ? value.toFixed(2) : value.toFixed(2)}`;

/** The agents that have both figures (a pass rate and a known cost), each with its letter. */
const plotted = (
  agents: readonly AgentLedger[],
): Array<{ letter: string; agent: AgentLedger; cost: number; rate: number }> =>
  agents
    .flatMap((agent) =>
      agent.checksPassRate === null || agent.costPerRace === null
        ? []
        : [{ agent, cost: agent.costPerRace, rate: agent.checksPassRate }],
    )
    .slice(0, LETTERS.length)
    .map((point, index) => ({ ...point, letter: LETTERS[index]! }));

/** The chart's lines, or none when fewer than one agent has both a pass rate and a known cost. */
export function qualityCostChart(agents: readonly AgentLedger[]): string[] {
  const points = plotted(agents);
  if (points.length === 0) return [];
  const maxCost = Math.max(...points.map((point) => point.cost));
  const top = maxCost > 0 ? maxCost : 1;
  const grid = Array.from({ length: HEIGHT + 1 }, () => Array.from({ length: WIDTH + 1 }, () => ' '));
  for (const point of points) {
    const column = Math.round((point.cost / top) * WIDTH);
    const row = HEIGHT - Math.round(point.rate * HEIGHT);
    const cells = grid[row]!;
    // Two agents on one spot: the second goes beside the first, never over it.
    let at = column;
    while (at <= WIDTH && cells[at] !== ' ') at += 1;
    if (at > WIDTH) at = column;
    cells[at] = point.letter;
  }
  const label = (row: number): string => {
    if (row === 0) return '100% |';
    if (row === HEIGHT / 2) return ' 50% |';
    if (row === HEIGHT) return '  0% +';
    return '     |';
  };
  const lines = ['checks passed (up) against cost a race (right)'];
  for (const [row, cells] of grid.entries()) {
    const body = cells.join('').trimEnd();
    lines.push(`${label(row)}${row === HEIGHT ? body.padEnd(WIDTH + 1, '-').replace(/ /g, '-') : body}`);
  }
  const left = '$0';
  const right = usd(top);
  lines.push(`      ${left}${' '.repeat(Math.max(1, WIDTH + 1 - left.length - right.length))}${right}`);
  lines.push(`      ${points.map((point) => `${point.letter} ${point.agent.agent}`).join('  ')}`);
  return lines;
}
