/**
 * The detail view: one agent's whole state (status, place, usage, diff, commits, error, score,
 * checks) and its recent event log, as lines. Pure: snapshot data in, lines out.
 */
import { contractOf } from '../../engine/index.js';
import type { AgentSnapshot } from '../../engine/index.js';
import {
  agentElapsed,
  agentStatusLabel,
  checkSymbol,
  checkTone,
  contractTone,
  displayWidth,
  eventLine,
  formatCheck,
  formatContract,
  formatDiff,
  formatDuration,
  formatScore,
  formatUsage,
  formatWhere,
  oneLine,
  runnerLabel,
  sanitize,
  sanitizeName,
  statusTone,
  wrap,
  type Theme,
} from '../text/index.js';
import { fitLine, seg, wrapLines, type Line } from './lines.js';

/** ` · in a container on <engine>` after a check that ran there (the dashboard says where, as `hydra show` does). */
const whereOf = (check: { where?: 'host' | 'container'; engine?: string }, dot: string): string => {
  const where = formatWhere(check);
  return where === null ? '' : ` ${dot} ${where}`;
};

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
  const contract = contractOf(agent.checks);
  if (contract !== null) {
    lines.push([seg(formatContract(contract, symbols.dot), contractTone(contract))]);
    for (const what of contract.changed)
      lines.push([seg(`    ${symbols.dot} ${sanitizeName(what)}`, 'muted')]);
  }
  for (const check of agent.checks ?? []) {
    if (check.own !== undefined)
      lines.push([
        seg(`${checkSymbol(check.own, symbols)} `, checkTone(check.own), true),
        seg(
          `${formatCheck({ ...check, ...check.own, newlyFailing: null, newlyPassing: null }, symbols.dot)} with its own tests`,
        ),
      ]);
    lines.push([
      seg(`${checkSymbol(check, symbols)} `, checkTone(check), true),
      seg(
        `${formatCheck(check, symbols.dot)}${check.gate ? ' (gate)' : ''}${check.own === undefined ? '' : " with the base's tests"} ${symbols.dot} ${formatDuration(check.durationMs)}${whereOf(check, symbols.dot)}`,
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
      const all = sanitize(event.output)
        .split('\n')
        .filter((text) => text.trim() !== '');
      // The result's line above already says its output's first line ("File created successfully at:").
      const output = summarisesFirstLine(event.summary, all[0]) ? all.slice(1) : all;
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

/**
 * Whether a tool result's summary is its output's first line (the adapters summarise a result by it,
 * cut to a summary's length with an ellipsis): the detail view then lists the output from the second.
 */
const summarisesFirstLine = (summary: string, first: string | undefined): boolean => {
  if (first === undefined) return false;
  const said = oneLine(first);
  const shown = oneLine(summary);
  if (said === '' || shown === '') return false;
  const cut = shown.endsWith('…') ? shown.slice(0, -1) : null;
  return said === shown || (cut !== null && cut.length > 0 && said.startsWith(cut));
};
