/**
 * `hydra runs [--json] [--limit N]`: past races, newest first. On a terminal the table fits its
 * width (one line a run): the agents are counted instead of listed, and the prompt is cut.
 */
import { listRuns } from '../../engine/index.js';
import type { AgentSummary, RunListEntry } from '../../engine/index.js';
import { getBoolean, getString, noExtraArguments, parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import {
  formatCost,
  formatTime,
  oneLine,
  sanitizeStrings,
  shortRef,
  terminalSafeJson,
  visibleWidth,
} from '../../ui/index.js';
import { requireRepo } from '../run-ids.js';
import type { Style } from '../style.js';
import { table } from '../table.js';

const HEADER = ['RUN', 'STATE', 'STARTED', 'AGENTS', 'COST', 'MERGED', 'PROMPT'];
/** The fewest columns a cut prompt keeps before the table drops a column instead. */
const MIN_PROMPT = 12;

export async function runsCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('runs', args, { json: { type: 'boolean' }, limit: { type: 'string' } });
  noExtraArguments('runs', parsed.positionals);
  const limit = parseLimit(getString(parsed, 'limit'));
  const root = requireRepo(ctx.cwd);
  const all = [...(await listRuns(root))].sort((a, b) => b.startedAt - a.startedAt);
  const runs = limit === undefined ? all : all.slice(0, limit);
  if (getBoolean(parsed, 'json')) {
    ctx.print(terminalSafeJson({ runs }));
    return EXIT.ok;
  }
  if (runs.length === 0) {
    ctx.print('no races yet in this repository; start one with: hydra race "<prompt>"');
    return EXIT.ok;
  }
  // A terminal's width; a pipe or a file gets every line whole.
  const width = ctx.stdout.isTTY === true && ctx.stdout.columns > 0 ? ctx.stdout.columns : undefined;
  for (const line of runsTable(sanitizeStrings(runs), ctx.out, width)) ctx.print(line);
  if (runs.length < all.length)
    ctx.print(
      ctx.out.dim(
        `${all.length - runs.length} older run${all.length - runs.length === 1 ? '' : 's'} not shown (a larger --limit shows them)`,
      ),
    );
  return EXIT.ok;
}

function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(text.trim()))
    throw new UsageError({
      message: `--limit needs a whole number of runs above 0, not "${text}"`,
      hint: 'For example: hydra runs --limit 10',
    });
  return Number(text.trim());
}

/**
 * The table's lines, fitted to `width` columns when given: first the agents counted instead of
 * listed, then the prompt cut (down to MIN_PROMPT columns), then the MERGED and STARTED columns
 * dropped, in that order.
 */
export function runsTable(runs: readonly RunListEntry[], style: Style, width?: number): string[] {
  const render = (compactAgents: boolean, drop: readonly string[], prompt?: number): string[] => {
    const keep = HEADER.map((name) => !drop.includes(name));
    const pick = (row: string[]): string[] => row.filter((_, index) => keep[index]);
    const rows = runs.map((run) => pick(runRow(run, style, compactAgents, prompt)));
    return table([pick(HEADER.map((cell) => style.dim(cell))), ...rows]);
  };
  const full = render(false, []);
  if (width === undefined) return full;
  const fits = (lines: readonly string[]): boolean => lines.every((line) => visibleWidth(line) <= width);
  if (fits(full)) return full;
  for (const drop of [[], ['MERGED'], ['MERGED', 'STARTED']]) {
    // The room the prompt has: the width less the other columns (measured with a one-column prompt).
    const narrow = render(true, drop, 1);
    const used = Math.max(...narrow.map((line) => visibleWidth(line))) - 1;
    const room = Math.min(50, width - used);
    if (room >= MIN_PROMPT || drop.length === 2) return render(true, drop, Math.max(1, room));
  }
  return full;
}

function runRow(run: RunListEntry, style: Style, compactAgents: boolean, prompt?: number): string[] {
  // The total is an estimate when any part of it is.
  const estimated = run.agents.some((agent) => agent.usage.costSource === 'estimated');
  const cost = formatCost({ costUsd: run.totalCostUsd, costSource: estimated ? 'estimated' : 'reported' });
  return [
    run.runId,
    stateCell(run.state, style),
    formatTime(run.startedAt),
    run.agents.length > 0
      ? compactAgents
        ? agentCount(run.agents, style)
        : run.agents.map((agent) => agentCell(agent, style)).join(' ')
      : run.agentIds.join(' ') || '-',
    cost,
    run.merged ? `${run.merged.agent}@${shortRef(run.merged.commit)}` : '-',
    // A problem (why a record is damaged or foreign) is kept whole unless the width is fitted.
    oneLine(run.prompt, prompt ?? (run.problem === null ? 50 : 200)),
  ];
}

/** `5/6 completed`: how many of the agents completed, for a narrow table. */
function agentCount(agents: readonly AgentSummary[], style: Style): string {
  const done = agents.filter((agent) => agent.status === 'completed').length;
  const text = `${done}/${agents.length} completed`;
  return done === agents.length ? style.green(text) : text;
}

function stateCell(state: RunListEntry['state'], style: Style): string {
  switch (state) {
    case 'dead':
    case 'damaged':
      return style.red(state);
    case 'running':
    case 'foreign':
      return style.yellow(state);
    case 'finished':
      return state;
  }
}

export const agentCell = (agent: AgentSummary, style: Style): string =>
  colourStatus(agent, `${agent.agent}:${agent.status}`, style);

export const statusText = (agent: AgentSummary, style: Style): string =>
  colourStatus(agent, agent.status.replace('_', ' '), style);

function colourStatus(agent: AgentSummary, text: string, style: Style): string {
  switch (agent.status) {
    case 'completed':
      return style.green(text);
    case 'failed':
    case 'timed_out':
      return style.red(text);
    case 'cancelled':
    case 'skipped':
      return style.dim(text);
  }
}
