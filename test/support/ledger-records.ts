/**
 * Run records written by hand for the ledger's tests (`hydra stats`, `--agents auto`): a finished
 * race is its agents' outcomes (status, cost, time, whether a check ran and passed, the score,
 * reproductions), written as meta.json and summary.json the way a race writes them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentSummary, RaceSummary } from '../../src/engine/index.js';
import type { RunMeta } from '../../src/engine/records/index.js';
import type { LedgerRun } from '../../src/engine/ledger/index.js';

export interface FakeOutcome {
  agent: string;
  adapter?: string;
  status?: AgentSummary['status'];
  costUsd?: number | null;
  costSource?: 'reported' | 'estimated';
  durationMs?: number;
  /** A check ran to a verdict, and whether every gate passed (no check ran when undefined). */
  checks?: 'passed' | 'failed';
  total?: number;
  /** The score without time and cost (its checks part here); the total when not given. */
  merit?: number;
  reproductions?: number;
  rerunOf?: string;
  /** Summary `contract`: it changed the base's tests; whether it passes with the base's put back. */
  contract?: { passesOwn: boolean; passesBase: boolean };
}

export interface FakeRun {
  /** `20261101-101010-ab01`: its start is the time it carries. */
  runId: string;
  agents: FakeOutcome[];
  merged?: string;
  /** A judge asked: the contenders, and whom it ranked first. */
  judge?: { contenders: string[]; first: string };
  /** The recorded config snapshot (`{file, config, flags}`). */
  config?: unknown;
}

const startOf = (runId: string): number => {
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(runId)!.map(Number);
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
};

const totalOf = (outcome: FakeOutcome): number =>
  outcome.total ?? (outcome.checks === 'passed' ? 80 : outcome.checks === 'failed' ? 0 : 40);

const agentEntry = (outcome: FakeOutcome): AgentSummary => ({
  agent: outcome.agent,
  adapter: outcome.adapter ?? outcome.agent.replace(/-\d+$/, ''),
  status: outcome.status ?? 'completed',
  exitCode: 0,
  durationMs: outcome.durationMs ?? 60_000,
  usage: {
    inputTokens: 100,
    outputTokens: 10,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    turns: 1,
    costUsd: outcome.costUsd === undefined ? 0.1 : outcome.costUsd,
    costSource: outcome.costUsd === null ? 'unknown' : (outcome.costSource ?? 'reported'),
  },
  diff: { filesChanged: 1, insertions: 1, deletions: 0 },
  branch: null,
  worktree: null,
  score: {
    total: totalOf(outcome),
    gates: { passed: outcome.checks !== 'failed', failed: outcome.checks === 'failed' ? ['test'] : [] },
    // The merit is the total unless given: a higher total is a result ahead on what it changed.
    parts: {
      checks: outcome.merit ?? totalOf(outcome),
      tests: null,
      diff: null,
      scope: null,
      duration: null,
      cost: null,
    },
    disqualified: outcome.checks === 'failed' ? 'a gate failed: test' : null,
    verified: outcome.checks !== undefined,
  },
  ...(outcome.reproductions === undefined
    ? {}
    : {
        newTests: {
          count: outcome.reproductions,
          failOnBase: outcome.reproductions,
          passOnSelf: outcome.reproductions,
          reproductions: outcome.reproductions,
          onOthers: {},
          tests: [],
        },
      }),
  ...(outcome.rerunOf === undefined ? {} : { rerunOf: outcome.rerunOf }),
  ...(outcome.contract === undefined
    ? {}
    : { contract: { changed: ['test/app.test.js'], ...outcome.contract } }),
});

export const fakeMeta = (run: FakeRun, repoRoot = '/tmp/repo'): RunMeta => ({
  runId: run.runId,
  prompt: 'Fix the bug',
  promptSha256: '0'.repeat(64),
  repoRoot,
  baseRef: 'a'.repeat(40),
  baseBranch: 'main',
  startedAt: startOf(run.runId),
  pid: 999_999,
  pidStartTime: null,
  hydraVersion: '0.1.0',
  config: run.config ?? null,
  agents: run.agents.map((outcome) => ({
    agent: outcome.agent,
    adapter: outcome.adapter ?? outcome.agent.replace(/-\d+$/, ''),
    branch: `hydra/${run.runId}/${outcome.agent}`,
    worktree: `/tmp/wt/${outcome.agent}`,
    version: '1.0.0',
    capabilities: null,
    command: [],
  })),
});

export const fakeSummary = (run: FakeRun): RaceSummary => ({
  runId: run.runId,
  prompt: 'Fix the bug',
  baseRef: 'a'.repeat(40),
  baseBranch: 'main',
  startedAt: startOf(run.runId),
  endedAt: startOf(run.runId) + 120_000,
  agents: run.agents.map(agentEntry),
  error: null,
  merged:
    run.merged === undefined
      ? null
      : { agent: run.merged, branch: `hydra/${run.runId}/${run.merged}`, method: 'fast-forward' },
  ...(run.judge === undefined
    ? {}
    : {
        judge: {
          agent: 'claude',
          contenders: run.judge.contenders,
          ranking: [
            { agent: run.judge.first, reason: 'best' },
            ...run.judge.contenders
              .filter((agent) => agent !== run.judge?.first)
              .map((agent) => ({ agent, reason: 'next' })),
          ],
          warning: null,
          addressedJudge: [],
          costUsd: 0.01,
        },
      }),
});

/** The run as the ledger's tally takes it, without files. */
export const ledgerRun = (run: FakeRun): LedgerRun => ({
  meta: fakeMeta(run),
  summary: fakeSummary(run),
  mergedAgent: null,
  damagedAgents: [],
});

/** Writes the run's record into `<repo>/.hydra/runs/<run-id>/`; its directory. */
export const writeRunRecord = (repo: string, run: FakeRun, options: { finished?: boolean } = {}): string => {
  const dir = path.join(repo, '.hydra', 'runs', run.runId);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(fakeMeta(run, repo)));
  if (options.finished !== false)
    writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(fakeSummary(run)));
  return dir;
};
