/**
 * The budget: a fake Codex whose every turn reports heavy usage (priced at Codex's default model,
 * gpt-5.5, since nothing names a model) is stopped soon after its estimated spend passes the budget,
 * with error kind BudgetExceeded, and its work so far stays on its branch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readRun, startRace } from '../../../../src/engine/index.js';
import type { AgentEventRecord, AgentPlan, RaceHandle, RaceOptions } from '../../../../src/engine/index.js';
import { git, installAgents, makeSandbox, plan, raceOptions } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

/** Each turn: 200k input and 20k output tokens, $1.60 at gpt-5.5's $5 / $30 per million. */
const TURN_COST_USD = 1.6;
const TURNS = 30;
/** Between lines: 30 turns take 6 s, so a run that is not stopped is plain to see. */
const LINE_DELAY_MS = 200;

const heavyCodexStream = (): string[] => [
  JSON.stringify({ type: 'thread.started', thread_id: '00000000-0000-4000-8000-0000000000aa' }),
  JSON.stringify({ type: 'turn.started' }),
  JSON.stringify({
    type: 'item.completed',
    item: {
      id: 'item_0',
      type: 'command_execution',
      command: 'touch work.txt',
      aggregated_output: '',
      exit_code: 0,
      status: 'completed',
    },
  }),
  ...Array.from({ length: TURNS }, () =>
    JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 200_000, output_tokens: 20_000 } }),
  ),
];

const costs = (events: AgentEventRecord[]): number[] =>
  events.flatMap((record) => (record.event.kind === 'usage' ? [record.event.usage.costUsd ?? 0] : []));

const raceHeavyCodex = async (
  codexPlan: Partial<AgentPlan>,
  options: Partial<RaceOptions>,
): Promise<{ events: AgentEventRecord[]; runId: string }> => {
  sandbox = makeSandbox();
  // HOME without a Codex config: the run is priced at Codex's default model.
  await installAgents(sandbox, {
    codex: {
      lines: heavyCodexStream(),
      delayMs: LINE_DELAY_MS,
      edits: [{ path: 'work.txt', content: 'so far\n' }],
    },
  });
  handle = startRace(
    raceOptions(
      sandbox,
      [plan(sandbox, 'codex', { env: { CODEX_HOME: sandbox.dir }, ...codexPlan })],
      options,
    ),
  );
  const events: AgentEventRecord[] = [];
  handle.onEvent((record) => events.push(record));
  await handle.settled;
  await handle.finish();
  return { events, runId: handle.runId };
};

describe('the budget', () => {
  it('stops an agent soon after the race passes --max-cost-usd, and keeps its work on its branch', async () => {
    const budget = 4;
    const { events, runId } = await raceHeavyCodex({}, { maxCostUsd: budget });

    const spent = costs(events);
    const passedAt = spent.findIndex((cost) => cost > budget);
    // It passed the budget on the third turn ($4.80)...
    expect(passedAt).toBe(2);
    expect(spent[passedAt]).toBeCloseTo(3 * TURN_COST_USD, 6);
    // ...and was stopped within a second of it: at most one line every 200 ms came after.
    expect(spent.length - 1 - passedAt).toBeLessThanOrEqual(5);
    expect(spent.length).toBeLessThan(TURNS);

    const summary = (await readRun(sandbox.repo, runId)).summary;
    const codex = summary?.agents[0];
    expect(codex?.status).toBe('failed');
    expect(codex?.error?.kind).toBe('BudgetExceeded');
    expect(codex?.error?.message).toContain('$4');
    expect(codex?.usage.costSource).toBe('estimated');
    expect(git(sandbox.repo, 'show', `hydra/${runId}/codex:work.txt`)).toBe('so far\n');
  }, 30_000);

  it('stops an agent that passes its own max_cost_usd', async () => {
    const { events, runId } = await raceHeavyCodex({ maxCostUsd: 2 }, {});

    const spent = costs(events);
    expect(spent.findIndex((cost) => cost > 2)).toBe(1);
    expect(spent.length).toBeLessThan(TURNS);
    const summary = (await readRun(sandbox.repo, runId)).summary;
    expect(summary?.agents[0]?.error?.kind).toBe('BudgetExceeded');
    expect(summary?.agents[0]?.error?.hint).toContain('agents.codex.max_cost_usd');
  }, 30_000);
});
