/**
 * One agent as a race is asked to run it (config file and flags merged), and where it runs: the
 * shape config builds, probing, the judge and the race read. On the engine's floor, so every
 * folder can name it.
 */
import type { AdapterId } from '../adapters/types.js';
import type { AgentName } from './agent-name.js';
import type { CheckSpec } from './check-types.js';

/** `local`: on this machine under the supervisor (today's path); `container`: in a container on an engine. */
export type RunnerKind = 'local' | 'container';

/** One agent as configured for a race (config file and flags already merged). */
export interface AgentPlan {
  /** The agent's name; absent for an agent named after its adapter (see agentNameOf). */
  name?: AgentName;
  /** The CLI it runs. */
  adapterId: AdapterId;
  /** The `[agents.<table>]` its settings come from, when not its own name (`claude` for `claude-2`). */
  table?: string;
  /** Configured binary path or name; discovery falls back to the adapter's candidates. */
  binary?: string;
  model?: string;
  extraArgs: string[];
  env: Record<string, string>;
  /** Idle timeout for this agent, in milliseconds. */
  idleTimeoutMs: number;
  maxTurns?: number;
  /** False when the config disables this agent: probeAgents reports it as 'disabled' without probing. */
  enabled?: boolean;
  /** Stop the agent once its estimated spend passes this many USD (`max_cost_usd`). */
  maxCostUsd?: number; /**
   * Its checks, when they differ from the race's (`[[agents.<name>.checks]]`): the race-wide ones
   * with its overrides, then its own. Absent: the race's checks.
   */
  checks?: CheckSpec[];
  /** Where it runs (`runner`, `--runner`; src/engine/container); absent: `local`. */
  runner?: RunnerKind;
}
