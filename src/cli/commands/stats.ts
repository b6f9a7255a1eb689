/**
 * `hydra stats [--all] [--json] [--since <age|date>]`: the ledger of past races, per agent
 * (engine/ledger): races, verified wins, checks passed, reproductions, median time, cost a race
 * and a verified win, judge agreement. On a terminal, a chart of quality against cost below the
 * table; `--json` prints the ledger whole.
 */
import { findRepoRoot, ledgerRepos, readLedger } from '../../engine/index.js';
import type { AgentLedger, Ledger } from '../../engine/index.js';
import { formatDuration, sanitizeStrings, terminalSafeJson } from '../../ui/index.js';
import { getBoolean, getString, noExtraArguments, parseCommandArgs, parseDuration } from '../args.js';
import type { CliContext } from '../context.js';
import { EXIT, UsageError, seeHelp } from '../errors.js';
import type { Style } from '../style.js';
import { qualityCostChart } from '../stats-chart.js';
import { table } from '../table.js';
import { requireRepo } from '../run-ids.js';

const HEADER = [
  'AGENT',
  'ADAPTER',
  'RACES',
  'VERIFIED WINS',
  'CHECKS PASSED',
  'REPRODUCTIONS',
  'MEDIAN TIME',
  '$/RACE',
  '$/WIN',
  'JUDGE AGREED',
];

export async function statsCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('stats', args, {
    all: { type: 'boolean' },
    json: { type: 'boolean' },
    since: { type: 'string' },
  });
  noExtraArguments('stats', parsed.positionals);
  const sinceText = getString(parsed, 'since');
  const since = sinceText === undefined ? undefined : parseSince(sinceText, Date.now());
  const all = getBoolean(parsed, 'all') === true;
  const repos = all ? ledgerRepos(findRepoRoot(ctx.cwd), ctx.env) : [requireRepo(ctx.cwd)];
  const ledger = await readLedger({ repos, env: ctx.env, ...(since === undefined ? {} : { since }) });
  if (getBoolean(parsed, 'json')) {
    ctx.print(terminalSafeJson(ledger));
    return EXIT.ok;
  }
  for (const line of statsLines(sanitizeStrings(ledger), ctx.out, ctx.stdout.isTTY === true, all))
    ctx.print(line);
  return EXIT.ok;
}

/** `7d`, `12h`, `2w` back from now, or a date (`2026-11-01`, UTC midnight). */
export function parseSince(text: string, now: number): number {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (date !== null) {
    const at = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    if (Number.isFinite(at) && new Date(at).toISOString().startsWith(text.trim())) return at;
    throw new UsageError({
      message: `--since: ${text} is not a date`,
      hint: 'Give an age (30m, 12h, 7d, 2w) or a date (2026-11-01).',
    });
  }
  if (!/^\d{1,6}[mhdw]$/.test(text.trim()))
    throw new UsageError({
      message: `--since needs an age (30m, 12h, 7d, 2w) or a date (2026-11-01), not "${text}"`,
      hint: seeHelp('stats'),
    });
  return now - parseDuration('--since', text, 'stats');
}

const percent = (value: number | null, of: number): string =>
  value === null ? 'n/a' : `${Math.round(value * 100)}% of ${of}`;

const dollars = (value: number | null, estimated: boolean): string =>
  value === null ? 'n/a' : `${estimated ? '~' : ''}$${value >= 1 ? value.toFixed(2) : value.toFixed(4)}`;

const row = (agent: AgentLedger): string[] => [
  agent.agent,
  agent.model === null ? agent.adapter : `${agent.adapter} ${agent.model}`,
  String(agent.races),
  String(agent.verifiedWins),
  percent(agent.checksPassRate, agent.checked),
  String(agent.reproductions),
  agent.medianDurationMs === null ? 'n/a' : formatDuration(agent.medianDurationMs),
  dollars(agent.costPerRace, agent.costEstimated),
  dollars(agent.costPerVerifiedWin, agent.costEstimated),
  percent(agent.judgeAgreement, agent.judged),
];

/** What the figures left out, in one line (nothing when nothing was). */
export function skippedLine(ledger: Ledger): string | null {
  const { damaged, unfinished, foreign, missingRepos } = ledger.skipped;
  const parts = [
    damaged > 0
      ? `${damaged} damaged record${damaged === 1 ? '' : 's'} (hydra runs shows what is wrong)`
      : null,
    unfinished > 0 ? `${unfinished} unfinished run${unfinished === 1 ? '' : 's'}` : null,
    foreign > 0 ? `${foreign} committed record${foreign === 1 ? '' : 's'} (not hydra's)` : null,
    missingRepos > 0 ? `${missingRepos} repositor${missingRepos === 1 ? 'y' : 'ies'} no longer there` : null,
  ].filter((part): part is string => part !== null);
  return parts.length === 0 ? null : `skipped: ${parts.join(', ')}`;
}

/** The table, the chart (on a terminal) and what was skipped. */
export function statsLines(ledger: Ledger, style: Style, terminal: boolean, all: boolean): string[] {
  const where = all
    ? `${ledger.repos.length} repositor${ledger.repos.length === 1 ? 'y' : 'ies'}`
    : 'this repository';
  const lines: string[] = [];
  if (ledger.agents.length === 0) {
    lines.push(
      `no finished races in ${where}${ledger.since === null ? '' : ' since then'}; start one with: hydra race "<prompt>"`,
    );
  } else {
    lines.push(style.dim(`${ledger.runs} race${ledger.runs === 1 ? '' : 's'} in ${where}`));
    lines.push(...table([HEADER.map((cell) => style.dim(cell)), ...ledger.agents.map(row)]));
    // The contract (issue 34): who changed the base's tests, and who passed only that way.
    const changers = ledger.agents.filter((agent) => agent.testsChanged > 0);
    if (changers.length > 0)
      lines.push(
        `changed the base's tests: ${changers
          .map(
            (agent) =>
              `${agent.agent} in ${agent.testsChanged} race${agent.testsChanged === 1 ? '' : 's'}${
                agent.passedOnlyOwnTests > 0
                  ? ` (${agent.passedOnlyOwnTests} passing only with its own tests)`
                  : ''
              }`,
          )
          .join(', ')}`,
      );
    if (terminal) {
      const chart = qualityCostChart(ledger.agents);
      if (chart.length > 0) lines.push('', ...chart);
    }
  }
  const skipped = skippedLine(ledger);
  if (skipped !== null) lines.push(style.dim(skipped));
  return lines;
}
