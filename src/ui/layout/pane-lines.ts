/**
 * The lines of one agent pane, cut to its width and height.
 */
import { assertNever } from '../../core/events.js';
import { contractOf } from '../../engine/index.js';
import type { AgentSnapshot } from '../../engine/index.js';
import {
  agentElapsed,
  checkSymbol,
  checkTone,
  contractTone,
  formatContract,
  eventLine,
  formatCheck,
  formatNewTests,
  formatScore,
  formatDiff,
  formatDuration,
  formatRoundCosts,
  formatUsageToFit,
  idleLabel,
  isRunning,
  isShownInPane,
  statusSymbol,
  statusTone,
} from '../text/index.js';
import { fitLine, seg, spread, type Line } from './lines.js';
import type { Theme } from '../text/index.js';
import { agentStatusLabel, displayWidth, oneLine, runnerLabel } from '../text/index.js';

export interface PaneLineOptions {
  index: number;
  focused: boolean;
  now: number;
  theme: Theme;
  width: number;
  height: number;
  /** One title line with the status on the right (stacked layout) instead of two. */
  compact: boolean;
}

/** Spinner frame from the snapshot clock: about four frames a second. */
const spinnerFrame = (now: number): number => Math.floor(now / 250);

export const titleLine = (
  agent: AgentSnapshot,
  options: Pick<PaneLineOptions, 'index' | 'focused' | 'theme'>,
): Line => {
  const { symbols } = options.theme;
  const marker = options.focused ? `${symbols.focus} ` : '  ';
  const line: Line = [
    seg(marker, 'accent', true),
    seg(`${options.index + 1} `, 'muted'),
    seg(agent.displayName, options.focused ? 'accent' : null, true),
  ];
  // A named agent (`opus`, `claude-2`) says which CLI it runs.
  if (agent.agent !== agent.adapter) line.push(seg(` ${symbols.dot} ${agent.adapterName}`, 'muted'));
  if (agent.model !== null) line.push(seg(` ${symbols.dot} ${agent.model}`, 'muted'));
  // In a container (and on which engine, when not the environment's): it starts slower than here.
  const runner = runnerLabel(agent);
  if (runner !== null) line.push(seg(` ${symbols.dot} ${runner}`, 'muted'));
  return line;
};

const statusLine = (agent: AgentSnapshot, now: number, theme: Theme): Line => {
  const symbol = statusSymbol(agent.status, theme.symbols, spinnerFrame(now));
  const label = agentStatusLabel(agent, theme.symbols.ellipsis);
  const line: Line = [seg(`${symbol} ${label}`, statusTone(agent.status), true)];
  const elapsed = agentElapsed(agent, now);
  if (elapsed !== null) line.push(seg(` ${formatDuration(elapsed)}`));
  const idle = idleLabel(agent, now);
  if (idle !== null) {
    const stalling = agent.lastOutputAt === null ? false : now - agent.lastOutputAt >= 30_000;
    line.push(seg(` ${theme.symbols.dot} ${idle}`, stalling ? 'warn' : 'muted'));
  }
  return line;
};

/**
 * Experimental tier, inferred flags and adapter warnings, as one line (or none). A warning too wide
 * for the pane is cut at the end of its first clause, not mid-word; the detail view has it whole.
 */
const warningLine = (agent: AgentSnapshot, theme: Theme, width: number): Line | null => {
  const parts: string[] = [];
  if (agent.tier === 'experimental') parts.push('experimental adapter');
  if (agent.inferredFlags) parts.push('inferred flags');
  const [first] = agent.warnings;
  const count = `${agent.warnings.length} warning${agent.warnings.length === 1 ? '' : 's'}`;
  if (first !== undefined)
    parts.push(
      parts.length === 0 && agent.warnings.length === 1
        ? clauseToFit(oneLine(first), width - 2, count)
        : count,
    );
  if (parts.length === 0) return null;
  return [seg(`${theme.symbols.warn} ${parts.join(` ${theme.symbols.dot} `)}`, 'warn')];
};

/** `text` when it fits `room`; else its first clause (up to `(`, `:`, `;` or `,`) when that fits; else `short`. */
const clauseToFit = (text: string, room: number, short: string): string => {
  if (displayWidth(text) <= room) return text;
  const clause = /^(.+?)\s*[(:;,]/.exec(text)?.[1];
  return clause !== undefined && displayWidth(clause) <= room ? clause : short;
};

/** What the agent ended with: its diff summary, or its error and the recovery hint. */
const outcomeLines = (agent: AgentSnapshot, theme: Theme): Line[] => {
  const { symbols } = theme;
  const errorLines = (fallback: string): Line[] => {
    if (agent.error === null) {
      const exit = agent.exitCode === null ? '' : ` (exit code ${agent.exitCode})`;
      return [[seg(`${symbols.fail} ${fallback}${exit}`, 'error')]];
    }
    return [
      [seg(`${symbols.fail} ${agent.error.kind}: ${oneLine(agent.error.message)}`, 'error')],
      [seg(`  hint: ${oneLine(agent.error.hint)}`, 'warn')],
    ];
  };
  switch (agent.status) {
    case 'pending':
    case 'setting_up':
    case 'spawning':
    case 'running':
      return [];
    case 'completed':
      return [
        [
          seg(`${symbols.ok} `, 'ok'),
          seg(agent.diff === null ? `computing diff${symbols.ellipsis}` : formatDiff(agent.diff), 'ok', true),
        ],
      ];
    case 'failed':
      return errorLines('failed');
    case 'timed_out':
      return errorLines('timed out');
    case 'cancelled':
      return agent.error === null
        ? [[seg(`${symbols.stopped} stopped before finishing`, 'warn')]]
        : errorLines('stopped');
    case 'skipped':
      return agent.error === null ? [[seg(`${symbols.stopped} skipped`, 'warn')]] : errorLines('skipped');
    default:
      return assertNever(agent.status);
  }
};

/** `✔ build  ✘ test 1/3 · 2 newly failing`, `running checks…` while they run, or nothing. */
const checksLine = (agent: AgentSnapshot, theme: Theme): Line | null => {
  const { symbols } = theme;
  if (agent.checking) return [seg(`${symbols.progress} running checks${symbols.ellipsis}`, 'muted')];
  if (agent.checks === null || agent.checks.length === 0) return null;
  return agent.checks.flatMap((check, index) => [
    ...(index === 0 ? [] : [seg('  ')]),
    seg(`${checkSymbol(check, symbols)} `, checkTone(check), true),
    seg(formatCheck(check, symbols.dot), checkTone(check) === 'ok' ? null : checkTone(check)),
  ]);
};

/** The contract, when it changed the base's tests: `changed the tests: lib.test.js · passes only with its own tests`. */
const contractLine = (agent: AgentSnapshot, theme: Theme): Line | null => {
  const contract = agent.checking ? null : contractOf(agent.checks);
  return contract === null
    ? null
    : [seg(formatContract(contract, theme.symbols.dot), contractTone(contract))];
};

/** Cross-testing: its new tests and whether they reproduce the bug (`1 new test · 1 reproduces`). */
const newTestsLine = (agent: AgentSnapshot, theme: Theme): Line | null =>
  agent.newTests === undefined
    ? null
    : [
        seg(
          formatNewTests(agent.newTests, theme.symbols.dot),
          agent.newTests.reproductions > 0 ? 'ok' : 'muted',
        ),
      ];

/** The score, once the race is scored; flagged when its checks are not evidence (tests changed). */
const scoreLine = (agent: AgentSnapshot, theme: Theme): Line | null =>
  agent.score === null
    ? null
    : [
        seg(
          formatScore(agent.score, theme.symbols.dot),
          agent.score.disqualified === null ? 'accent' : 'muted',
          true,
        ),
        ...((agent.score.flags ?? []).length === 0
          ? []
          : [seg(` ${theme.symbols.dot} ${theme.symbols.warn} checks not evidence (tests changed)`, 'warn')]),
      ];

const usageLine = (agent: AgentSnapshot, theme: Theme, width: number): Line => [
  seg(formatUsageToFit(agent.usage, width, theme.symbols.dot), 'muted'),
];

/** After a follow-up: what each round cost (the usage line above is their sum). */
const roundsLines = (agent: AgentSnapshot, theme: Theme): Line[] =>
  agent.rounds === undefined ? [] : [[seg(formatRoundCosts(agent.rounds, theme.symbols.dot), 'muted')]];

/** The latest `count` displayable events, one line each. */
const eventLines = (agent: AgentSnapshot, count: number, theme: Theme): Line[] => {
  if (count <= 0) return [];
  // A failure is shown with its hint below the events; its event line would say it twice.
  const shown = agent.recentEvents.filter(
    (event) => isShownInPane(event) && !(event.kind === 'failed' && agent.error !== null),
  );
  if (shown.length === 0) {
    const text = isRunning(agent.status) ? `waiting for output${theme.symbols.ellipsis}` : 'no events';
    return [[seg(text, 'muted')]];
  }
  return shown.slice(-count).map((event) => {
    const line = eventLine(event, theme.symbols);
    return [seg(`${line.symbol} `, line.tone), seg(line.text, line.tone === 'muted' ? 'muted' : null)];
  });
};

/** The warning line's first part only (`⚠ experimental`), for a pane too short for the line. */
const shortWarning = (agent: AgentSnapshot, theme: Theme): Line => {
  const label =
    agent.tier === 'experimental'
      ? 'experimental'
      : agent.inferredFlags
        ? 'inferred flags'
        : `${agent.warnings.length} warning${agent.warnings.length === 1 ? '' : 's'}`;
  return [seg(` ${theme.symbols.warn} ${label}`, 'warn')];
};

/** All the lines of a pane, cut to its width, at most `height` of them. */
export const paneLines = (agent: AgentSnapshot, options: PaneLineOptions): Line[] => {
  const { theme, width, height, now } = options;
  const ellipsis = theme.symbols.ellipsis;
  const top: Line[] = options.compact
    ? [spread(titleLine(agent, options), statusLine(agent, now, theme), width, ellipsis)]
    : [titleLine(agent, options), statusLine(agent, now, theme)];
  const warning = warningLine(agent, theme, width);
  const ended = outcomeLines(agent, theme);
  const checks = checksLine(agent, theme);
  const contract = contractLine(agent, theme);
  const newTests = newTestsLine(agent, theme);
  const score = scoreLine(agent, theme);
  const outcome = [
    ...ended,
    ...[checks, contract, newTests, score].filter((line): line is Line => line !== null),
  ];
  const bottom: Line[] = [usageLine(agent, theme, width), ...roundsLines(agent, theme), ...outcome];
  const full = warning === null ? top : [...top, warning];
  const eventRoom = height - full.length - bottom.length;
  const all = [...full, ...eventLines(agent, eventRoom, theme), ...bottom];
  if (all.length <= height) return all.map((line) => fitLine(line, width, ellipsis));
  // Too short for everything: the title and status first, the warning folded into the status
  // line, then the result (outcome, checks, score) before the usage.
  const status = top.length - 1;
  const short =
    warning === null
      ? top
      : top.map((line, index) =>
          index === status
            ? options.compact
              ? spread(
                  titleLine(agent, options),
                  [...shortWarning(agent, theme), seg(' '), ...statusLine(agent, now, theme)],
                  width,
                  ellipsis,
                )
              : [...line, ...shortWarning(agent, theme)]
            : line,
        );
  // Once scored, the verdict comes first: the score, how the agent ended, its checks and new tests
  // share one line (the line of a one-row pane's title), then an error's hint.
  const verdict =
    score === null ? null : joinLines([score, ended[0] ?? null, checks, contract, newTests], theme);
  if (verdict !== null && options.compact && height === 1)
    return [spread(titleLine(agent, options), verdict, width, ellipsis)];
  const result = verdict === null ? outcome : [verdict, ...ended.slice(1)];
  const kept = [...short, ...result, usageLine(agent, theme, width), ...roundsLines(agent, theme)];
  return kept.slice(0, Math.max(0, height)).map((line) => fitLine(line, width, ellipsis));
};

/** The lines given, as one, with a dot between each. */
const joinLines = (lines: ReadonlyArray<Line | null>, theme: Theme): Line =>
  lines
    .filter((line): line is Line => line !== null && line.length > 0)
    .flatMap((line, index) => (index === 0 ? line : [seg(` ${theme.symbols.dot} `, 'muted'), ...line]));
