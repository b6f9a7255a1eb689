/**
 * Checks in a real race: a temp repository whose `node --test` suite fails on the base commit, and
 * fake agents that fix it, break more of it, change nothing, and break the build. The checks run in
 * every result and on the baseline, and the scores order the agents as the README says.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRun, startRace } from '../../../../src/engine/index.js';
import { scoreRace } from '../../../../src/engine/checks/index.js';
import type { CheckSpec, RaceHandle } from '../../../../src/engine/index.js';
import { installFaultAgents } from '../../../support/fault-bin.js';
import { extraWorktrees } from '../../../support/fault-invariants.js';
import {
  eventually,
  git,
  installAgents,
  makeSandbox,
  plan,
  processesOfRun,
  raceOptions,
  waitForSnapshot,
} from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';
import { agentOf } from '../../../support/race-summary.js';
import { processesWithEnvironment } from '../../../support/processes.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

const BUGGY = 'export const add = (a, b) => a - b;\nexport const mul = (a, b) => a * b;\n';
const FIXED = 'export const add = (a, b) => a + b;\nexport const mul = (a, b) => a * b;\n';
const WORSE = 'export const add = (a, b) => a - b;\nexport const mul = (a, b) => a + b;\n';
const BROKEN = 'export const add = (a, b) => a + b;\nexport const mul = (a, b) => {\n';

const TESTS = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add, mul } from './lib.js';

test('adds', () => assert.equal(add(2, 3), 5));
test('multiplies', () => assert.equal(mul(2, 3), 6));
test('multiplies by zero', () => assert.equal(mul(7, 0), 0));
`;

/** A repository whose suite has one failing test ('adds') at the base commit. */
const makeProject = (): void => {
  writeFileSync(path.join(sandbox.repo, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(path.join(sandbox.repo, 'lib.js'), BUGGY);
  writeFileSync(path.join(sandbox.repo, 'lib.test.js'), TESTS);
  git(sandbox.repo, 'add', '.');
  git(sandbox.repo, 'commit', '-q', '-m', 'a library with a bug');
};

const CHECKS: CheckSpec[] = [
  { name: 'build', run: 'node --check lib.js', timeoutMs: 60_000, gate: true },
  { name: 'test', run: 'node --test lib.test.js', timeoutMs: 60_000, gate: false },
];

const edit = (content: string) => ({ edits: [{ path: 'lib.js', content }] });

describe('checks in a race', () => {
  it('runs every check in each result and on the base, and ranks fix > break > no change = broken build', async () => {
    sandbox = makeSandbox();
    makeProject();
    await installAgents(sandbox, {
      claude: edit(FIXED),
      codex: edit(WORSE),
      cursor: { edits: [] },
      gemini: edit(BROKEN),
    });
    handle = startRace(
      raceOptions(
        sandbox,
        ['claude', 'codex', 'cursor', 'gemini'].map((agent) => plan(sandbox, agent)),
        { checks: CHECKS },
      ),
    );
    const settled = await handle.settled;
    const runId = handle.runId;
    const summary = await handle.finish();

    const baseline = summary.baseline?.checks ?? [];
    expect(baseline.map((check) => [check.name, check.status])).toEqual([
      ['build', 'passed'],
      ['test', 'failed'],
    ]);
    expect(baseline[1]?.tests).toEqual({ passed: 2, failed: 1, skipped: 0 });

    const fixer = agentOf(summary, 'claude');
    expect(fixer.checks?.map((check) => check.status)).toEqual(['passed', 'passed']);
    expect(fixer.checks?.[1]?.tests).toEqual({ passed: 3, failed: 0, skipped: 0 });
    expect(fixer.checks?.[1]?.newlyPassing).toEqual(['adds']);
    expect(fixer.checks?.[1]?.newlyFailing).toEqual([]);

    const breaker = agentOf(summary, 'codex');
    expect(breaker.checks?.map((check) => check.status)).toEqual(['passed', 'failed']);
    expect(breaker.checks?.[1]?.newlyFailing).toEqual(['multiplies', 'multiplies by zero']);

    const idle = agentOf(summary, 'cursor');
    expect(idle.score?.disqualified).toBe('changed nothing');
    const broken = agentOf(summary, 'gemini');
    expect(broken.checks?.[0]?.status).toBe('failed');
    expect(broken.score?.gates).toEqual({ passed: false, failed: ['build'] });

    // The README's order: the fix first, then the break; no change and a failed gate score 0.
    const total = (agent: string): number => agentOf(summary, agent).score?.total ?? -1;
    expect(total('claude')).toBeGreaterThan(total('codex'));
    expect(total('codex')).toBeGreaterThan(0);
    expect(total('cursor')).toBe(0);
    expect(total('gemini')).toBe(0);
    expect(settled.agents.map((agent) => agent.score?.total)).toEqual(
      summary.agents.map((agent) => agent.score?.total),
    );

    // Reproducible from the run record: the recorded summary gives the same scores.
    const record = await readRun(sandbox.repo, runId);
    const recorded = record.summary;
    expect(recorded?.agents.map((agent) => agent.score?.total)).toEqual(
      summary.agents.map((agent) => agent.score?.total),
    );
    expect(scoreRace(recorded?.agents ?? [], recorded?.scoreWeights).map((score) => score.total)).toEqual(
      summary.agents.map((agent) => agent.score?.total),
    );
    expect(recorded?.baseline?.checks[1]?.output).toContain('not ok');

    // No stray worktree (the baseline's is gone), no process of the run, the user's tree untouched.
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
    expect(processesOfRun(runId)).toEqual([]);
    expect(readFileSync(path.join(sandbox.repo, 'lib.js'), 'utf8')).toBe(BUGGY);
    expect(existsSync(path.join(sandbox.worktreeRoot))).toBe(true);
  }, 60_000);
});

describe('--auto-merge best', () => {
  it('merges the agent that fixed the suite', async () => {
    sandbox = makeSandbox();
    makeProject();
    await installAgents(sandbox, { claude: edit(FIXED), codex: edit(WORSE), cursor: { edits: [] } });
    handle = startRace(
      raceOptions(
        sandbox,
        ['claude', 'codex', 'cursor'].map((agent) => plan(sandbox, agent)),
        { checks: CHECKS, autoMerge: 'best' },
      ),
    );
    await handle.settled;
    const summary = await handle.finish();

    expect(summary.merged).toEqual({
      agent: 'claude',
      branch: `hydra/${handle.runId}/claude`,
      method: expect.any(String),
    });
    expect(readFileSync(path.join(sandbox.repo, 'lib.js'), 'utf8')).toBe(FIXED);
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
  }, 60_000);

  it('works across repeats of one CLI: best of two Claude Code runs merges the one that fixed the suite', async () => {
    sandbox = makeSandbox();
    makeProject();
    // Two copies of one CLI that answer differently, as two runs of a real agent can.
    await installFaultAgents(sandbox.bin, {
      'claude-a': { agent: 'claude', delayMs: 10, ...edit(WORSE) },
      'claude-b': { agent: 'claude', delayMs: 10, ...edit(FIXED) },
    });
    const copy = (name: string, binary: string) =>
      plan(sandbox, 'claude', { name, binary: path.join(sandbox.bin, binary) });
    handle = startRace(
      raceOptions(sandbox, [copy('claude-1', 'claude-a'), copy('claude-2', 'claude-b')], {
        checks: CHECKS,
        autoMerge: 'best',
      }),
    );
    await handle.settled;
    const summary = await handle.finish();

    expect(summary.agents.map((agent) => [agent.agent, agent.adapter])).toEqual([
      ['claude-1', 'claude'],
      ['claude-2', 'claude'],
    ]);
    expect(agentOf(summary, 'claude-2').score?.total).toBeGreaterThan(
      agentOf(summary, 'claude-1').score?.total ?? 0,
    );
    expect(summary.merged).toEqual({
      agent: 'claude-2',
      branch: `hydra/${handle.runId}/claude-2`,
      method: expect.any(String),
    });
    expect(readFileSync(path.join(sandbox.repo, 'lib.js'), 'utf8')).toBe(FIXED);
  }, 60_000);

  it('merges nothing when two different fixes tie, and says so', async () => {
    sandbox = makeSandbox();
    makeProject();
    // Two fixes of the same size, each its own change.
    await installAgents(sandbox, { claude: edit(FIXED), codex: edit(FIXED.replace('a + b', 'b + a')) });
    handle = startRace(
      raceOptions(
        sandbox,
        ['claude', 'codex'].map((agent) => plan(sandbox, agent)),
        {
          checks: CHECKS,
          autoMerge: 'best',
          // Time and cost differ between any two runs: leave them out so the two fixes tie.
          scoreWeights: { checks: 40, tests: 30, diff: 10, scope: 10, duration: 0, cost: 0 },
        },
      ),
    );
    await handle.settled;
    const summary = await handle.finish();

    expect(summary.agents.map((agent) => agent.score?.total)).toEqual([100, 100]);
    expect(summary.merged).toBeNull();
    expect(summary.mergeReason).toBe('--auto-merge best merged nothing: claude and codex tie at 100');
    expect(readFileSync(path.join(sandbox.repo, 'lib.js'), 'utf8')).toBe(BUGGY);
  }, 60_000);

  it('merges the same fix made by two agents: choosing between them is no coin flip', async () => {
    sandbox = makeSandbox();
    makeProject();
    await installAgents(sandbox, { claude: edit(FIXED), codex: edit(FIXED) });
    handle = startRace(
      raceOptions(
        sandbox,
        ['claude', 'codex'].map((agent) => plan(sandbox, agent)),
        { checks: CHECKS, autoMerge: 'best' },
      ),
    );
    await handle.settled;
    const summary = await handle.finish();

    expect(summary.merged?.agent).toMatch(/^(claude|codex)$/);
    expect(readFileSync(path.join(sandbox.repo, 'lib.js'), 'utf8')).toBe(FIXED);
  }, 60_000);
});

describe('supervised checks', () => {
  it('stops a check at its time limit (timed_out) and leaves nothing running', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: edit(FIXED) });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude')], {
        checks: [{ name: 'slow', run: 'sleep 30', timeoutMs: 500, gate: false }],
      }),
    );
    await handle.settled;
    const summary = await handle.finish();

    expect(summary.baseline?.checks.map((check) => check.status)).toEqual(['timed_out']);
    expect(summary.agents[0]?.checks?.map((check) => check.status)).toEqual(['timed_out']);
    expect(processesOfRun(handle.runId)).toEqual([]);
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
  }, 60_000);

  it('cancelling while checks run stops them and removes the baseline worktree', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: edit(FIXED) });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude')], {
        checks: [{ name: 'slow', run: 'sleep 300', timeoutMs: 0, gate: false }],
      }),
    );
    const runId = handle.runId;
    await waitForSnapshot(handle, (snapshot) => snapshot.agents[0]?.checking === true);
    expect(processesOfRun(runId).length).toBeGreaterThan(0);

    await handle.cancel();

    expect(handle.getSnapshot().phase).toBe('cancelled');
    expect(processesOfRun(runId)).toEqual([]);
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
  }, 60_000);

  it('a cancel while a gate runs records that gate as not run (error), so the summary does not score it as passed', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: edit(FIXED) });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude')], {
        checks: [{ name: 'slow', run: 'sleep 300', timeoutMs: 0, gate: true }],
      }),
    );
    await waitForSnapshot(handle, (snapshot) => snapshot.agents[0]?.checking === true);

    await handle.cancel();
    const summary = await handle.settled;

    const claude = agentOf(summary, 'claude');
    expect(claude.status).toBe('completed');
    expect(claude.checks?.map((check) => [check.name, check.status, check.gate])).toEqual([
      ['slow', 'error', true],
    ]);
    expect(claude.checks?.[0]?.output).toMatch(/cancelled/);
    expect(claude.score?.total ?? 0).toBe(0);
  }, 60_000);

  it("a cancel while the baseline's check runs ends the baseline as cancelled, in the snapshot and the summary", async () => {
    sandbox = makeSandbox();
    // The agent hangs, so only the baseline's check is running when the race is cancelled.
    await installAgents(sandbox, { claude: { ...edit(FIXED), hangAfterLines: 1 } });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude')], {
        checks: [{ name: 'slow', run: 'sleep 300', timeoutMs: 0, gate: false }],
      }),
    );
    const runId = handle.runId;
    await eventually(() => baselineCheckRunning(runId), 20_000, "the baseline's check");

    await handle.cancel();
    const summary = await handle.finish();

    const baseline = handle.getSnapshot().baseline;
    expect(baseline?.status).toBe('cancelled');
    expect(baseline?.error).toMatch(/cancelled/);
    expect(summary.baseline?.status).toBe('cancelled');
    expect(summary.agents[0]?.status).toBe('cancelled');
    const recorded = (await readRun(sandbox.repo, runId)).summary;
    expect(recorded?.baseline?.status).toBe('cancelled');
    expect(processesOfRun(runId)).toEqual([]);
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
  }, 60_000);
});

/** A process of this run marked as the baseline's check is alive. */
const baselineCheckRunning = (runId: string): boolean =>
  processesWithEnvironment(
    (env) => env.includes(`HYDRA_RUN_ID=${runId}`) && env.includes('HYDRA_OWNER=check:baseline:slow'),
  ).length > 0;
