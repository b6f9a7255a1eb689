/**
 * Runs one race to the end, either with the dashboard (a terminal) or headless (NDJSON on stdout,
 * messages on stderr). Shared by `hydra race` and `hydra demo`.
 */
import { openSync } from 'node:fs';
import tty from 'node:tty';
import { startRace } from '../engine/index.js';
import type {
  AgentSnapshot,
  RaceHandle,
  RaceOptions,
  RaceSnapshot,
  RaceSummary,
  ScoreSummary,
} from '../engine/index.js';
import { inParens } from '../core/text.js';
import type { CliContext } from './context.js';
import { EXIT, noteError, noteHint, TERMINAL_LOST } from './errors.js';
import {
  formatCost,
  formatDiff,
  formatScore,
  formatDuration,
  rankingLines,
  runDashboard,
  sanitize,
  shortRef,
  terminalSafeJson,
} from '../ui/index.js';
import { shellQuote } from './shell-quote.js';
import { noteCheckHints } from './check-hints.js';
import { notifyOnPhases } from './notify.js';
import { earlyStop, earlyStopLine } from './stopped-early.js';
import { attemptsBehind, runAttempts, type AttemptPlan, type AttemptsBehind } from './attempts.js';
import type { HeadlessLine } from './headless.js';
import { adaptersOf, eventLineJson, raceIsUnderway, raceLine, summaryLine } from './headless.js';

export interface SessionOptions {
  /** Dashboard (terminal) or NDJSON (headless). */
  mode: 'dashboard' | 'headless';
  ascii: boolean;
  /** How to spell the hydra command in printed suggestions (the demo adds `cd <repo> &&`). */
  commandPrefix?: string;
  /**
   * stdin was used up (the prompt was piped in): the dashboard reads its keys from the
   * controlling terminal (/dev/tty), so the race still ends in the review step.
   */
  keysFromTerminal?: boolean;
  /** A headless run's exit code from its summary (a follow-up: whether its agent completed). */
  exitCode?: (summary: RaceSummary) => number;
  /** A recorded race opened again for another round: its settled agents are not news. */
  reopened?: boolean;
  /** Said in the dashboard's header (`simulated agents` for `hydra demo --here`). */
  marker?: string;
  /** `--attempts N`: further attempts while no result passed every check (attempts.ts). */
  attempts?: AttemptPlan;
  /** `--notify`, `[ui] notify`: a bell and a desktop notification when the race needs the user (notify.ts). */
  notify?: boolean;
}

/** Ink's own test (is-in-ci): in CI it draws no live frames, so a dashboard there would look hung. */
export const inCi = (env: NodeJS.ProcessEnv): boolean =>
  ['CI', 'CONTINUOUS_INTEGRATION'].some(
    (key) => env[key] !== undefined && env[key] !== '0' && env[key] !== 'false',
  );

/** Chooses the dashboard only when stdout is a terminal, --json was not given and this is not CI. */
export const chooseMode = (ctx: CliContext, json: boolean): SessionOptions['mode'] =>
  !json && ctx.stdout.isTTY === true && !inCi(ctx.env) ? 'dashboard' : 'headless';

/**
 * The signals each mode answers itself once hydra has cancelled the race: all three, so the
 * dashboard's last screen or the headless summary line is written first. A hangup then ends hydra
 * by SIGHUP (TERMINAL_LOST), Ctrl-C and SIGTERM with the interrupted code.
 */
const SIGNALS_HANDLED = {
  dashboard: ['SIGINT', 'SIGTERM', 'SIGHUP'],
  headless: ['SIGINT', 'SIGTERM', 'SIGHUP'],
} as const;

export async function runRaceSession(
  ctx: CliContext,
  options: RaceOptions,
  session: SessionOptions,
): Promise<number> {
  if (options.unsafe) warnUnsafe(ctx);
  const handle = startRace(options, { signalsHandledByCaller: SIGNALS_HANDLED[session.mode] });
  // --attempts in the dashboard run behind it once every agent settled; its review is told after them.
  const attempting = session.mode === 'dashboard' ? attemptsBehind(ctx, handle, session) : undefined;
  // The dashboard's terminal, or a headless race's stderr when that is one (never the NDJSON).
  const stream = session.mode === 'dashboard' ? ctx.stdout : ctx.stderr;
  const stopNotifying = session.notify
    ? notifyOnPhases(handle, stream, session.mode, attempting?.done)
    : () => {};
  try {
    return await (session.mode === 'dashboard'
      ? runWithDashboard(ctx, handle, session, options, attempting)
      : runHeadless(ctx, handle, session, options));
  } finally {
    stopNotifying();
  }
}

/** The copied and shared directories a race's worktrees get (`[setup]`), for the check hints. */
const setupOf = (options: RaceOptions): { copy: string[]; share: string[] } => ({
  copy: options.setup?.copy ?? [],
  share: options.setup?.share ?? [],
});

function warnUnsafe(ctx: CliContext): void {
  const { err } = ctx;
  ctx.note(
    err.yellow(err.bold('WARNING: --unsafe: ')) +
      err.yellow(
        "agents run in the vendors' sandbox-bypass modes (no approvals, no sandbox). They can run any command " +
          'and change any file your user can, outside their worktree too. Use it only in a disposable machine or container.',
      ),
  );
}

// ---------------------------------------------------------------------------------------------
// Dashboard

async function runWithDashboard(
  ctx: CliContext,
  handle: RaceHandle,
  session: SessionOptions,
  options: RaceOptions,
  attempting: AttemptsBehind | undefined,
): Promise<number> {
  const terminal = session.keysFromTerminal === true ? openTerminalInput(ctx) : null;
  // --ascii forces ASCII; otherwise the dashboard detects it from the locale (and HYDRA_ASCII=1).
  const result = await runDashboard(handle, {
    ...(session.ascii ? { ascii: true } : {}),
    noColor: !ctx.out.enabled,
    stdin: terminal ?? ctx.stdin,
    stdout: ctx.stdout,
    keepWorktrees: options.keepWorktrees,
    env: ctx.env,
    ...(session.marker === undefined ? {} : { marker: session.marker }),
  }).finally(() => terminal?.destroy());
  await attempting?.done;
  for (const line of attempting?.notes ?? []) ctx.note(line);
  // The race was cancelled and cleaned up like on Ctrl-C; there is no terminal to say more on.
  if (result.terminalLost) return TERMINAL_LOST;
  // The dashboard's last screen says what was merged; when nothing was, say how to merge later.
  if (!result.merged) explainNoMerge(ctx, handle.getSnapshot(), session);
  await handle.settled.then(
    async (summary) => {
      await noteCheckHints(ctx, summary, options.repoPath, setupOf(options));
      const stopped = await earlyStop(summary, ctx.cwd, ctx.env);
      if (stopped !== null) ctx.note(sanitize(earlyStopLine(stopped)));
    },
    () => undefined,
  );
  return result.exitCode;
}

/** The controlling terminal as key input, or null (with a note) when there is none. */
function openTerminalInput(ctx: CliContext): tty.ReadStream | null {
  try {
    const input = new tty.ReadStream(openSync('/dev/tty', 'r'));
    if (input.isTTY) return input;
    input.destroy();
  } catch {
    // No controlling terminal (a detached session): the dashboard runs without keys.
  }
  ctx.note('hydra: no terminal to read keys from; the race ends when every agent has settled');
  return null;
}

// ---------------------------------------------------------------------------------------------
// Headless

async function runHeadless(
  ctx: CliContext,
  handle: RaceHandle,
  session: SessionOptions,
  options: RaceOptions,
): Promise<number> {
  // When the reader goes away (`hydra race ... | head -3`), stop writing and stop the race, as
  // SIGPIPE would, instead of crashing with agents still running.
  let readerGone = false;
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    if (readerGone) return;
    readerGone = true;
    if (error.code !== 'EPIPE')
      ctx.note(`hydra: cannot write to stdout (${error.message}): stopping the race`);
    void handle.cancel();
  };
  ctx.stdout.on('error', onStdoutError);
  // The lines of one batch of events go out in one write (a microtask later), not one per event.
  let pending: string[] = [];
  const flush = (): void => {
    const text = pending.join('');
    pending = [];
    if (!readerGone && text !== '') ctx.stdout.write(text);
  };
  const write = (line: HeadlessLine | string): void => {
    if (readerGone) return;
    if (pending.length === 0) queueMicrotask(flush);
    pending.push(`${typeof line === 'string' ? line : terminalSafeJson(line)}\n`);
  };
  let announced = false;
  const announce = (snapshot: RaceSnapshot, settledSummary?: RaceSummary): void => {
    if (announced) return;
    announced = true;
    const line = raceLine(snapshot);
    // Announced only at the end: the agents that raced are the ones the summary did not skip.
    if (settledSummary)
      line.agents = settledSummary.agents
        .filter((agent) => agent.status !== 'skipped')
        .map((agent) => agent.agent);
    write(line);
    if (snapshot.baseRef !== null) noteStart(ctx, snapshot, warned, session.reopened === true);
  };

  const warned = new Set<string>();
  const progress = createProgressNotes(ctx, warned, session.reopened === true);
  const unsubscribeSnapshots = handle.subscribe((snapshot) => {
    if (raceIsUnderway(snapshot.phase) && snapshot.phase !== 'failed') announce(snapshot);
    progress(snapshot);
    if (announced) noteLaterWarnings(ctx, snapshot, warned);
  });
  let adapters = adaptersOf(handle.getSnapshot());
  const unsubscribeEvents = handle.onEvent((record) => {
    announce(handle.getSnapshot());
    if (!adapters.has(record.agent)) adapters = adaptersOf(handle.getSnapshot());
    write(eventLineJson(record, adapters.get(record.agent) ?? record.agent));
  });

  let interrupted = false;
  let hungUp = false;
  const onSigint = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGHUP') hungUp = true;
    if (interrupted) return;
    interrupted = true;
    ctx.note(ctx.err.yellow('hydra: interrupted: stopping every agent...'));
    void handle.cancel();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  process.on('SIGHUP', onSigint);

  let summary: RaceSummary;
  try {
    summary = await handle.settled;
    // --attempts: more attempts while none is verified and the budget has room (their events print too).
    if (session.attempts !== undefined && !interrupted) {
      summary = await runAttempts(ctx, handle, summary, session.attempts);
      // --auto-merge best, held until now (holdAutoMerge), decides over every attempt's result.
      await handle.releaseAutoMerge();
    }
  } finally {
    unsubscribeSnapshots();
    unsubscribeEvents();
  }
  announce(handle.getSnapshot(), summary);
  try {
    // Ends the race: worktrees are removed unless kept; completed agents' branches stay. The final
    // summary no longer names what the clean-up removed.
    summary = await handle.finish();
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    process.off('SIGHUP', onSigint);
  }
  const stopped = await earlyStop(summary, ctx.cwd, ctx.env);
  write(summaryLine(summary, stopped));
  flush();
  if (stopped !== null) ctx.note(`hydra: ${sanitize(earlyStopLine(stopped))}`);
  if (hungUp) return TERMINAL_LOST;
  if (readerGone) return EXIT.failed;

  noteResults(ctx, summary, session);
  if (!interrupted) await noteCheckHints(ctx, summary, options.repoPath, setupOf(options));
  if (interrupted) return EXIT.interrupted;
  // The race failed (its engine too): whatever completed before, the command did not succeed.
  if (summary.error !== null) return EXIT.failed;
  if (session.exitCode !== undefined) return session.exitCode(summary);
  return summary.agents.some((agent) => agent.status === 'completed') ? EXIT.ok : EXIT.failed;
}

function noteStart(ctx: CliContext, snapshot: RaceSnapshot, warned: Set<string>, reopened: boolean): void {
  const racing = snapshot.agents.filter((agent) => agent.status !== 'skipped').map((agent) => agent.agent);
  const base = snapshot.baseBranch ?? 'HEAD';
  const sha = snapshot.baseRef ? `@${shortRef(snapshot.baseRef)}` : '';
  // A reopened race says which agent runs again as it starts (createProgressNotes).
  if (racing.length > 0 && !reopened)
    ctx.note(`hydra: run ${snapshot.runId}: racing ${racing.join(', ')} from ${base}${sha}`);
  // The engine's warnings already say which agents will not race and why.
  noteLaterWarnings(ctx, snapshot, warned);
  for (const agent of snapshot.agents) {
    for (const warning of agent.warnings) {
      warned.add(`${agent.agent}\0${warning}`);
      ctx.note(ctx.err.yellow(`hydra: ${agent.agent}: ${sanitize(warning)}`));
    }
  }
}

/** The race's warnings not noted yet: those at its start, and those its workspace brings ([setup] share, placement). */
function noteLaterWarnings(ctx: CliContext, snapshot: RaceSnapshot, warned: Set<string>): void {
  for (const warning of snapshot.warnings) {
    if (warned.has(`\0${warning}`)) continue;
    warned.add(`\0${warning}`);
    ctx.note(ctx.err.yellow(`hydra: warning: ${sanitize(warning)}`));
  }
}

/** One stderr line whenever an agent settles, so a human watching a headless run sees progress. */
function createProgressNotes(
  ctx: CliContext,
  warned: Set<string>,
  reopened: boolean,
): (snapshot: RaceSnapshot) => void {
  const reported = new Set<string>();
  // A reopened race's agents settled in an earlier session: only an agent seen running is news.
  const live = new Set<string>();
  let first = true;
  return (snapshot) => {
    if (first && reopened) {
      for (const agent of snapshot.agents)
        for (const warning of agent.warnings) warned.add(`${agent.agent}\0${warning}`);
    }
    first = false;
    if (reopened) {
      for (const agent of snapshot.agents) {
        if (isSettled(agent) || agent.status === 'skipped' || live.has(agent.agent)) continue;
        live.add(agent.agent);
        ctx.note(`hydra: run ${snapshot.runId}: another round for ${agent.agent}`);
      }
    }
    for (const agent of snapshot.agents) {
      // Warnings that come with the end of an agent (e.g. its work could not be committed).
      if (isSettled(agent)) {
        for (const warning of agent.warnings) {
          const key = `${agent.agent}\0${warning}`;
          if (warned.has(key)) continue;
          warned.add(key);
          ctx.note(ctx.err.yellow(`hydra: ${agent.agent}: ${sanitize(warning)}`));
        }
      }
      if (reported.has(agent.agent) || !isSettled(agent) || (reopened && !live.has(agent.agent))) continue;
      // A completed agent's diff arrives once hydra has committed its work: wait for it.
      if (agent.status === 'completed' && agent.diff === null) continue;
      reported.add(agent.agent);
      ctx.note(agentLine(ctx, agent, snapshot.now));
      if (agent.status !== 'completed' && agent.error) noteHint(ctx, agent.error.hint);
    }
  };
}

const isSettled = (agent: AgentSnapshot): boolean =>
  agent.status === 'completed' ||
  agent.status === 'failed' ||
  agent.status === 'timed_out' ||
  agent.status === 'cancelled';

function agentLine(ctx: CliContext, agent: AgentSnapshot, now: number): string {
  const { err } = ctx;
  const elapsed =
    agent.startedAt === null ? '' : ` in ${formatDuration((agent.endedAt ?? now) - agent.startedAt)}`;
  if (agent.status === 'completed') {
    const diff = agent.diff ? formatDiff(agent.diff) : 'no diff';
    return `hydra: ${err.green(`${agent.agent} completed`)}${elapsed}: ${diff}, ${formatCost(agent.usage)}`;
  }
  // An error's message can quote the agent's own output.
  const reason = agent.error ? `: ${sanitize(agent.error.message)}` : '';
  return `hydra: ${err.red(`${agent.agent} ${agent.status.replace('_', ' ')}`)}${elapsed}${reason}`;
}

function noteResults(ctx: CliContext, summary: RaceSummary, session: SessionOptions): void {
  const { err } = ctx;
  const prefix = session.commandPrefix ?? 'hydra';
  if (summary.error) noteError(ctx, summary.error);
  const completed = summary.agents.filter((agent) => agent.status === 'completed');
  if (completed.length === 0) {
    // No base commit: the repository check failed, and its message says what to do.
    if (summary.agents.length === 0 || summary.baseRef === null) return;
    const alreadyHinted = summary.error?.hint.includes('hydra doctor') === true;
    // Failed before any agent started (their worktrees could not be made): the error says why.
    const failedBeforeStarting =
      summary.agents.some((agent) => agent.status === 'failed') &&
      summary.agents.every((agent) => agent.durationMs === 0);
    if (summary.error && failedBeforeStarting) return;
    if (summary.agents.every((agent) => agent.status === 'skipped')) {
      if (alreadyHinted) return;
      ctx.note(
        `hydra: no agent could run. See what is missing with ${err.bold(`${prefix} doctor`)}, ` +
          `or try hydra with simulated agents: ${err.bold('hydra demo')}`,
      );
    } else if (
      summary.agents.every(
        (agent) => (agent.status === 'cancelled' || agent.status === 'skipped') && agent.durationMs === 0,
      )
    ) {
      // Stopped before any agent started: there is no run record to show.
      ctx.note('hydra: the race was cancelled before any agent started; nothing was left behind');
    } else {
      ctx.note(
        `hydra: no agent completed; see what each one did with: ${err.bold(`${prefix} show ${summary.runId}`)}`,
      );
    }
    return;
  }
  ctx.note(`hydra: results of run ${summary.runId}:`);
  for (const agent of completed) {
    // A whole merge removes the merged agent's branch: say where its work went instead.
    const where = agent.branch
      ? `on branch ${agent.branch}`
      : summary.merged?.agent === agent.agent
        ? `merged into ${summary.baseBranch ?? 'HEAD'}`
        : 'not kept on a branch';
    const tree = agent.worktree !== null ? `, worktree ${agent.worktree}` : '';
    const score = agent.score === undefined ? '' : `, ${formatScore(agent.score, '·')}`;
    ctx.note(`  ${agent.agent}: ${formatDiff(agent.diff)} ${where}${tree}${score}`);
  }
  // Why each ranks where it does, best first, one line each (ui/text/verdict.ts).
  const ranking = rankingLines(summary);
  if (ranking.length > 1) {
    ctx.note('hydra: why each result ranks where it does:');
    for (const line of ranking) ctx.note(`  ${sanitize(line)}`);
  }
  if (summary.judge !== undefined) {
    const judge = summary.judge;
    ctx.note(
      judge.ranking === null
        ? `hydra: judge ${judge.agent}: ${sanitize(judge.warning ?? 'no ranking')}`
        : `hydra: judge ${judge.agent} ranked the tie: ${judge.ranking.map((item, index) => `${index + 1}. ${item.agent} (${sanitize(item.reason)})`).join('; ')}`,
    );
  }
  if (summary.merged) {
    ctx.note(
      `hydra: ${err.green(`merged ${summary.merged.agent}`)}${inParens(summary.merged.branch, summary.merged.method)}`,
    );
    return;
  }
  if (summary.mergeReason?.startsWith('--auto-merge') === true)
    ctx.note(`hydra: ${sanitize(summary.mergeReason)}`);
  else if (completed.some((agent) => agent.score?.verified === false))
    ctx.note(
      'hydra: no check ran, so no score above says whether a change is right: review the diffs, or race with --check auto',
    );
  const first = topResult(completed);
  if (first) {
    if (first.branch && summary.baseRef)
      ctx.note(`hydra: see a result with: git diff ${shortRef(summary.baseRef)} ${first.branch}`);
    ctx.note(
      mergeHint(summary.baseBranch, `${prefix} merge ${summary.runId} ${first.agent}`, first.branch, err),
    );
  }
}

/** The result a hint names: the top score that no gate disqualified, else the first to complete. */
function topResult<A extends { score?: ScoreSummary | null | undefined }>(
  results: readonly A[],
): A | undefined {
  const rank = (item: A): number =>
    item.score === undefined || item.score === null || item.score.disqualified !== null
      ? Number.NEGATIVE_INFINITY
      : item.score.total;
  return results.reduce<A | undefined>(
    (best, item) => (best === undefined || rank(item) > rank(best) ? item : best),
    undefined,
  );
}

/**
 * How to take a result: `hydra merge`, which needs a branch to merge into; on a detached HEAD, a
 * switch to a branch first, or to the result's own branch.
 */
function mergeHint(
  baseBranch: string | null,
  merge: string,
  branch: string | null | undefined,
  err: CliContext['err'],
): string {
  if (baseBranch !== null) return `hydra: merge one with: ${err.bold(merge)}`;
  const take = branch ? ` or take it as it is: git switch ${branch}` : '';
  return `hydra: HEAD is detached, so there is no branch to merge into: switch to one (git switch <branch>), then ${err.bold(merge)};${take}`;
}

/** After the dashboard (whose last screen shows errors and hints): how to merge a result later. */
function explainNoMerge(ctx: CliContext, snapshot: RaceSnapshot, session: SessionOptions): void {
  const prefix = session.commandPrefix ?? 'hydra';
  const completed = snapshot.agents.filter((agent) => agent.status === 'completed' && agent.branch);
  const first = topResult(completed);
  if (!first) return;
  ctx.note(`hydra: nothing merged; the results of run ${snapshot.runId} stay on their branches:`);
  for (const agent of completed) ctx.note(`  ${agent.agent}: ${agent.branch ?? ''}`);
  const merge = `${prefix} merge ${shellQuote(snapshot.runId)} ${first.agent}`;
  ctx.note(
    snapshot.baseBranch === null
      ? mergeHint(null, merge, first.branch, ctx.err)
      : `hydra: merge one later with: ${merge}`,
  );
}
