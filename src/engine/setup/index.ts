/** Making each worktree ready: copied files, setup commands, shared dependencies, ports. */
export type { SetupSettings } from './settings.js';
export { DEFAULT_SETUP_TIMEOUT_MS, NO_SETUP } from './settings.js';
export { BASELINE_LEASE, createPortLeases, portLeaseDir } from './ports.js';
export type { PortLeases } from './ports.js';
export { DEFAULT_PORT_RANGE, PORT_BLOCK } from './port-range.js';
export type { PortRange } from './port-range.js';
export { BASELINE_AGENT, worktreeEnv } from './env.js';
export type { WorktreeIdentity } from './env.js';
