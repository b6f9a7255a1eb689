/** Processes: spawning an agent under supervision, its process group, line splitting, and the watchdog. */
export { DEFAULT_MAX_LINE_BYTES } from './line-splitter.js';
export {
  PROBE_OWNER,
  cwdOf,
  groupMembers,
  pidAlive,
  processInfo,
  processesOfRun,
  registerGroup,
  registerRace,
  signalGroup,
  unregisterGroup,
  waitForGroups,
} from './process-groups.js';
export { spawnSupervised } from './supervisor.js';
export type { Supervised } from './supervisor.js';
export { startWatchdog } from './watchdog.js';
