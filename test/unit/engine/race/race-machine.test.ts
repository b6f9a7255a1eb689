/**
 * The race machine with every actor faked, driven by fake timers: every transition, including
 * CANCEL from each state.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, fromPromise } from 'xstate';
import type { Actor } from 'xstate';
import { emptyUsage, ev } from '../../../../src/core/events.js';
import type { AdapterId, Capabilities } from '../../../../src/adapters/types.js';
import type { AgentInput, AgentLaunch, AgentReport } from '../../../../src/engine/agent/agent-types.js';
import { createProcessRegistry } from '../../../../src/engine/process/process-registry.js';
import { raceMachine } from '../../../../src/engine/race/race-machine.js';
import type { RaceEmitted } from '../../../../src/engine/race/race-machine.js';
import type {
  CleanUpInput,
  MergeInput,
  ResolvedRaceOptions,
  Workspace,
} from '../../../../src/engine/race/race-types.js';
import type { RepoCheck } from '../../../../src/engine/git/repo.js';
import { phaseOf } from '../../../../src/engine/race/snapshot.js';
import type { AgentProbeReport, MergeResult } from '../../../../src/engine/index.js';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

const deferred = <T>(): Deferred<T> => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

interface FakeAgent {
  sendBack(event: AgentReport): void;
  stops: number;
  /** The events the race sent it (STOP, STOP_EARLY ...). */
  received: string[];
}

const AGENTS: AdapterId[] = ['claude', 'codex'];

const options: ResolvedRaceOptions = {
  repoPath: '/repo',
  prompt: 'do it',
  agents: AGENTS.map((adapterId) => ({ adapterId, extraArgs: [], env: {}, idleTimeoutMs: 1000 })),
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
  gitVersion: '2.39.5',
  warnings: ['dirty'],
};

const capabilities = (adapterId: AdapterId): Capabilities => ({
  adapterId,
  binary: `/bin/${adapterId}`,
  version: '1.0.0',
  flags: [],
  features: {},
  confidence: 'verified',
  warnings: [],
});

const report = (adapterId: AdapterId, status: AgentProbeReport['status']): AgentProbeReport => ({
  agent: adapterId,
  adapterId,
  displayName: adapterId,
  tier: 'tier1',
  status,
  binary: status === 'ready' ? `/bin/${adapterId}` : null,
  version: '1.0.0',
  capabilities: status === 'ready' ? capabilities(adapterId) : null,
  command: null,
  warnings: [],
  error:
    status === 'ready'
      ? null
      : { kind: 'BinaryMissing', message: `${adapterId} not found`, hint: 'install it' },
  cached: false,
});

const launchOf = (agent: AdapterId): AgentLaunch => ({
  runId: options.runId,
  agent,
  adapter: agent,
  displayName: agent,
  command: { file: agent, args: [], env: {}, cwd: `/wt/${agent}`, files: [] },
  env: {},
  parser: {},
  repoRoot: '/repo',
  recordDir: '/repo/.hydra/runs/x',
  worktree: `/wt/${agent}`,
  scratchDir: `/wt/.scratch/${agent}`,
  branch: `hydra/x/${agent}`,
  baseRef: 'base',
  prompt: 'do it',
  idleTimeoutMs: 1000,
  timeoutMs: 0,
  graceMs: 300,
});

let check: Deferred<RepoCheck>;
let probe: Deferred<AgentProbeReport[]>;
let workspace: Deferred<Workspace>;
let mergeCall: Deferred<MergeResult>;
let mergeInputs: MergeInput[];
let cleanUps: CleanUpInput[];
let agents: Map<AdapterId, FakeAgent>;
let emitted: RaceEmitted['records'];
let actor: Actor<typeof raceMachine>;
let errors: unknown[];
let inputs: AgentInput[];

const flush = () => vi.advanceTimersByTimeAsync(0);
const phase = () => phaseOf(actor.getSnapshot().value);
const value = () => actor.getSnapshot().value;

const settleAgent = (agent: AdapterId, status: 'completed' | 'failed' | 'cancelled') => {
  const fake = agents.get(agent)!;
  const terminal =
    status === 'completed'
      ? ev({ kind: 'completed', result: 'ok' })
      : ev({ kind: 'failed', error: { kind: 'AgentFailed', message: 'x', hint: 'y' } });
  fake.sendBack({
    type: 'AGENT.EXITED',
    agent,
    at: 10,
    terminal,
    exitCode: status === 'completed' ? 0 : 1,
    status,
  });
  fake.sendBack({
    type: 'AGENT.SETTLED',
    agent,
    at: 11,
    status,
    diff: { filesChanged: 1, insertions: 1, deletions: 0, files: [] },
    commit: 'abc',
    checks: null,
    warnings: [],
    error: null,
  });
};

/** Creates and starts the race actor (with every actor faked) for `raceOptions`. */
const begin = (raceOptions: ResolvedRaceOptions): void => {
  check = deferred();
  probe = deferred();
  workspace = deferred();
  mergeCall = deferred();
  mergeInputs = [];
  cleanUps = [];
  agents = new Map();
  emitted = [];
  errors = [];
  inputs = [];
  const machine = raceMachine.provide({
    actors: {
      checkRepo: fromPromise(() => check.promise),
      probeAgents: fromPromise(() => probe.promise),
      createWorkspace: fromPromise(() => workspace.promise),
      agentRun: fromCallback<{ type: 'STOP' | 'STOP_EARLY' }, AgentInput>(({ input, sendBack, receive }) => {
        const { launch } = input;
        inputs.push(input);
        const fake: FakeAgent = { sendBack: (event) => sendBack(event), stops: 0, received: [] };
        agents.set(launch.agent, fake);
        receive((event) => {
          fake.received.push(event.type);
          fake.stops += 1;
          queueMicrotask(() => settleAgent(launch.agent, 'cancelled'));
        });
      }) as never,
      mergeAgent: fromPromise<MergeResult, MergeInput>(({ input }) => {
        mergeInputs.push(input);
        return mergeCall.promise;
      }),
      cleanUp: fromPromise<{ removed: string[] }, CleanUpInput>(async ({ input }) => {
        cleanUps.push(input);
        return { removed: [] };
      }),
    },
  });
  actor = createActor(machine, {
    input: { options: raceOptions, startedAt: 1, processes: createProcessRegistry() },
  });
  actor.on('agentEvents', (event) => emitted.push(...event.records));
  actor.subscribe({ error: (error) => errors.push(error) });
  actor.start();
};

beforeEach(() => {
  vi.useFakeTimers();
  begin(options);
});

afterEach(() => {
  actor.stop();
  vi.useRealTimers();
  expect(errors).toEqual([]);
});

const toRacing = async () => {
  check.resolve(repo);
  await flush();
  probe.resolve([report('claude', 'ready'), report('codex', 'ready')]);
  await flush();
  workspace.resolve({ recordDir: '/repo/.hydra/runs/x', launches: AGENTS.map(launchOf) });
  await flush();
};

const toReviewing = async (statuses: Array<'completed' | 'failed'> = ['completed', 'completed']) => {
  await toRacing();
  AGENTS.forEach((agent, index) =>
    agents.get(agent)!.sendBack({ type: 'AGENT.SPAWNED', agent, at: 2, pid: 100 + index }),
  );
  AGENTS.forEach((agent, index) => settleAgent(agent, statuses[index]!));
  await flush();
};

const mergeResult: MergeResult = {
  runId: options.runId,
  agent: 'claude',
  into: 'main',
  method: 'fast-forward',
  commit: 'abc',
  filesChanged: 1,
  removed: [],
};

describe('race machine: the happy path', () => {
  it('goes checkingRepo → probing → creatingWorktrees → racing → reviewing → merging → done', async () => {
    expect(phase()).toBe('checking_repo');
    check.resolve(repo);
    await flush();
    expect(phase()).toBe('probing');
    expect(actor.getSnapshot().context.warnings).toEqual(['dirty']);
    probe.resolve([report('claude', 'ready'), report('codex', 'ready')]);
    await flush();
    expect(phase()).toBe('creating_worktrees');
    workspace.resolve({ recordDir: '/repo/.hydra/runs/x', launches: AGENTS.map(launchOf) });
    await flush();
    expect(phase()).toBe('racing');
    expect([...agents.keys()]).toEqual(['claude', 'codex']);
    expect(actor.getSnapshot().context.agents.map((agent) => agent.status)).toEqual(['spawning', 'spawning']);

    agents.get('claude')!.sendBack({ type: 'AGENT.SPAWNED', agent: 'claude', at: 2, pid: 100 });
    expect(actor.getSnapshot().context.agents[0]).toMatchObject({ status: 'running', startedAt: 2 });
    const usage = { ...emptyUsage(), inputTokens: 5 };
    agents.get('claude')!.sendBack({
      type: 'AGENT.OUTPUT',
      agent: 'claude',
      at: 3,
      events: [ev({ kind: 'message', role: 'assistant', text: 'hi' }), ev({ kind: 'usage', usage })],
    });
    expect(actor.getSnapshot().context.agents[0]).toMatchObject({ lastOutputAt: 3, eventCount: 2, usage });
    settleAgent('claude', 'completed');
    expect(phase()).toBe('racing');
    settleAgent('codex', 'failed');
    await flush();
    expect(phase()).toBe('reviewing');
    expect(actor.getSnapshot().context.agents.map((agent) => agent.status)).toEqual(['completed', 'failed']);
    expect(emitted.map((item) => `${item.agent}:${item.event.kind}`)).toEqual([
      'claude:message',
      'claude:usage',
      'claude:completed',
      'codex:failed',
    ]);

    actor.send({ type: 'MERGE', agent: 'claude', options: {} });
    expect(phase()).toBe('merging');
    expect(mergeInputs[0]).toMatchObject({
      agent: 'claude',
      baseBranch: 'main',
      branches: ['hydra/x/claude', 'hydra/x/codex'],
    });
    mergeCall.resolve(mergeResult);
    await flush();
    expect(value()).toBe('done');
    expect(actor.getSnapshot().context.merge).toEqual(mergeResult);
  });

  it('FINISH from reviewing cleans up (keeping completed branches) and ends in done', async () => {
    await toReviewing(['completed', 'failed']);
    actor.send({ type: 'FINISH' });
    expect(value()).toBe('finishing');
    await flush();
    expect(value()).toBe('done');
    expect(cleanUps).toHaveLength(1);
    expect(cleanUps[0]?.keepBranchesOf).toEqual(['claude']);
  });

  it('a STOP_AGENT while the worktrees are made is held: that agent starts stopped, the other races', async () => {
    check.resolve(repo);
    await flush();
    probe.resolve([report('claude', 'ready'), report('codex', 'ready')]);
    await flush();
    expect(phase()).toBe('creating_worktrees');
    actor.send({ type: 'STOP_AGENT', agent: 'codex' });
    workspace.resolve({ recordDir: '/repo/.hydra/runs/x', launches: AGENTS.map(launchOf) });
    await flush();

    expect(phase()).toBe('racing');
    expect(inputs.map((input) => [input.launch.agent, input.stopAtStart === true])).toEqual([
      ['claude', false],
      ['codex', true],
    ]);
  });

  it('STOP_AGENT stops only that agent', async () => {
    await toRacing();
    actor.send({ type: 'STOP_AGENT', agent: 'codex' });
    await flush();
    expect(agents.get('codex')!.stops).toBe(1);
    expect(agents.get('claude')!.stops).toBe(0);
    expect(actor.getSnapshot().context.agents[1]?.status).toBe('cancelled');
    expect(phase()).toBe('racing');
  });
});

describe('race machine: --stop first-verified', () => {
  it('stops an agent still queued for room (never spawned) once another result passed every check', async () => {
    actor.stop();
    begin({ ...options, stopFirstVerified: { graceMs: 0 } });
    await toRacing();
    agents.get('claude')!.sendBack({ type: 'AGENT.SPAWNED', agent: 'claude', at: 2, pid: 100 });
    // codex waits for room on its container's host: it never spawned.
    expect(actor.getSnapshot().context.agents[1]?.status).toBe('spawning');
    const fake = agents.get('claude')!;
    fake.sendBack({
      type: 'AGENT.EXITED',
      agent: 'claude',
      at: 10,
      terminal: ev({ kind: 'completed', result: 'ok' }),
      exitCode: 0,
      status: 'completed',
    });
    fake.sendBack({
      type: 'AGENT.SETTLED',
      agent: 'claude',
      at: 11,
      status: 'completed',
      diff: { filesChanged: 1, insertions: 1, deletions: 0, files: [] },
      commit: 'abc',
      checks: [
        {
          name: 'test',
          run: 'true',
          gate: true,
          status: 'passed',
          exitCode: 0,
          durationMs: 1,
          tests: null,
          output: '',
        },
      ],
      warnings: [],
      error: null,
    });
    await flush();

    expect(agents.get('codex')!.received).toEqual(['STOP_EARLY']);
    expect(actor.getSnapshot().context.stoppedEarly).toEqual({ by: 'claude', agents: ['codex'] });
  });
});

describe('race machine: failures', () => {
  it('a repository problem fails the race', async () => {
    check.reject(new Error('not a git repository'));
    await flush();
    expect(value()).toBe('failed');
    expect(actor.getSnapshot().context.error?.message).toMatch(/not a git repository/);
  });

  it('no usable adapter fails the race before any workspace is made, with each reason', async () => {
    check.resolve(repo);
    await flush();
    probe.resolve([report('claude', 'missing'), report('codex', 'unsupported')]);
    await flush();
    expect(value()).toBe('failed');
    const context = actor.getSnapshot().context;
    expect(context.error?.message).toMatch(/claude not found.*codex not found/);
    expect(context.agents.map((agent) => agent.status)).toEqual(['skipped', 'skipped']);
    expect(context.launches).toEqual([]);
  });

  it('a failed probe of one adapter is a warning; the others race', async () => {
    check.resolve(repo);
    await flush();
    probe.resolve([report('claude', 'ready'), report('codex', 'missing')]);
    await flush();
    expect(phase()).toBe('creating_worktrees');
    expect(actor.getSnapshot().context.warnings).toContain(
      'codex will not race: codex not found. install it.',
    );
    expect(actor.getSnapshot().context.agents[1]?.status).toBe('skipped');
  });

  it('a workspace that cannot be created fails the race', async () => {
    check.resolve(repo);
    await flush();
    probe.resolve([report('claude', 'ready')]);
    await flush();
    workspace.reject(new Error('disk full'));
    await flush();
    expect(value()).toBe('failed');
  });

  it('a refused merge goes back to reviewing with the reason', async () => {
    await toReviewing();
    actor.send({ type: 'MERGE', agent: 'claude', options: {} });
    mergeCall.reject(new Error('would conflict in a.txt'));
    await flush();
    expect(value()).toBe('reviewing');
    expect(actor.getSnapshot().context.mergeError?.message).toMatch(/conflict/);
  });

  it('merging an agent that did not complete is rejected without trying', async () => {
    await toReviewing(['completed', 'failed']);
    actor.send({ type: 'MERGE', agent: 'codex', options: {} });
    expect(value()).toBe('reviewing');
    expect(mergeInputs).toEqual([]);
    expect(actor.getSnapshot().context.mergeError?.message).toMatch(/did not complete/);
  });
});

describe('race machine: CANCEL from every state', () => {
  it('from checkingRepo', async () => {
    actor.send({ type: 'CANCEL' });
    await flush();
    expect(value()).toEqual({ cancelled: 'over' });
    check.resolve(repo);
    await flush();
    expect(value()).toEqual({ cancelled: 'over' });
    expect(cleanUps).toEqual([]);
  });

  it('from probing', async () => {
    check.resolve(repo);
    await flush();
    actor.send({ type: 'CANCEL' });
    await flush();
    expect(value()).toEqual({ cancelled: 'over' });
  });

  it('agents cancelled before they were launched are cancelled (stopped), not skipped (unusable)', async () => {
    check.resolve(repo);
    await flush();
    actor.send({ type: 'CANCEL' });
    await flush();
    const agents = actor.getSnapshot().context.agents;
    expect(agents.map((agent) => agent.status)).toEqual(['cancelled', 'cancelled']);
    expect(agents[0]?.error).toMatchObject({
      kind: 'Interrupted',
      message: 'The race was cancelled before Claude Code started.',
    });
  });

  it('from creatingWorktrees (the real actor rolls itself back)', async () => {
    check.resolve(repo);
    await flush();
    probe.resolve([report('claude', 'ready')]);
    await flush();
    actor.send({ type: 'CANCEL' });
    await flush();
    expect(value()).toEqual({ cancelled: 'over' });
    workspace.resolve({ recordDir: '/x', launches: [launchOf('claude')] });
    await flush();
    expect(agents.size).toBe(0);
  });

  it('from racing: every agent is stopped first, then the workspace is cleaned', async () => {
    await toRacing();
    agents.get('claude')!.sendBack({ type: 'AGENT.SPAWNED', agent: 'claude', at: 2, pid: 100 });
    actor.send({ type: 'CANCEL' });
    expect(phase()).toBe('racing');
    await flush();
    expect(agents.get('claude')!.stops).toBe(1);
    expect(agents.get('codex')!.stops).toBe(1);
    expect(value()).toEqual({ cancelled: 'over' });
    expect(actor.getSnapshot().context.agents.map((agent) => agent.status)).toEqual([
      'cancelled',
      'cancelled',
    ]);
    expect(cleanUps).toHaveLength(1);
  });

  it('from racing with one agent already settled: only the live one is stopped', async () => {
    await toRacing();
    settleAgent('claude', 'completed');
    actor.send({ type: 'CANCEL' });
    await flush();
    expect(agents.get('claude')!.stops).toBe(0);
    expect(agents.get('codex')!.stops).toBe(1);
    expect(cleanUps[0]?.keepBranchesOf).toEqual(['claude']);
  });

  it('from reviewing', async () => {
    await toReviewing();
    actor.send({ type: 'CANCEL' });
    await flush();
    expect(value()).toEqual({ cancelled: 'over' });
    expect(cleanUps).toHaveLength(1);
  });

  it('from merging: the merge is never interrupted; a successful one ends in done', async () => {
    await toReviewing();
    actor.send({ type: 'MERGE', agent: 'claude', options: {} });
    actor.send({ type: 'CANCEL' });
    expect(value()).toBe('merging');
    mergeCall.resolve(mergeResult);
    await flush();
    expect(value()).toBe('done');
  });

  it('from merging: a merge that then fails ends in cancelled', async () => {
    await toReviewing();
    actor.send({ type: 'MERGE', agent: 'claude', options: {} });
    actor.send({ type: 'CANCEL' });
    mergeCall.reject(new Error('refused'));
    await flush();
    expect(value()).toEqual({ cancelled: 'over' });
  });

  it('from finishing: clean-up completes and the race is done', async () => {
    await toReviewing();
    actor.send({ type: 'FINISH' });
    actor.send({ type: 'CANCEL' });
    await flush();
    expect(value()).toBe('done');
  });

  it('in a final state (done, failed) it changes nothing', async () => {
    check.reject(new Error('nope'));
    await flush();
    expect(value()).toBe('failed');
    actor.send({ type: 'CANCEL' });
    await flush();
    expect(value()).toBe('failed');
  });
});
