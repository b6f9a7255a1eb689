/**
 * `hydra race --attempts N`: while no result passed every check and the budget has room for one
 * more, another attempt (a rerun on a new branch, `claude-2`) of the agent with the best record,
 * its prompt the race's with the failing checks' output; up to N attempts in all.
 */
import { readLedger, findRepoRoot } from '../engine/index.js';
import type { AgentLedger, AgentSummary, RaceHandle, RaceSummary } from '../engine/index.js';
import type { CliContext } from './context.js';
import { sanitize } from '../ui/index.js';

export interface AttemptPlan {
  /** Attempts in all, the race's first included. */
  attempts: number;
  /** `--max-cost-usd`: another attempt only while its expected cost still fits. */
  maxCostUsd?: number;
}

/** How much of a failing check's output the next attempt is given. */
const OUTPUT_CHARS = 2_000;

/** A completed result whose every check ran and passed. */
export const verified = (agent: AgentSummary): boolean =>
  agent.status === 'completed' &&
  (agent.checks ?? []).length > 0 &&
  (agent.checks ?? []).every((check) => check.status === 'passed');

const spent = (summary: RaceSummary): number =>
  summary.agents.reduce((sum, agent) => sum + (agent.usage.costUsd ?? 0), 0);

/** The agent a rerun is of: its own name, or the one it reran. */
const baseName = (agent: AgentSummary): string => agent.rerunOf ?? agent.agent;

/** Verified wins per dollar in the ledger; an agent without a line ranks last. */
const record = (ledger: readonly AgentLedger[], name: string): number => {
  const line = ledger.find((item) => item.agent === name || name.startsWith(`${item.agent}-`));
  if (line === undefined) return -1;
  return line.costUsd === null || line.costUsd <= 0 ? line.verifiedWins : line.verifiedWins / line.costUsd;
};

/** The agent to try again: the best record here, then the best score of this race. */
export const bestAgent = (summary: RaceSummary, ledger: readonly AgentLedger[]): AgentSummary | null => {
  // The latest attempt first among equals: its checks' output is the newest.
  const tried = summary.agents.filter((agent) => agent.status !== 'skipped').reverse();
  const ranked = [...tried].sort(
    (a, b) =>
      record(ledger, baseName(b)) - record(ledger, baseName(a)) ||
      (b.score?.total ?? -1) - (a.score?.total ?? -1),
  );
  return ranked[0] ?? null;
};

/** The race's prompt, then what the last attempt's failing checks said. */
export const attemptPrompt = (prompt: string, last: AgentSummary): string => {
  const failing = (last.checks ?? []).filter((check) => check.status !== 'passed');
  if (failing.length === 0) return prompt;
  const outputs = failing.map(
    (check) =>
      `Check "${check.name}" ${check.status.replace('_', ' ')}${check.exitCode === null ? '' : ` (exit code ${check.exitCode})`}:\n${check.output.slice(-OUTPUT_CHARS)}`,
  );
  return `${prompt}\n\nAn earlier attempt at this task did not pass these checks; make them pass:\n\n${outputs.join('\n\n')}`;
};

/** Why no further attempt starts, or null when one should. */
export const attemptStop = (
  summary: RaceSummary,
  plan: AttemptPlan,
  made: number,
  next: AgentSummary | null,
): string | null => {
  if (summary.agents.some(verified)) return 'a result passed every check';
  if (made >= plan.attempts) return `${plan.attempts} attempts made, none passed every check`;
  if (next === null) return 'no agent to try again';
  if (plan.maxCostUsd !== undefined) {
    const expected = spent(summary) + (next.usage.costUsd ?? 0);
    if (expected > plan.maxCostUsd)
      return `another attempt of ${baseName(next)} (about $${(next.usage.costUsd ?? 0).toFixed(4)}) would pass --max-cost-usd $${plan.maxCostUsd}`;
  }
  return null;
};

/** Runs the further attempts while the race reviews; the summary after the last one. */
export async function runAttempts(
  ctx: CliContext,
  handle: RaceHandle,
  first: RaceSummary,
  plan: AttemptPlan,
): Promise<RaceSummary> {
  const root = findRepoRoot(ctx.cwd);
  const ledger = root === null ? [] : (await readLedger({ repos: [root], env: ctx.env })).agents;
  let summary = first;
  for (let made = 1; ; made += 1) {
    const next = bestAgent(summary, ledger);
    const stop = attemptStop(summary, plan, made, next);
    if (stop !== null || next === null) {
      if (made > 1 || !summary.agents.some(verified))
        ctx.note(`hydra: --attempts: ${sanitize(stop ?? 'done')}`);
      return summary;
    }
    ctx.note(
      `hydra: --attempts: no result passed every check; attempt ${made + 1} of ${plan.attempts}: ${baseName(next)} again, given the failing checks' output`,
    );
    summary = await handle.startRound({
      kind: 'rerun',
      agent: next.agent,
      prompt: attemptPrompt(summary.prompt, next),
    });
  }
}

export interface AttemptsBehind {
  /** Settles once the attempts ran (or none could) and the held auto-merge decided. */
  done: Promise<void>;
  /** What they have to say, for after the dashboard closed. */
  notes: string[];
}

/**
 * `--attempts` in the dashboard: the same attempts once every agent settled, each a new pane (as
 * `r` makes one), then the held auto-merge. What headless says on stderr is kept in `notes`, for
 * after the dashboard; a merge, a quit or a round of the user's own ends the attempts.
 */
export function attemptsBehind(
  ctx: CliContext,
  handle: RaceHandle,
  { attempts: plan }: { attempts?: AttemptPlan | undefined },
): AttemptsBehind | undefined {
  if (plan === undefined) return undefined;
  const notes: string[] = [];
  const quiet: CliContext = { ...ctx, note: (line = '') => notes.push(line) };
  const done = (async () => {
    try {
      await runAttempts(quiet, handle, await handle.settled, plan);
      await handle.releaseAutoMerge();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      notes.push(`hydra: --attempts: no further attempt (${sanitize(why)})`);
    }
  })();
  return { done, notes };
}
