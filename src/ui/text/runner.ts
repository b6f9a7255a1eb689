/** Where an agent runs, as the pane, the detail view and `hydra show` say it. */
import type { AgentSnapshot } from '../../engine/index.js';
import type { AgentEvent } from '../../core/events.js';
import { statusLabel } from './status.js';

/** The host a record holds for the environment's engine (`[container] hosts` unset): container/settings.ts. */
const DEFAULT_HOST = 'default';

/** `ssh://buildbox` → `buildbox`, `tcp://10.0.0.5:2376` → `10.0.0.5:2376`; a socket keeps its path. */
const shortHost = (host: string): string => host.replace(/^(ssh|tcp):\/\//, '').replace(/^unix:\/\//, '');

/**
 * `container`, or `container @ buildbox` on an engine other than the environment's; null for an
 * agent that runs on this machine (or is not launched yet).
 */
export const runnerLabel = (agent: Pick<AgentSnapshot, 'runner' | 'host'>): string | null => {
  if (agent.runner !== 'container') return null;
  return agent.host === undefined || agent.host === DEFAULT_HOST
    ? 'container'
    : `container @ ${shortHost(agent.host)}`;
};

/**
 * The status in words; `starting container…` while a container starts (seconds before any output),
 * `waiting for a container…` while it waits for room on its engine.
 */
export const agentStatusLabel = (
  agent: Pick<AgentSnapshot, 'status' | 'runner'> & Partial<Pick<AgentSnapshot, 'recentEvents'>>,
  ellipsis: string,
): string => {
  if (agent.status === 'spawning' && agent.runner === 'container') return `starting container${ellipsis}`;
  // In line for room on its engine (`[container] max_agents`): not just "waiting".
  if (agent.status === 'pending' && queuedForRoom(agent.recentEvents ?? []))
    return `waiting for a container${ellipsis}`;
  return statusLabel(agent.status);
};

/** Whether the agent's last word is that it waits for room on a container host (stage `queued`). */
const queuedForRoom = (events: readonly AgentEvent[]): boolean => {
  const last = events.findLast((event) => event.kind === 'progress');
  return last?.kind === 'progress' && last.stage === QUEUED_STAGE;
};

/** The stage of a container agent's progress while it waits for room (engine/agent QUEUED_STAGE). */
const QUEUED_STAGE = 'queued';
