/**
 * The agent machine with fake actors (its process and its commit step), invoked by a parent that
 * keeps every AGENT.* report it sends: the set-up of test/unit/engine/agent/agent-machine.test.ts and of the
 * container queue's test (test/unit/engine/container/queue.test.ts).
 */
import { assign, createActor, fromCallback, fromPromise, setup } from 'xstate';
import type { AnyActorRef } from 'xstate';
import { agentMachine } from '../../src/engine/agent/agent-machine.js';
import type {
  AgentInput,
  AgentLaunch,
  AgentProcessCommand,
  AgentProcessEvent,
  AgentReport,
  FinalizeInput,
  FinalizeOutput,
} from '../../src/engine/agent/agent-types.js';
import { createProcessRegistry } from '../../src/engine/process/process-registry.js';

/** A launch of claude in /w with no timeout but a 1 s idle limit, changed by `overrides`. */
export const testLaunch = (overrides: Partial<AgentLaunch> = {}): AgentLaunch => ({
  runId: '20260101-000000-abcd',
  agent: 'claude',
  adapter: 'claude',
  displayName: 'Claude Code',
  command: { file: 'claude', args: ['-p', 'x'], env: {}, cwd: '/w', files: [] },
  env: {},
  parser: {},
  repoRoot: '/repo',
  recordDir: '/repo/.hydra/runs/x',
  worktree: '/w',
  scratchDir: '/s',
  branch: 'hydra/x/claude',
  baseRef: 'base',
  prompt: 'do it',
  idleTimeoutMs: 1000,
  timeoutMs: 0,
  graceMs: 300,
  ...overrides,
});

/** What stands in for the agent's process and for the commit of its result. */
export interface FakeAgentActors {
  process: Parameters<typeof fromCallback<AgentProcessCommand, AgentInput, AgentProcessEvent>>[0];
  finalize: (input: FinalizeInput) => Promise<FinalizeOutput>;
}

/** A started agent machine, seen through its parent. */
export interface AgentHarness {
  /** What the parent actor reported as errors (an action that threw stops a v5 actor). */
  errors: unknown[];
  /** The agent machine's state value. */
  state: () => unknown;
  /** Every AGENT.* event the agent sent its parent, in order. */
  reports: () => AgentReport[];
  send: (event: { type: 'STOP' } | { type: 'STOP_EARLY' }) => void;
  stop: () => void;
}

const parentOf = (fakes: FakeAgentActors, extra: Pick<AgentInput, 'stopAtStart'>) => {
  const agent = agentMachine.provide({
    actors: {
      agentProcess: fromCallback<AgentProcessCommand, AgentInput, AgentProcessEvent>(fakes.process),
      finalizeResult: fromPromise<FinalizeOutput, FinalizeInput>(({ input }) => fakes.finalize(input)),
    },
  });
  return setup({
    types: {
      context: {} as { reports: AgentReport[]; launch: AgentLaunch },
      events: {} as AgentReport,
      input: {} as AgentLaunch,
    },
    actors: { agent },
  }).createMachine({
    context: ({ input }) => ({ reports: [], launch: input }),
    invoke: {
      id: 'agent',
      src: 'agent',
      input: ({ context }) => ({ launch: context.launch, processes: createProcessRegistry(), ...extra }),
    },
    on: {
      '*': {
        guard: ({ event }) => event.type.startsWith('AGENT.'),
        actions: assign(({ context, event }) => ({ reports: [...context.reports, event] })),
      },
    },
  });
};

/** Starts the agent machine on `launch` with `fakes` for its process and commit step. */
export function startAgent(
  fakes: FakeAgentActors,
  launch: AgentLaunch,
  extra: Pick<AgentInput, 'stopAtStart'> = {},
): AgentHarness {
  const actor = createActor(parentOf(fakes, extra), { input: launch });
  const errors: unknown[] = [];
  actor.subscribe({ error: (error) => errors.push(error) });
  actor.start();
  const child = (): AnyActorRef | undefined => actor.getSnapshot().children.agent as AnyActorRef | undefined;
  return {
    errors,
    state: () => child()?.getSnapshot().value as unknown,
    reports: () => actor.getSnapshot().context.reports,
    send: (event) => child()?.send(event),
    stop: () => actor.stop(),
  };
}
