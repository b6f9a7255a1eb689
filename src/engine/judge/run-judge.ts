/**
 * Asks the judge (`--judge <agent>`) to rank the contenders of a tie: each contender's diff is read
 * from its branch and screened (screen.ts); the ones that address the judge are ranked last and not
 * shown to it; the others go, under opaque labels in a random order, into the prompt (prompt.ts).
 * The judge's CLI runs read-only (its adapter's plan or read-only mode; refused without one) in a
 * scratch directory of its own, in the OS sandbox where the race's agents are (judge-jail.ts: it may
 * write that directory only), with a fresh copy of the user's CLI state (never an agent's: a hook
 * an agent planted in its own never runs here), supervised like an agent and time-limited; its
 * scratch directory goes once it answered. Its answer is validated (verdict.ts) and anything else
 * is a warning, never a ranking.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { adapterOf } from '../../adapters/registry.js';
import type { PriceTable } from '../../adapters/types.js';
import type { AgentEvent } from '../../core/events.js';
import { readAgentText } from '../agent-file.js';
import { fullPatch } from '../git/index.js';
import { probeAgents } from '../probe/index.js';
import { agentEnvironment, spawnSupervised } from '../process/index.js';
import type { ProcessRegistry } from '../process/index.js';
import type { AgentName } from '../agent-name.js';
import type { AgentPlan } from '../agent-plan.js';
import type { CheckSummary } from '../check-types.js';
import type { JudgeSummary } from '../records/index.js';
import type { SandboxSettings } from '../sandbox/index.js';
import { judgeJail } from './judge-jail.js';
import { judgePrompt } from './prompt.js';
import type { JudgeEntry } from './prompt.js';
import { addressesJudge } from './screen.js';
import { readRanking } from './verdict.js';

/** How long the judge may take when the race sets no time limit. */
export const JUDGE_TIMEOUT_MS = 300_000;

export interface JudgeInput {
  plan: AgentPlan;
  task: string;
  contenders: Array<{ agent: AgentName; branch: string; checks: CheckSummary[] }>;
  repoRoot: string;
  baseRef: string;
  /** A directory of the run's own, not a worktree: the judge's cwd and scratch. */
  scratchDir: string;
  runId: string;
  processes: ProcessRegistry;
  cacheDir: string | null;
  prices: PriceTable;
  timeoutMs: number;
  graceMs: number;
  /** The race's budget is spent: the judge is not asked. */
  budgetSpent?: boolean;
  /** The race's `[sandbox]`: the judge runs sandboxed where its agents do. */
  sandbox?: SandboxSettings;
  signal?: AbortSignal;
}

/** Fisher–Yates with crypto randomness: the order the judge sees says nothing about the scores. */
const shuffled = <T>(items: readonly T[]): T[] => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = randomBytes(4).readUInt32BE() % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
};

interface Answer {
  text: string | null;
  costUsd: number | null;
  problem: string | null;
}

/** Runs the judge's CLI once, read-only, and returns its final message and cost. */
async function askJudge(input: JudgeInput, prompt: string): Promise<Answer> {
  const { plan } = input;
  const [report] = await probeAgents([plan], {
    cacheDir: input.cacheDir ?? join(input.scratchDir, 'probe-cache'),
    allowExperimental: true,
    unsafe: false,
    processes: input.processes,
  });
  if (report?.capabilities === null || report?.capabilities === undefined || report.status !== 'ready')
    return {
      text: null,
      costUsd: null,
      problem: `it is not usable here (${report?.error?.message ?? 'not found'})`,
    };
  rmSync(input.scratchDir, { recursive: true, force: true });
  mkdirSync(input.scratchDir, { recursive: true, mode: 0o700 });
  try {
    return await askInJail(input, prompt, report.capabilities);
  } finally {
    // Its state copy holds the user's credentials: nothing of it stays.
    rmSync(input.scratchDir, { recursive: true, force: true });
  }
}

/** askJudge's run, in the judge's fresh scratch directory. */
async function askInJail(
  input: JudgeInput,
  prompt: string,
  capabilities: NonNullable<Awaited<ReturnType<typeof probeAgents>>[number]['capabilities']>,
): Promise<Answer> {
  const { plan } = input;
  const adapter = adapterOf(plan.adapterId);
  const jail = await judgeJail(adapter, plan, input.scratchDir, input.sandbox);
  // No extra_args: an argument could switch the read-only mode off.
  const command = adapter.buildCommand(
    {
      prompt,
      cwd: input.scratchDir,
      scratchDir: input.scratchDir,
      ...(plan.model === undefined ? {} : { model: plan.model }),
      unsafe: false,
      extraArgs: [],
      env: plan.env,
      readOnly: true,
      sandboxed: jail.sandbox !== null,
    },
    capabilities,
  );
  if (command.readOnly !== true)
    return {
      text: null,
      costUsd: null,
      problem: `${adapter.displayName} has no read-only mode hydra can ask for here, and a judge must not edit`,
    };
  for (const file of command.files) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.content, { mode: 0o600 });
  }
  const parser = adapter.createParser({
    ...(plan.model === undefined ? {} : { model: plan.model }),
    prices: input.prices,
    cwd: input.scratchDir,
  });
  const events: AgentEvent[] = [];
  const supervised = spawnSupervised(
    {
      file: command.file,
      args: command.args,
      cwd: command.cwd,
      env: { ...command.env, ...jail.env },
      inherit: agentEnvironment(adapter),
      ...(command.stdinFile === undefined ? {} : { stdinFile: command.stdinFile }),
      runId: input.runId,
      agent: `judge:${plan.name ?? plan.adapterId}`,
      graceMs: input.graceMs,
      sandbox: jail.sandbox,
    },
    {
      onSpawn: () => undefined,
      onLine: (line) => events.push(...parser.parseLine(line)),
      onOversizeLine: () => undefined,
    },
    input.processes,
  );
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    supervised.terminate();
    killTimer ??= setTimeout(() => supervised.kill(), input.graceMs);
  };
  const limit = setTimeout(() => {
    timedOut = true;
    stop();
  }, input.timeoutMs);
  input.signal?.addEventListener('abort', stop, { once: true });
  const exit = await supervised.exited;
  clearTimeout(limit);
  clearTimeout(killTimer);
  input.signal?.removeEventListener('abort', stop);
  // Its scratch directory is the judge's to write: the file is read as data, never through a link.
  let refused: string | null = null;
  const lastMessage =
    command.lastMessageFile === undefined
      ? undefined
      : readAgentText(command.lastMessageFile, input.scratchDir, (reason) => (refused = reason));
  const end = parser.finish({
    exitCode: exit.exitCode,
    signal: exit.signal,
    stderrTail: exit.stderrTail,
    sawTerminalEvent: events.some((event) => event.kind === 'completed' || event.kind === 'failed'),
    runId: input.runId,
    ...(timedOut ? { stoppedBy: 'timeout' as const } : {}),
    ...(lastMessage === undefined ? {} : { lastMessage }),
  });
  const all = [...events, end];
  const usages = all.flatMap((event) =>
    event.kind === 'usage'
      ? [event.usage]
      : (event.kind === 'completed' || event.kind === 'failed') && event.usage !== undefined
        ? [event.usage]
        : [],
  );
  const costUsd = usages.at(-1)?.costUsd ?? null;
  const completed = all.find((event) => event.kind === 'completed');
  if (timedOut)
    return {
      text: null,
      costUsd,
      problem: `it did not answer within ${Math.round(input.timeoutMs / 1000)} s`,
    };
  if (exit.spawnError !== undefined)
    return { text: null, costUsd, problem: `it could not start (${exit.spawnError})` };
  if (completed?.kind !== 'completed')
    return {
      text: null,
      costUsd,
      problem: end.kind === 'failed' ? `it failed: ${end.error.message}` : 'it gave no answer',
    };
  const text = completed.result ?? lastMessage ?? null;
  return { text, costUsd, problem: text === null ? refused : null };
}

/** The judge's verdict on the contenders (never throws: what goes wrong is its warning). */
export async function runJudge(input: JudgeInput): Promise<JudgeSummary> {
  const judge = input.plan.name ?? input.plan.adapterId;
  const base: JudgeSummary = {
    agent: judge,
    contenders: input.contenders.map((item) => item.agent),
    ranking: null,
    warning: null,
    addressedJudge: [],
    costUsd: null,
  };
  if (input.budgetSpent === true)
    return { ...base, warning: "the race's budget (--max-cost-usd) is spent: the judge was not asked" };
  try {
    const screened = await Promise.all(
      input.contenders.map(async (item) => {
        const patch = await fullPatch(input.repoRoot, input.baseRef, `refs/heads/${item.branch}`);
        return { ...item, patch, addressing: addressesJudge(patch) };
      }),
    );
    const addressing = screened.filter((item) => item.addressing !== null);
    const clean = screened.filter((item) => item.addressing === null);
    const addressedJudge = addressing.map((item) => `${item.agent}: ${JSON.stringify(item.addressing)}`);
    const last = addressing.map((item) => ({
      agent: item.agent,
      reason: 'ranked last by hydra: its diff addresses the judge, so it was not shown to it',
    }));
    if (clean.length < 2)
      return {
        ...base,
        addressedJudge,
        ranking:
          addressing.length === 0
            ? null
            : [
                ...clean.map((item) => ({
                  agent: item.agent,
                  reason: 'the only contender whose diff does not address the judge',
                })),
                ...last,
              ],
        warning: addressing.length === 0 ? 'fewer than two contenders: nothing to judge' : null,
      };
    const entries: Array<JudgeEntry & { agent: AgentName }> = shuffled(clean).map((item, index) => ({
      label: `result-${index + 1}`,
      agent: item.agent,
      patch: item.patch,
      checks: item.checks,
    }));
    const nonce = randomBytes(8).toString('hex');
    const answer = await askJudge(input, judgePrompt(input.task, entries, nonce));
    const labels = entries.map((entry) => entry.label);
    const read = answer.problem === null ? readRanking(answer.text, labels) : { problem: answer.problem };
    if ('problem' in read)
      return {
        ...base,
        addressedJudge,
        costUsd: answer.costUsd,
        warning: `the judge's answer was ignored: ${read.problem}`,
      };
    const agentOf = (label: string): AgentName =>
      entries.find((entry) => entry.label === label)?.agent ?? label;
    return {
      ...base,
      addressedJudge,
      costUsd: answer.costUsd,
      ranking: [
        ...read.ranking.map((item) => ({ agent: agentOf(item.label), reason: item.reason })),
        ...last,
      ],
    };
  } catch (error) {
    return { ...base, warning: `the judge could not be asked: ${(error as Error).message}` };
  }
}
