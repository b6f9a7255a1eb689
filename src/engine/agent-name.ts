/** An agent's name from its plan: the name it was given, else its adapter's id. */
import type { AgentName, AgentPlan } from './types.js';

export const agentNameOf = (plan: Pick<AgentPlan, 'name' | 'adapterId'>): AgentName =>
  plan.name ?? plan.adapterId;
