/**
 * The figures of an agent that got another round (issue 24, cases 3 and 4), with real fake-agent
 * processes in a real repository: its live cost while the round runs, its duration and rounds once
 * it settled, and the scores of the agents that did nothing.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRace } from '../../src/engine/index.js';
import type { RaceHandle, RaceOptions } from '../../src/engine/types.js';
import { installAgents, makeSandbox, plan, raceOptions } from './helpers.js';
import type { Sandbox } from './helpers.js';

let sandbox: Sandbox;
let handles: RaceHandle[] = [];

afterEach(async () => {
  for (const handle of handles) await handle.cancel();
  handles = [];
  sandbox.cleanup();
});

const FIXTURE = path.resolve(
  import.meta.dirname,
  '../../fixtures/adapters/claude/streams/success-edit.jsonl',
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
