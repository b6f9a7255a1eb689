/** Agent and race states in words, tones and symbols, and the clocks a pane shows. */
import { assertNever } from '../../core/events.js';
import type { AgentSnapshot, AgentStatus, RaceSnapshot } from '../../engine/index.js';
import { formatDuration } from './format.js';
import type { Symbols, Tone } from './theme.js';

export const isRunning = (status: AgentStatus): boolean =>
  status === 'pending' || status === 'setting_up' || status === 'spawning' || status === 'running';

export const statusLabel = (status: AgentStatus): string => {
  switch (status) {
    case 'pending':
      return 'waiting';
    case 'setting_up':
      return 'setting up';
    case 'spawning':
      return 'starting';
    case 'running':
      return 'running';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'timed_out':
      return 'timed out';
    case 'cancelled':
      return 'stopped';
    case 'skipped':
      return 'skipped';
    default:
      return assertNever(status);
  }
};

export const statusTone = (status: AgentStatus): Tone => {
  switch (status) {
    case 'pending':
    case 'setting_up':
    case 'spawning':
    case 'running':
      return 'accent';
    case 'completed':
      return 'ok';
    case 'failed':
    case 'timed_out':
      return 'error';
    case 'cancelled':
    case 'skipped':
      return 'warn';
    default:
      return assertNever(status);
  }
};

export const statusSymbol = (status: AgentStatus, symbols: Symbols, spinnerFrame: number): string => {
  switch (status) {
    case 'pending':
      return symbols.pending;
    case 'setting_up':
    case 'spawning':
    case 'running':
      return symbols.spinner[spinnerFrame % symbols.spinner.length] ?? symbols.pending;
    case 'completed':
      return symbols.ok;
    case 'failed':
    case 'timed_out':
      return symbols.fail;
    case 'cancelled':
    case 'skipped':
      return symbols.stopped;
    default:
      return assertNever(status);
  }
};

/** Time the agent has been running (or ran), from the snapshot's clock; while setting up, the setup's. */
export const agentElapsed = (agent: AgentSnapshot, now: number): number | null => {
  if (agent.status === 'setting_up' && agent.setup !== undefined)
    return Math.max(0, now - agent.setup.startedAt);
  if (agent.startedAt === null) return null;
  return Math.max(0, (agent.endedAt ?? now) - agent.startedAt);
};

/** "idle 12s" for a running agent, "no output yet" before its first line, null when settled. */
export const idleLabel = (agent: AgentSnapshot, now: number): string | null => {
  if (agent.status !== 'running') return null;
  const since = agent.lastOutputAt ?? agent.startedAt;
  if (since === null) return null;
  const idle = Math.max(0, now - since);
  if (agent.lastOutputAt === null) return `no output for ${formatDuration(idle)}`;
  return `idle ${formatDuration(idle)}`;
};

export interface RaceCounts {
  /** Not started yet (the race is still checking, probing or making worktrees). */
  waiting: number;
  running: number;
  done: number;
  failed: number;
  stopped: number;
}

/** Whether the race is over (an agent still marked pending then never ran). */
const raceIsOver = (phase: RaceSnapshot['phase']): boolean =>
  phase === 'done' || phase === 'cancelled' || phase === 'failed';

export const raceCounts = (snapshot: RaceSnapshot): RaceCounts => {
  const counts: RaceCounts = { waiting: 0, running: 0, done: 0, failed: 0, stopped: 0 };
  const over = raceIsOver(snapshot.phase);
  for (const agent of snapshot.agents) {
    switch (agent.status) {
      case 'pending':
        if (over) counts.stopped += 1;
        else counts.waiting += 1;
        break;
      case 'setting_up':
      case 'spawning':
      case 'running':
        if (over) counts.stopped += 1;
        else counts.running += 1;
        break;
      case 'completed':
        counts.done += 1;
        break;
      case 'failed':
      case 'timed_out':
        counts.failed += 1;
        break;
      case 'cancelled':
      case 'skipped':
        counts.stopped += 1;
        break;
      default:
        assertNever(agent.status);
    }
  }
  return counts;
};

export const phaseLabel = (phase: RaceSnapshot['phase']): string => {
  switch (phase) {
    case 'checking_repo':
      return 'checking repository';
    case 'probing':
      return 'probing agents';
    case 'creating_worktrees':
      return 'creating worktrees';
    case 'racing':
      return 'racing';
    case 'checking':
      return 'checking';
    case 'cross_testing':
      return 'cross-testing';
    case 'judging':
      return 'judging';
    case 'reviewing':
      return 'reviewing';
    case 'merging':
      return 'merging';
    case 'done':
      return 'done';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
      return 'failed';
    default:
      return assertNever(phase);
  }
};
