/** Where an agent runs, as the pane, the detail view and `hydra show` say it. */
import type { AgentSnapshot } from '../../engine/index.js';
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

/** The status in words; `starting container…` while a container starts (seconds before any output). */
export const agentStatusLabel = (
  agent: Pick<AgentSnapshot, 'status' | 'runner'>,
  ellipsis: string,
): string =>
  agent.status === 'spawning' && agent.runner === 'container'
    ? `starting container${ellipsis}`
    : statusLabel(agent.status);
