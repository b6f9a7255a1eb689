/**
 * Issue 24, case 2, as a class: nothing in the race machine may crash it silently. An input builder
 * never throws (what it cannot build reaches the actor, which fails to its onError), and when the
 * machine does crash (an action or guard threw), the race settles as failed with the error's
 * message and hint: the summary says so and the command exits non-zero.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fromPromise } from 'xstate';
import { startRace } from '../../../../src/engine/race/race.js';
import { raceMachine } from '../../../../src/engine/race/race-machine.js';
import { initialContext } from '../../../../src/engine/race/race-context.js';
import { mergeInput, roundInput, workspaceInput } from '../../../../src/engine/race/race-inputs.js';
import { EngineError } from '../../../../src/engine/errors.js';
import { createProcessRegistry } from '../../../../src/engine/process/process-registry.js';
import { dashboardExitCode } from '../../../../src/ui/state/exit-code.js';
import type { RepoCheck } from '../../../../src/engine/git/repo.js';
import type { RaceHandle, RaceOptions } from '../../../../src/engine/index.js';
import type { ResolvedRaceOptions } from '../../../../src/engine/race/race-types.js';

const repo: RepoCheck = {
  root: '/repo',
  baseRef: 'base',
  baseBranch: 'main',
  gitVersion: '2.45.0',
  warnings: [],
};

const options: RaceOptions = {
  repoPath: '/repo',
  prompt: 'do it',
  agents: [{ adapterId: 'claude', extraArgs: [], env: {}, idleTimeoutMs: 1000 }],
  allowExperimental: false,
  timeoutMs: 0,
  unsafe: false,
  keepWorktrees: false,
  prices: {},
  worktreeRoot: '/wt',
  killGraceMs: 300,
};

let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
});

describe('a crashed race machine', () => {
  it('settles failed with the error’s message and hint, and every later request says so', async () => {
    const machine = raceMachine.provide({
      actors: { checkRepo: fromPromise(async () => repo) },
      actions: {
        // Stands for any action or input that throws inside the machine.
        applyRepo: () => {
          throw new EngineError({
            kind: 'Refused',
            message: 'The probe reports could not be read.',
            hint: 'Run `hydra doctor`.',
          });
        },
      },
    });
    handle = startRace(options, { machine });

    const settled = await handle.settled;
    const summary = await handle.finish();

    for (const result of [settled, summary]) {
      expect(result.error).toEqual({
        kind: 'Refused',
        message: "hydra's race engine failed: The probe reports could not be read.",
        hint: 'Run `hydra doctor`.',
      });
    }
    expect(handle.getSnapshot().phase).toBe('failed');
    expect(dashboardExitCode(handle.getSnapshot(), null)).toBe(1);
    await expect(handle.startRound({ kind: 'follow_up', agent: 'claude', prompt: 'go on' })).rejects.toThrow(
      /could not be read/,
    );
    await expect(handle.merge('claude')).rejects.toThrow(/could not be read/);
  });
});

describe('the race machine’s input builders', () => {
  const resolved: ResolvedRaceOptions = {
    ...options,
    runId: '20260101-000000-abcd',
    worktreeRoot: '/wt',
    killGraceMs: 300,
  };
  const context = initialContext({ options: resolved, startedAt: 1, processes: createProcessRegistry() });

  it('return what they cannot build as a problem instead of throwing', () => {
    expect(workspaceInput(context)).toMatchObject({
      problem: { message: expect.stringMatching(/without a repository/) },
    });
    expect(mergeInput({ ...context, repo })).toMatchObject({
      problem: { message: expect.stringMatching(/without a merge request/) },
    });
    expect(roundInput({ ...context, repo })).toMatchObject({
      problem: { message: expect.stringMatching(/nobody asked for/) },
    });
  });

  it('a round for an agent whose branch is gone is a Refused problem naming the agent', () => {
    const pending = {
      ...context,
      repo,
      pendingRound: { kind: 'follow_up' as const, agent: 'claude', prompt: 'go on' },
    };
    expect(roundInput(pending)).toEqual({
      problem: {
        kind: 'Refused',
        message: 'claude has no result in run 20260101-000000-abcd to work on.',
        hint: 'Pick an agent whose branch is still there (`hydra show 20260101-000000-abcd` lists them).',
      },
    });
  });
});
