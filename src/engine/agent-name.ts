/** An agent's name, and how it follows from its plan. */
import type { AdapterId } from '../adapters/types.js';

/**
 * An agent's name in a race (`claude`, `opus`, `claude-2`): lowercase letters, digits and dashes,
 * unique in the race. It names the agent's branch `hydra/<run>/<name>`, its worktree, its record
 * keys and its pane; which CLI runs is its adapter's business (`AdapterId`), never read from the name.
 */
export type AgentName = string;

/** An agent's name from its plan: the name it was given, else its adapter's id. */
export const agentNameOf = (plan: { name?: AgentName; adapterId: AdapterId }): AgentName =>
  plan.name ?? plan.adapterId;
