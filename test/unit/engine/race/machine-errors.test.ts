/**
 * Issue 24, case 2, as a class, for every machine of hydra (the race's and each agent's): an actor
 * that fails reaches its state's onError, no invoke's input throws (XState would crash the whole
 * actor instead), and an actor that throws fails what it was doing (an agent, the baseline), with
 * its message and hint, while the race goes on to review.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fromCallback, fromPromise } from 'xstate';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { agentMachine } from '../../../../src/engine/agent/agent-machine.js';
import type {
  AgentInput,
  AgentLaunch,
  AgentProcessCommand,
  AgentProcessEvent,
  FinalizeOutput,
} from '../../../../src/engine/agent/agent-types.js';
import type { BaselineInput, BaselineOutput } from '../../../../src/engine/checks/index.js';
import type { Prepared } from '../../../../src/engine/race/prepared.js';
import { EngineError } from '../../../../src/engine/errors.js';
import type { RepoCheck } from '../../../../src/engine/git/repo.js';
import { createProcessRegistry } from '../../../../src/engine/process/process-registry.js';
import { initialContext } from '../../../../src/engine/race/race-context.js';
import { raceMachine } from '../../../../src/engine/race/race-machine.js';
import { startRace } from '../../../../src/engine/race/race.js';
import type {
  CleanUpOutput,
  ResolvedRaceOptions,
  Workspace,
} from '../../../../src/engine/race/race-types.js';
import type { AgentProbeReport, RaceHandle } from '../../../../src/engine/index.js';

const MACHINES: ReadonlyArray<[string, AnyStateMachine]> = [
  ['race', raceMachine],
  ['agent', agentMachine],
];

/** Every invoke of a machine, with the state that holds it. */
const invokesOf = (
  node: AnyStateNode,
): Array<{ state: string; src: unknown; invoke: Record<string, unknown> }> => [
  ...node.invoke.map((invoke) => ({
    state: node.id,
    src: invoke.src,
    invoke: invoke as unknown as Record<string, unknown>,
  })),
  ...Object.values(node.states).flatMap((child) => invokesOf(child)),
];

const options: ResolvedRaceOptions = {
  repoPath: '/repo',
  prompt: 'do it',
  agents: [{ adapterId: 'claude', extraArgs: [], env: {}, idleTimeoutMs: 60_000 }],
  allowExperimental: false,
  timeoutMs: 0,
  unsafe: false,
  keepWorktrees: false,
  prices: {},
  runId: '20260101-000000-abcd',
  worktreeRoot: '/wt',
  killGraceMs: 300,
};

const repo: RepoCheck = {
  root: '/repo',
  baseRef: 'base',
  baseBranch: 'main',
  gitVersion: '2.45.0',
  warnings: [],
};

const launch: AgentLaunch = {
  runId: options.runId,
  agent: 'claude',
  adapter: 'claude',
  displayName: 'Claude Code',
  command: { file: 'claude', args: [], env: {}, cwd: '/wt/claude', files: [] },
  env: {},
  parser: {},
  repoRoot: '/repo',
  recordDir: '/repo/.hydra/runs/x',
  worktree: '/wt/claude',
  scratchDir: '/wt/.scratch/claude',
  branch: 'hydra/x/claude',
  baseRef: 'base',
  prompt: 'do it',
  idleTimeoutMs: 60_000,
  timeoutMs: 0,
  graceMs: 300,
};

describe('every machine’s invokes', () => {
  it.each(MACHINES)('of the %s machine have an onError, so a failing actor reaches it', (_, machine) => {
    const missing = invokesOf(machine.root)
      .filter(({ invoke }) => invoke['onError'] === undefined)
      .map(({ state, src }) => `${state} (${String(src)})`);
    expect(missing).toEqual([]);
  });

  it('build their input without throwing from a context where nothing is known yet', () => {
    const processes = createProcessRegistry();
    const contexts: Record<string, unknown> = {
      race: initialContext({ options, startedAt: 1, processes }),
      agent: {
        launch,
        processes,
        checkSlots: null,
        checks: null,
        stoppedBy: null,
        status: null,
        terminal: null,
        diff: null,
        commit: null,
        warnings: [],
        error: null,
      },
    };
    for (const [name, machine] of MACHINES) {
      for (const { state, invoke } of invokesOf(machine.root)) {
        const input = invoke['input'];
        if (typeof input !== 'function') continue;
        expect(
          () => (input as (args: unknown) => unknown)({ context: contexts[name], event: { type: 'x' } }),
          `${state}`,
        ).not.toThrow();
      }
    }
  });
});

const ready: AgentProbeReport = {
  agent: 'claude',
  adapterId: 'claude',
  displayName: 'Claude Code',
  tier: 'tier1',
  status: 'ready',
  binary: '/bin/claude',
  version: '1.0.0',
  capabilities: {
    adapterId: 'claude',
    binary: '/bin/claude',
    version: '1.0.0',
    flags: [],
    features: {},
    confidence: 'verified',
    warnings: [],
  },
  command: null,
  warnings: [],
  error: null,
  cached: false,
};

const failure = new EngineError({
  kind: 'SpawnFailed',
  message: 'The adapter could not build its command.',
  hint: 'Run `hydra doctor`.',
});

let handle: RaceHandle | null = null;
let recordDir: string | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  if (recordDir !== null) rmSync(recordDir, { recursive: true, force: true });
  recordDir = null;
});

/** A race of one agent whose every side effect is a fake, with these actors replaced too. */
const raceWith = (
  replace: {
    agentProcess: ReturnType<typeof throwingProcess>;
    baselineRun?: ReturnType<typeof throwingBaseline>;
  },
  extra: Partial<ResolvedRaceOptions> = {},
): RaceHandle => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-machine-errors-'));
  recordDir = dir;
  const finalized: FinalizeOutput = { diff: null, commit: null };
  const agentRun = agentMachine.provide({
    actors: {
      agentProcess: replace.agentProcess,
      finalizeResult: fromPromise(async () => finalized),
      knowRepository: fromPromise<void, { repoRoot: string }>(async () => undefined),
    },
  });
  const machine = raceMachine.provide({
    actors: {
      checkRepo: fromPromise(async () => repo),
      probeAgents: fromPromise(async () => [ready]),
      createWorkspace: fromPromise(async (): Promise<Workspace> => ({ launches: [launch], recordDir: dir })),
      agentRun,
      cleanUp: fromPromise(async (): Promise<CleanUpOutput> => ({ removed: [] })),
      ...(replace.baselineRun === undefined ? {} : { baselineRun: replace.baselineRun }),
    },
  });
  return startRace({ ...options, ...extra }, { machine });
};

const throwingProcess = (error: Error) =>
  fromCallback<AgentProcessCommand, AgentInput, AgentProcessEvent>(() => {
    throw error;
  });

const throwingBaseline = (error: Error) =>
  fromCallback<{ type: 'NONE' }, Prepared<BaselineInput>, { type: 'BASELINE.DONE' } & BaselineOutput>(() => {
    throw error;
  });

describe('an actor that throws', () => {
  it('fails its agent with the error’s message and hint, and the race goes on to review', async () => {
    handle = raceWith({ agentProcess: throwingProcess(failure) });

    const summary = await handle.settled;

    expect(summary.error).toBeNull();
    expect(handle.getSnapshot().phase).toBe('reviewing');
    expect(summary.agents[0]).toMatchObject({
      status: 'failed',
      error: {
        kind: 'SpawnFailed',
        message: 'Claude Code could not be run: The adapter could not build its command.',
        hint: 'Run `hydra doctor`.',
      },
    });
  });

  it('fails the baseline with its message, and the race goes on to review', async () => {
    handle = raceWith(
      {
        agentProcess: throwingProcess(failure),
        baselineRun: throwingBaseline(new Error('The baseline worktree could not be made.')),
      },
      { checks: [{ name: 'test', run: 'true', timeoutMs: 0, gate: false }] },
    );

    const summary = await handle.settled;

    expect(summary.error).toBeNull();
    expect(handle.getSnapshot().phase).toBe('reviewing');
    expect(summary.baseline).toMatchObject({
      status: 'failed',
      error: 'The baseline worktree could not be made.',
    });
  });
});
