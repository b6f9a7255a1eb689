/** `hydra runs [--json]`: past races, newest first. */
import { listRuns } from '../../engine/index.js';
import type { AgentSummary, RunListEntry } from '../../engine/index.js';
import { getBoolean, parseCommandArgs } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, seeHelp, UsageError } from '../errors.js';
import {
  formatCost,
  formatTime,
  oneLine,
  sanitizeStrings,
  shortRef,
  terminalSafeJson,
} from '../../ui/index.js';
import { requireRepo } from '../run-ids.js';
import type { Style } from '../style.js';
import { table } from '../table.js';

export async function runsCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('runs', args, { json: { type: 'boolean' } });
  if (parsed.positionals.length > 0)
    throw new UsageError({
      message: `unexpected argument "${parsed.positionals[0]}"`,
      hint: seeHelp('runs'),
    });
  const root = requireRepo(ctx.cwd);
  const runs = [...(await listRuns(root))].sort((a, b) => b.startedAt - a.startedAt);
  if (getBoolean(parsed, 'json')) {
    ctx.print(terminalSafeJson({ runs }));
    return EXIT.ok;
  }
  if (runs.length === 0) {
    ctx.print('no races yet in this repository; start one with: hydra race "<prompt>"');
    return EXIT.ok;
  }
  const header = ['RUN', 'STATE', 'STARTED', 'AGENTS', 'COST', 'MERGED', 'PROMPT'].map((cell) =>
    ctx.out.dim(cell),
  );
  const rows = sanitizeStrings(runs).map((run) => runRow(run, ctx.out));
  for (const line of table([header, ...rows])) ctx.print(line);
  return EXIT.ok;
}

function runRow(run: RunListEntry, style: Style): string[] {
  // The total is an estimate when any part of it is.
  const estimated = run.agents.some((agent) => agent.usage.costSource === 'estimated');
  const cost = formatCost({ costUsd: run.totalCostUsd, costSource: estimated ? 'estimated' : 'reported' });
  return [
    run.runId,
    stateCell(run.state, style),
    formatTime(run.startedAt),
    run.agents.length > 0
      ? run.agents.map((agent) => agentCell(agent, style)).join(' ')
      : run.agentIds.join(' ') || '-',
    cost,
    run.merged ? `${run.merged.agent}@${shortRef(run.merged.commit)}` : '-',
    oneLine(run.prompt, run.problem === null ? 50 : 200),
  ];
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
