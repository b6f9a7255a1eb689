/** One agent's lifetime: the agent machine, its process actor, and the shapes they share. */
export { agentMachine, finalizeWork } from './agent-machine.js';
export type { AgentLaunch, AgentReport } from './agent-types.js';
