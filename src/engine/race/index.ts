/** A race: the race machine, its actors, the snapshot it publishes, and startRace, which drives it. */
export { startRace } from './race.js';
export { reopenFromRecord } from './race-reopen.js';
export { ROUND_STAGE } from './race-rounds.js';
export type {
  AgentSnapshot,
  BaselineSnapshot,
  RaceHandle,
  RacePhase,
  RaceSnapshot,
  ShellRequest,
  ShellResult,
} from './race-handle.js';
