/**
 * hydra itself receives SIGINT, SIGTERM, SIGHUP or SIGKILL mid-race (the real `hydra race --json`,
 * fake agents that hang, one of them with a grandchild).
 * Afterwards: no process of the race alive, the user's repository byte for byte as before, every
 * agent ended with a status and a typed error with a hint, records readable, and nothing left that
 * `hydra clean` cannot remove (after SIGKILL, when no handler could run, `hydra clean` removes it).
 * SIGKILL runs both ways: on Linux's /proc and PID namespaces, and on the code paths of macOS
 * (HYDRA_PORTABLE=1: ps and process groups, test/support/portable.ts).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listRuns } from '../../../src/engine/index.js';
import { eventually, processesOfRun } from '../../support/engine-helpers.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { raceWithAgentsRunning } from '../../support/fault-race.js';
import {
  captureUserState,
  expectRecordsReadable,
  expectUserStateUnchanged,
  extraWorktrees,
  hydraBranches,
} from '../../support/fault-invariants.js';
import type { UserState } from '../../support/fault-invariants.js';
import { WAYS } from '../../support/portable.js';

let sandbox: Sandbox;
let repo: string;
let before: UserState;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  writeFileSync(path.join(repo, 'notes.txt'), 'uncommitted work must survive\n');
  before = captureUserState(repo);
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5, hangAfterLines: 2 },
    codex: { agent: 'codex', delayMs: 5, hangAfterLines: 2, spawnGrandchild: true },
  });
});

afterEach(() => sandbox.cleanup());

/** A headless race whose agents are running (the run id is on its first NDJSON line). */
const startRace = () =>
  raceWithAgentsRunning(sandbox, repo, ['Add a hello.txt file'], 60_000, {
    processes: 3,
    withinMs: 20_000,
    what: 'the agents to run',
  });

/** The invariants every signal must leave. */
const expectCleanState = async (runId: string): Promise<void> => {
  await eventually(() => processesOfRun(runId).length === 0, 15_000, 'every process of the race to end');
  expect(extraWorktrees(repo)).toEqual([]);
  expect(hydraBranches(repo)).toEqual([]);
  expectUserStateUnchanged(repo, before);
  expectRecordsReadable(repo);
};

describe('hydra receives a signal mid-race', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal}: every agent is stopped, the race cancelled and cleaned up`, async () => {
      const { child, runId } = await startRace();

      child.kill(signal);
      const result = await child;

      // SIGINT and SIGTERM end with the interrupted code; SIGHUP is re-raised once cleaned up.
      if (signal === 'SIGHUP') expect(result.signal).toBe('SIGHUP');
      else expect(result.exitCode).toBe(130);
      const summary = parseNdjson(result.stdout).at(-1) as {
        type: string;
        agents: Array<{ status: string; error?: { kind: string; hint: string } }>;
      };
      expect(summary.type).toBe('summary');
      for (const agent of summary.agents) {
        expect(agent.status).toBe('cancelled');
        expect(agent.error?.kind).toBe('Interrupted');
        expect(agent.error?.hint).not.toBe('');
      }
      const [run] = await listRuns(repo);
      expect(run?.state).toBe('finished');
      await expectCleanState(runId);
    });
  }

  // Both ways: Linux's (/proc, PID namespaces), and macOS's code paths (ps, process groups).
  it.each(WAYS)(
    'SIGKILL ($way): the watchdog stops every agent, and `hydra clean` removes what is left',
    async ({ env }) => {
      sandbox.env = env(sandbox.env);
      const { child, runId } = await startRace();

      child.kill('SIGKILL');
      await child;

      await eventually(() => processesOfRun(runId).length === 0, 15_000, 'the watchdog to stop the agents');
      const [run] = await listRuns(repo);
      expect(run?.state).toBe('dead');
      const cleaned = await hydra(['clean'], { cwd: repo, env: sandbox.env });
      expect(cleaned.exitCode, cleaned.stderr).toBe(0);
      await expectCleanState(runId);
      expect(await listRuns(repo)).toEqual([]);
    },
  );
});
