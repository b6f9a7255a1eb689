/**
 * Fault 10.1: an agent prints its final result and then does not exit (Claude Code and Cursor do
 * this in headless mode). The result stands: after a short grace hydra stops the process tree and
 * the agent settles completed, committed and mergeable, long before the idle timeout; stopping it
 * (`x`) or cancelling the race during the grace keeps the result too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import type { RaceHandle, RaceSnapshot } from '../../../src/engine/index.js';
import {
  git,
  installAgents,
  makeSandbox,
  plan,
  raceOptions,
  waitForSnapshot,
} from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
  extraWorktrees,
  hydraBranches,
} from '../../support/fault-invariants.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

const streamLines = (agent: string, name: string): string[] =>
  readFileSync(path.join('fixtures', 'adapters', agent, 'streams', `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line !== '');

/** Hangs once every line is out: never exits on its own. */
const HANG = 10_000;
/** Far longer than the test: a result must not wait for it. */
const IDLE_MS = 60_000;

const claudeOf = (snapshot: RaceSnapshot) => snapshot.agents.find((agent) => agent.agent === 'claude')!;

/** The stream's result is in (the process is still there, hanging). */
const resultIn = (snapshot: RaceSnapshot): boolean =>
  claudeOf(snapshot).status === 'completed' || claudeOf(snapshot).status === 'failed';

describe('an agent that hangs after its result', () => {
  it('is stopped after the result grace and settles completed, committed and mergeable', async () => {
    sandbox = makeSandbox();
    const before = captureUserState(sandbox.repo);
    await installAgents(sandbox, { claude: { hangAfterLines: HANG } });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude', { idleTimeoutMs: IDLE_MS })], { resultGraceMs: 500 }),
    );
    const started = Date.now();

    const summary = await handle.settled;

    expect(Date.now() - started).toBeLessThan(8_000);
    const claude = summary.agents[0]!;
    expect(claude.status).toBe('completed');
    expect(claude.error ?? null).toBeNull();
    expect(claude.diff?.filesChanged).toBeGreaterThan(0);
    expect(git(sandbox.repo, 'log', '-1', '--format=%s', claude.branch!)).toMatch(/result \(completed\)/);
    expectNoProcessOfRun(handle.runId);
    const merged = await handle.merge('claude');
    expect(merged.agent).toBe('claude');
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
    expect(hydraBranches(sandbox.repo)).toEqual([]);
    expectRecordsReadable(sandbox.repo);
    // Only the asked-for merge changed the user's branch.
    expect(git(sandbox.repo, 'status', '--porcelain')).toBe('');
    expect(before.repo.head).not.toBe(git(sandbox.repo, 'rev-parse', 'HEAD').trim());
  });

  it('is not shown as running during the grace', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: { hangAfterLines: HANG } });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude', { idleTimeoutMs: IDLE_MS })], { resultGraceMs: 3_000 }),
    );

    const during = await waitForSnapshot(handle, resultIn, 8_000);

    expect(claudeOf(during).status).toBe('completed');
    expect(handle.getSnapshot().phase).toBe('racing');
    await handle.settled;
  });

  it('keeps the result when it is stopped (`x`) during the grace', async () => {
    sandbox = makeSandbox();
    const before = captureUserState(sandbox.repo);
    await installAgents(sandbox, { claude: { hangAfterLines: HANG } });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude', { idleTimeoutMs: IDLE_MS })], { resultGraceMs: 30_000 }),
    );
    await waitForSnapshot(handle, resultIn, 8_000);

    handle.stopAgent('claude');
    const summary = await handle.settled;

    expect(summary.agents[0]?.status).toBe('completed');
    expect(summary.agents[0]?.error ?? null).toBeNull();
    expect(summary.agents[0]?.diff?.filesChanged).toBeGreaterThan(0);
    expectNoProcessOfRun(handle.runId);
    await handle.finish();
    // The completed result stays on its branch for `hydra merge`.
    expect(hydraBranches(sandbox.repo)).toEqual([`hydra/${handle.runId}/claude`]);
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
    expectUserStateUnchanged(sandbox.repo, before);
  });

  it('keeps the result when the race is cancelled during the grace', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: { hangAfterLines: HANG } });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude', { idleTimeoutMs: IDLE_MS })], { resultGraceMs: 30_000 }),
    );
    await waitForSnapshot(handle, resultIn, 8_000);

    await handle.cancel();

    const snapshot = handle.getSnapshot();
    expect(snapshot.phase).toBe('cancelled');
    expect(claudeOf(snapshot).status).toBe('completed');
    expect(hydraBranches(sandbox.repo)).toEqual([`hydra/${handle.runId}/claude`]);
    expectNoProcessOfRun(handle.runId);
  });

  it('output after the result does not hold the race', async () => {
    sandbox = makeSandbox();
    const lines = [...streamLines('claude', 'success-edit'), 'trailing noise', '{"type":"system"}'];
    await installAgents(sandbox, { claude: { lines, hangAfterLines: HANG, edits: [] } });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude', { idleTimeoutMs: IDLE_MS })], { resultGraceMs: 500 }),
    );

    const summary = await handle.settled;

    expect(summary.agents[0]?.status).toBe('completed');
    expect(summary.agents[0]?.error ?? null).toBeNull();
    expectNoProcessOfRun(handle.runId);
  });

  it('a failed result followed by a hang settles failed with the stream’s own error, not a timeout', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, {
      claude: { lines: streamLines('claude', 'server-error'), hangAfterLines: HANG },
    });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude', { idleTimeoutMs: IDLE_MS })], { resultGraceMs: 500 }),
    );
    const started = Date.now();

    const summary = await handle.settled;

    expect(Date.now() - started).toBeLessThan(8_000);
    expect(summary.agents[0]?.status).toBe('failed');
    expect(summary.agents[0]?.error?.kind).not.toBe('TimedOut');
    expect(summary.agents[0]?.error?.message).not.toMatch(/idle timeout/);
    expectNoProcessOfRun(handle.runId);
  });
});
