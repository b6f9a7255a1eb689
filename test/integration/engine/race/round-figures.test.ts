/**
 * The figures of an agent that got another round (issue 24, cases 3 and 4), with real fake-agent
 * processes in a real repository: its live cost while the round runs, its duration and rounds once
 * it settled, and the scores of the agents that did nothing.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRun, reopenFromRecord, startRace } from '../../../../src/engine/index.js';
import type {
  AgentPlan,
  CheckSpec,
  RaceHandle,
  RaceOptions,
  RaceSummary,
  RoundRequest,
} from '../../../../src/engine/index.js';
import { installAgents, makeSandbox, plan, raceOptions } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let handles: RaceHandle[] = [];

afterEach(async () => {
  for (const handle of handles) await handle.cancel();
  handles = [];
  sandbox.cleanup();
});

const FIXTURE = path.resolve(
  import.meta.dirname,
  '../../../../fixtures/adapters/claude/streams/success-edit.jsonl',
);

/**
 * Claude Code's recorded stream, on a model hydra prices, with its assistant turn repeated `turns`
 * times (each its own message, so the running usage grows) and a tool result after each turn: the
 * usage events carry hydra's running estimate, and the tool results are batches without usage.
 */
const pricedTurns = (turns: number): string[] => {
  const lines = readFileSync(FIXTURE, 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.replaceAll('claude-opus-5-5', 'claude-sonnet-4-5'));
  const [init = '', turn = '', , toolResult = ''] = lines;
  // Its reported cost above the running estimate of the seven turns (about $0.03).
  const result = (lines.at(-1) ?? '').replace('"total_cost_usd":0.0126', '"total_cost_usd":0.05');
  return [
    init,
    ...Array.from({ length: turns }, (_, index) => [
      turn.replaceAll('msg_fake_turn1', `msg_fake_turn${index + 1}`),
      toolResult,
    ]).flat(),
    result,
  ];
};

const start = (options: RaceOptions): RaceHandle => {
  const handle = startRace(options);
  handles.push(handle);
  return handle;
};

/** The recorded run of `first` reopened as hydra does (`show --tui`, or `continue` with a round), finished. */
const reopened = async (
  first: RaceHandle,
  agents: AgentPlan[],
  checks: CheckSpec[],
  round?: RoundRequest,
): Promise<RaceSummary> => {
  const record = await readRun(sandbox.repo, first.runId);
  const again = start(
    raceOptions(sandbox, agents, {
      checks,
      runId: first.runId,
      prompt: record.meta.prompt,
      reopen: reopenFromRecord(record, round),
    }),
  );
  await again.settled;
  return again.finish();
};

describe('the live cost of a follow-up round', () => {
  it('never passes the earlier rounds’ cost plus this round’s, however many batches carry no usage', async () => {
    sandbox = makeSandbox();
    // One line at a time: the recorded stream's usage lines, and lines without usage between them.
    await installAgents(sandbox, {
      claude: {
        lines: pricedTurns(7),
        delayMs: 60,
        edits: [{ path: 'one.txt', content: 'round 1\n' }],
        resumedEdits: [{ path: 'two.txt', content: 'round 2\n' }],
      },
    });
    const handle = start(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    const first = await handle.settled;
    const firstCost = first.agents[0]?.usage.costUsd ?? null;
    expect(firstCost).toBeGreaterThan(0);

    const seen: number[] = [];
    const unsubscribe = handle.subscribe((snapshot) => {
      const claude = snapshot.agents.find((agent) => agent.agent === 'claude');
      if (claude?.rounds !== undefined && claude.usage.costUsd !== null) seen.push(claude.usage.costUsd);
    });
    const summary = await handle.startRound({ kind: 'follow_up', agent: 'claude', prompt: 'Go on' });
    unsubscribe();

    const claude = summary.agents[0];
    const [, second] = claude?.rounds ?? [];
    const total = (firstCost ?? 0) + (second?.usage.costUsd ?? 0);
    expect(claude?.usage.costUsd).toBeCloseTo(total, 9);
    // The recorded stream has several batches without usage: each one counted the earlier rounds again.
    expect(seen.length).toBeGreaterThan(3);
    expect(Math.max(...seen)).toBeLessThanOrEqual(total + 1e-9);
    // It rises with the round, never falls back.
    for (const [index, cost] of seen.entries()) expect(cost).toBeGreaterThanOrEqual(seen[index - 1] ?? 0);
  });
});

describe('an agent’s figures after a follow-up round', () => {
  it('adds the round’s time to the agent’s and leaves the other agents’ scores as they were', async () => {
    sandbox = makeSandbox();
    // Claude reports $0.05 a round, more than Codex's estimate: Codex is the cheaper either way.
    const claude = (delayMs: number) => ({
      lines: pricedTurns(1),
      delayMs,
      edits: [{ path: 'claude-1.txt', content: 'round 1\n' }],
      resumedEdits: [{ path: 'claude-2.txt', content: 'round 2\n' }],
    });
    // Codex is also the faster, and its diff as small as Claude's: it scores 100.
    await installAgents(sandbox, {
      claude: claude(400),
      codex: { delayMs: 100, edits: [{ path: 'codex.txt', content: 'round 1\n' }] },
    });
    const handle = start(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
    const first = await handle.settled;
    const codexBefore = first.agents.find((agent) => agent.agent === 'codex');
    const claudeBefore = first.agents.find((agent) => agent.agent === 'claude');
    expect(codexBefore?.score?.total).toBe(100);

    // Claude's second round is much quicker than Codex's whole run.
    await installAgents(sandbox, { claude: claude(0) });
    const summary = await handle.startRound({ kind: 'follow_up', agent: 'claude', prompt: 'Go on' });

    const after = summary.agents.find((agent) => agent.agent === 'claude');
    const [round1, round2] = after?.rounds ?? [];
    for (const round of [round1, round2]) {
      expect(round?.startedAt).toEqual(expect.any(Number));
      expect(round?.endedAt).toBeGreaterThanOrEqual(round?.startedAt ?? Infinity);
    }
    const spans = [round1, round2].map((round) => (round?.endedAt ?? 0) - (round?.startedAt ?? 0));
    expect(after?.durationMs).toBe(spans.reduce((sum, span) => sum + span, 0));
    expect(after?.durationMs).toBeGreaterThan(claudeBefore?.durationMs ?? Infinity);
    const codex = summary.agents.find((agent) => agent.agent === 'codex');
    expect(codex?.durationMs).toBe(codexBefore?.durationMs);
    expect(codex?.score).toEqual(codexBefore?.score);
  });
});

describe('the other agents’ scores after one agent’s round (issue 34)', () => {
  /** Claude is the quicker and the smaller result; its round makes it slower and bigger. */
  const install = () =>
    installAgents(sandbox, {
      claude: {
        delayMs: 0,
        edits: [{ path: 'claude.txt', content: 'one\n' }],
        resumedEdits: [{ path: 'claude-2.txt', content: `${'line\n'.repeat(40)}` }],
      },
      codex: { delayMs: 300, edits: [{ path: 'codex.txt', content: 'one\ntwo\nthree\n' }] },
    });
  const checks = [{ name: 'ok', run: 'true', timeoutMs: 30_000, gate: true }];

  it('leaves them where they were, though the round made it lose the smallest diff and the best time', async () => {
    sandbox = makeSandbox();
    await install();
    const agents = [plan(sandbox, 'claude'), plan(sandbox, 'codex')];
    const handle = start(raceOptions(sandbox, agents, { checks }));
    const first = await handle.settled;
    const codexBefore = first.agents.find((agent) => agent.agent === 'codex');
    expect(codexBefore?.score?.parts.diff).toBeLessThan(1);

    const summary = await handle.startRound({ kind: 'follow_up', agent: 'claude', prompt: 'Go on' });
    const claude = summary.agents.find((agent) => agent.agent === 'claude');
    expect(claude?.diff.insertions).toBeGreaterThan(40);
    const codex = summary.agents.find((agent) => agent.agent === 'codex');
    expect(codex?.score).toEqual(codexBefore?.score);
    // Claude is now measured against the race's yardsticks: its bigger diff costs it.
    expect(claude?.score?.parts.diff).toBeLessThan(1);
  });

  it('leaves them where they were on a reopened run (hydra continue), from the recorded yardsticks', async () => {
    sandbox = makeSandbox();
    await install();
    const agents = [plan(sandbox, 'claude'), plan(sandbox, 'codex')];
    const race = start(raceOptions(sandbox, agents, { checks }));
    await race.settled;
    const recorded = await race.finish();
    const codexBefore = recorded.agents.find((agent) => agent.agent === 'codex');
    expect(recorded.scoreReference?.lines).toBe(1);

    const summary = await reopened(race, agents, checks, {
      kind: 'follow_up',
      agent: 'claude',
      prompt: 'Go on',
    });
    expect(summary.agents.find((agent) => agent.agent === 'claude')?.diff.insertions).toBeGreaterThan(40);
    expect(summary.agents.find((agent) => agent.agent === 'codex')?.score).toEqual(codexBefore?.score);
  });
});

describe('a recorded run reopened without a round', () => {
  it('keeps every agent’s checks, its score and the baseline as recorded', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, {
      claude: { edits: [{ path: 'claude.txt', content: 'one\n' }] },
      codex: { edits: [{ path: 'codex.txt', content: 'one\ntwo\n' }] },
    });
    const checks = [{ name: 'listed', run: 'test -f README.md', timeoutMs: 30_000, gate: false }];
    const agents = [plan(sandbox, 'claude'), plan(sandbox, 'codex')];
    const first = start(raceOptions(sandbox, agents, { checks }));
    await first.settled;
    const recorded = await first.finish();
    expect(recorded.agents[0]?.checks).toHaveLength(1);
    expect(recorded.baseline?.checks).toHaveLength(1);

    // What `hydra show --tui` does: the run reopened to review, with the same config.
    const reviewed = await reopened(first, agents, checks);

    for (const [index, agent] of reviewed.agents.entries()) {
      expect(agent.checks).toEqual(recorded.agents[index]?.checks);
      expect(agent.score).toEqual(recorded.agents[index]?.score);
    }
    expect(reviewed.baseline).toEqual(recorded.baseline);
    expect((await readRun(sandbox.repo, first.runId)).summary?.baseline).toEqual(recorded.baseline);
  });
});
