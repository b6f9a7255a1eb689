/** `hydra show <run> [--json]`: one race's summary, then each agent's events one line each. */
import { commitsBrought, existingBranches, loadConfig, readRun, resolveRunName } from '../../engine/index.js';
import { checkFailureHints } from '../check-hints.js';
import type {
  AgentEventRecord,
  AgentName,
  BroughtCommit,
  JudgeSummary,
  NewTestsSummary,
  RunRecord,
} from '../../engine/index.js';
import { getBoolean, getString, noExtraArguments, parseCommandArgs, refuseBeside } from '../args.js';
import { inParens } from '../../core/text.js';
import type { CliContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import {
  checkSymbol,
  createTheme,
  detectAscii,
  eventText,
  explainRank,
  formatCheck,
  formatScore,
  formatDiff,
  formatDuration,
  formatContract,
  formatNewTests,
  formatWhere,
  formatTime,
  formatUsage,
  oneLine,
  runnerLabel,
  sanitize,
  sanitizeName,
  sanitizeStrings,
  shortRef,
  terminalSafeJson,
  type Symbols,
} from '../../ui/index.js';
import { requireRepo } from '../run-ids.js';
import type { Style } from '../style.js';
import { statusText } from './runs.js';

export async function showCommand(ctx: CliContext, args: string[]): Promise<number> {
  const parsed = parseCommandArgs('show', args, {
    json: { type: 'boolean' },
    tui: { type: 'boolean' },
    config: { type: 'string' },
    ascii: { type: 'boolean' },
  });
  const [given, ...extra] = parsed.positionals;
  if (given === undefined)
    throw new UsageError({
      message: 'hydra show needs a run id: hydra show <run-id|last>',
      hint: 'list run ids with: hydra runs',
    });
  noExtraArguments('show', extra);
  if (getBoolean(parsed, 'tui')) {
    refuseBeside(
      parsed,
      'tui',
      ['config', 'ascii'],
      'show',
      '--tui opens the race in the dashboard, not as text or JSON',
    );
    const config = getString(parsed, 'config');
    // Loaded only here: `hydra show` as text never loads the engine's race or Ink.
    const { reviewInDashboard } = await import('../reopen.js');
    return reviewInDashboard(ctx, given, {
      ascii: getBoolean(parsed, 'ascii') ?? false,
      ...(config === undefined ? {} : { configPath: config }),
    });
  }
  const root = requireRepo(ctx.cwd);
  const entry = await resolveRunName(root, given);
  const record = await readRun(root, entry.runId);
  const commits = await branchCommits(root, record);
  const named = (record.summary?.agents ?? []).flatMap((agent) => (agent.branch ? [agent.branch] : []));
  const kept = new Set(await existingBranches(root, named).catch(() => named));
  const gone = new Set(named.filter((branch) => !kept.has(branch)));
  if (getBoolean(parsed, 'json')) {
    ctx.print(terminalSafeJson({ ...record, commits }));
    return EXIT.ok;
  }
  // Everything in a record came from agents (or whoever wrote the file): sanitized for the terminal.
  // The dashboard's symbols: Unicode, or ASCII where the locale cannot show it (HYDRA_ASCII decides too).
  const { symbols } = createTheme({ ascii: detectAscii(ctx.env), color: false });
  for (const line of renderRun(sanitizeStrings(record), ctx.out, symbols, sanitizeStrings(commits), gone))
    ctx.print(line);
  // What the race's end said of checks that failed for a reason of the place (check-hints.ts).
  if (record.summary !== null)
    for (const hint of await checkFailureHints(record.summary, root, copiedAndShared(ctx)))
      ctx.print(ctx.out.yellow(`hint: ${sanitize(hint)}`));
  return EXIT.ok;
}

/** `[setup] copy` and `share` of the config here (none when it cannot be read: the hint then names more). */
function copiedAndShared(ctx: CliContext): { copy: string[]; share: string[] } {
  try {
    const setup = loadConfig({ cwd: ctx.cwd, env: ctx.env }).config.setup;
    return { copy: setup?.copy ?? [], share: setup?.share ?? [] };
  } catch {
    return { copy: [], share: [] };
  }
}

/**
 * The commits each agent's branch (while it exists) would bring into the base branch, oldest
 * first, with the secrets each adds: the net diff hides a key committed and deleted later.
 */
async function branchCommits(root: string, record: RunRecord): Promise<Record<AgentName, BroughtCommit[]>> {
  const out: Record<AgentName, BroughtCommit[]> = {};
  for (const agent of record.meta.agents) {
    const branch = `refs/heads/hydra/${record.runId}/${agent.agent}`;
    const commits = await commitsBrought(root, record.meta.baseRef, branch).catch(() => null);
    if (commits !== null && commits.length > 0) out[agent.agent] = commits;
  }
  return out;
}

/** Commits listed per agent in the text; `--json` has them all. */
const COMMITS_SHOWN = 20;

/** `  commit  1a2b3c4d5e6f subject  ! private key in id_rsa`, one per commit the merge would bring. */
const commitLines = (commits: readonly BroughtCommit[], style: Style): string[] => [
  ...commits
    .slice(0, COMMITS_SHOWN)
    .map(
      (item) =>
        `  commit  ${shortRef(item.commit)} ${oneLine(item.subject, 70)}${item.secrets.length === 0 ? '' : `  ${style.red(`adds a secret: ${item.secrets.map((found) => `${found.label} in ${found.file}`).join(', ')}`)}`}`,
    ),
  ...(commits.length > COMMITS_SHOWN ? [`  commit  ... ${commits.length - COMMITS_SHOWN} more`] : []),
];

/** Whether a cost is the CLI's own figure or hydra's estimate. */
const COST_SOURCE = {
  reported: 'reported by the CLI',
  estimated: 'estimated from its tokens and the price table',
  unknown: 'unknown (no price for its model, or no tokens reported)',
} as const;

/** Columns an event line takes after its time; `hydra show --json` has the whole text. */
const EVENT_COLUMNS = 120;

export function renderRun(
  record: RunRecord,
  style: Style,
  symbols: Symbols,
  commits: Readonly<Record<AgentName, readonly BroughtCommit[]>> = {},
  gone: ReadonlySet<string> = new Set(),
): string[] {
  const { meta, summary } = record;
  const lines: string[] = [];
  lines.push(`${style.bold('run')}     ${record.runId}`);
  lines.push(`prompt  ${oneLine(meta.prompt, 200)}`);
  lines.push(`base    ${meta.baseBranch ?? 'detached'} @ ${shortRef(meta.baseRef)}`);
  lines.push(
    `started ${formatTime(meta.startedAt)}${summary ? `, took ${formatDuration(summary.endedAt - summary.startedAt)}` : ''}`,
  );
  for (const note of record.notes) lines.push(style.yellow(`note    ${note}`));
  if (!summary)
    lines.push(style.yellow('no summary: the race is still running, or hydra stopped before it ended'));
  if (summary?.error) lines.push(`${style.red('error')}   ${summary.error.message}`);
  // Every merge of the run, oldest first (a merge keeps the choice open: more may follow).
  for (const merge of record.merge ? [...(record.merge.earlier ?? []), record.merge] : []) {
    const only = merge.only ? `only ${merge.only.map(sanitizeName).join(', ')}` : '';
    lines.push(
      `merged  ${merge.agent} into ${merge.into}${inParens(merge.method, shortRef(merge.commit), only)}`,
    );
  }
  if (record.merge === null && summary?.mergeReason !== undefined)
    lines.push(`merged  nothing: ${summary.mergeReason}`);
  // The rule for what stays behind (docs/dashboard.md): results on branches, worktrees on demand.
  if (Object.keys(commits).length > 0)
    lines.push(
      `kept    results on their branches; hydra open ${record.runId} <agent> makes a worktree again, hydra clean ${record.runId} removes them`,
    );
  if (summary?.baseline !== undefined) {
    const checks = summary.baseline.checks.map(
      (check) => `${checkSymbol(check, symbols)} ${formatCheck(check, symbols.dot)}${whereText(check)}`,
    );
    const why = summary.baseline.error ?? 'no checks ran';
    lines.push(`baseline ${checks.length === 0 ? why : checks.join('  ')}`);
  }
  if (summary?.judge !== undefined) lines.push(...judgeLines(summary.judge, symbols));
  const agents: AgentName[] = summary
    ? summary.agents.map((agent) => agent.agent)
    : meta.agents.map((agent) => agent.agent);
  // A named agent's CLI beside its name: `opus (claude)`.
  const cliOf = (agent: AgentName): string => {
    const adapter = meta.agents.find((item) => item.agent === agent)?.adapter ?? agent;
    return adapter === agent ? '' : ` (${adapter})`;
  };
  for (const agent of agents) {
    lines.push('');
    const result = summary?.agents.find((item) => item.agent === agent);
    const metaAgent = meta.agents.find((item) => item.agent === agent);
    if (result) {
      lines.push(
        `${style.bold(agent)}${cliOf(agent)}  ${statusText(result, style)}  ${formatDuration(result.durationMs)}  ${formatDiff(result.diff)}`,
      );
      lines.push(`  usage   ${formatUsage(result.usage, symbols.dot)}`);
      lines.push(`  cost    ${COST_SOURCE[result.usage.costSource]}`);
      // After follow-ups: the usage and time above are the sums of the rounds listed here.
      for (const [index, round] of (result.rounds ?? []).entries()) {
        const took =
          round.startedAt === null || round.endedAt === null
            ? ''
            : ` ${symbols.dot} took ${formatDuration(round.endedAt - round.startedAt)}`;
        lines.push(
          `  round ${index + 1} ${formatUsage(round.usage, symbols.dot)}${took}: ${oneLine(round.prompt, 80)}`,
        );
      }
      if (result.branch)
        lines.push(
          `  branch  ${result.branch}${gone.has(result.branch) ? style.yellow(' (deleted since the race)') : ''}`,
        );
      if (result.port !== undefined && result.port !== null) lines.push(`  port    ${result.port}`);
      const runner = runnerLabel(result);
      if (runner !== null) lines.push(`  runner  ${runner}`);
      lines.push(...commitLines(commits[agent] ?? [], style));
      const contract = result.contract ?? null;
      if (contract !== null) {
        const text = `  tests   ${formatContract(contract, symbols.dot)}`;
        lines.push(contract.passesOwn && !contract.passesBase ? style.yellow(text) : text);
        if (contract.changed.length > 3)
          for (const what of contract.changed) lines.push(`          ${symbols.dot} ${sanitizeName(what)}`);
      }
      for (const check of result.checks ?? []) {
        // Both runs of the contract: with the result's own tests, then with the base's.
        if (check.own !== undefined)
          lines.push(
            `  check   ${checkSymbol(check.own, symbols)} ${formatCheck({ ...check, ...check.own, newlyFailing: null, newlyPassing: null }, symbols.dot)}${check.gate ? ' (gate)' : ''} with its own tests`,
          );
        lines.push(
          `  check   ${checkSymbol(check, symbols)} ${formatCheck(check, symbols.dot)}${check.gate ? ' (gate)' : ''}${check.own === undefined ? '' : " with the base's tests"}${whereText(check)}`,
        );
        for (const reason of check.own?.tampered ?? [])
          lines.push(`          ${style.yellow(`its own run is not evidence: ${reason}`)}`);
        for (const reason of check.tampered ?? [])
          lines.push(`          ${style.yellow(`not evidence: ${reason}`)}`);
        if (check.checkoutChanged !== undefined)
          lines.push(
            `          ${style.yellow(`its checkout changed while it ran: ${check.checkoutChanged.join(', ')}`)}`,
          );
      }
      if (result.newTests !== undefined) lines.push(`  tests   ${newTestsText(result.newTests, symbols)}`);
      if (result.outsideAllowed !== undefined && result.outsideAllowed.length > 0)
        lines.push(
          `  ${style.yellow('scope')}   outside allowed_paths: ${result.outsideAllowed.map(sanitizeName).join(', ')}`,
        );
      if (result.score !== undefined) lines.push(`  ${formatScore(result.score, symbols.dot)}`);
      // Why it ranks where it does, in one line from the summary (ui/text/verdict.ts).
      if (result.score !== undefined && summary !== null)
        lines.push(`  why     ${explainRank(result, summary)}`);
      if ((result.score?.flags ?? []).length > 0)
        lines.push(
          `  ${style.yellow('flagged')} its checks are not evidence, so it cannot win --auto-merge best${summary?.allowTestChanges === true ? ' (allowed: --allow-test-changes)' : ' without --allow-test-changes'}`,
        );
      if (result.error)
        lines.push(
          `  ${style.red('error')}   ${result.error.message}${result.error.hint ? ` (${result.error.hint})` : ''}`,
        );
    } else {
      lines.push(`${style.bold(agent)}${cliOf(agent)}`);
    }
    if (metaAgent?.version) lines.push(`  version ${metaAgent.version}`);
    const events = withoutFragments(record.events.filter((item) => item.agent === agent));
    lines.push(`  events (${events.length}):`);
    for (const item of events)
      lines.push(`    ${eventTime(item, meta.startedAt)} ${eventText(item.event, symbols, EVENT_COLUMNS)}`);
    lines.push(...stderrLines(events, style));
  }
  return lines;
}

/**
 * The events without the streamed fragments of a message whose whole text follows them (Gemini CLI
 * streams deltas, then hydra records the message; Claude Code with partial messages): one line per
 * message. Fragments that no whole message follows (a stream cut short) stay.
 */
function withoutFragments(events: readonly AgentEventRecord[]): AgentEventRecord[] {
  const shown: AgentEventRecord[] = [];
  let fragments: AgentEventRecord[] = [];
  for (const item of events) {
    const { event } = item;
    if (event.kind === 'message' && event.partial === true) {
      fragments.push(item);
      continue;
    }
    if (event.kind !== 'message') shown.push(...fragments);
    fragments = [];
    shown.push(item);
  }
  return [...shown, ...fragments];
}

/**
 * The judge's verdict on a tie: `judge   opus ranked 2 tied results`, then `  1. claude · reason`;
 * or why it gave none.
 */
const judgeLines = (judge: JudgeSummary, symbols: Symbols): string[] => {
  const head =
    judge.ranking === null
      ? `judge   ${judge.agent}: ${oneLine(judge.warning ?? 'no ranking', 200)}`
      : `judge   ${judge.agent} ranked ${judge.contenders.length} tied results${judge.warning === null ? '' : ` ${symbols.dot} ${oneLine(judge.warning, 120)}`}`;
  return [
    head,
    ...(judge.ranking ?? []).map(
      (item, index) => `  ${index + 1}. ${item.agent} ${symbols.dot} ${oneLine(item.reason, 160)}`,
    ),
    ...judge.addressedJudge.map((item) => `  ${symbols.warn} addresses the judge: ${oneLine(item, 160)}`),
  ];
};

/** Cross-testing: `2 new tests · 1 reproduces · on codex 1/2 pass`. */
const newTestsText = (newTests: NewTestsSummary, symbols: Symbols): string =>
  [
    formatNewTests(newTests, symbols.dot),
    ...Object.entries(newTests.onOthers).map(
      ([other, counts]) => `on ${other} ${counts.passed}/${newTests.count} pass`,
    ),
  ].join(` ${symbols.dot} `) + whereText(newTests.where?.self ?? {});

/** ` (in a container on <engine>)` after a check that ran there; nothing for this machine. */
const whereText = (check: { where?: 'host' | 'container'; engine?: string }): string => {
  const where = formatWhere(check);
  return where === null ? '' : ` (${where})`;
};

/** How many of the last stderr lines of a failed agent to show. */
const STDERR_LINES = 20;

/** The stderr tail a failed agent left (kept in its `failed` event), last lines only. */
const stderrLines = (events: AgentEventRecord[], style: Style): string[] => {
  const failed = events.findLast((item) => item.event.kind === 'failed')?.event;
  const tail = failed?.kind === 'failed' ? (failed.stderrTail ?? '') : '';
  const text = tail.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (text.length === 0) return [];
  return [
    `  ${style.dim('stderr (last lines):')}`,
    ...text.slice(-STDERR_LINES).map((line) => `    ${oneLine(line, 200)}`),
  ];
};

const eventTime = (record: AgentEventRecord, startedAt: number): string =>
  `+${formatDuration(Math.max(0, record.at - startedAt))}`.padStart(8);
