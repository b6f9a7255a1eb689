/** One agent's lifetime: the agent machine, its process actor, and the shapes they share. */
export { agentMachine } from './agent-machine.js';
export { finalizeWork } from './finalize.js';
export type { AgentLaunch, AgentReport, AgentSetup, AgentStatus } from './agent-types.js';
