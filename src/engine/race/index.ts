/** A race: the race machine, its actors, the snapshot it publishes, and startRace, which drives it. */
export { startRace } from './race.js';
export { reopenFromRecord } from './race-reopen.js';
export { ROUND_STAGE } from './race-rounds.js';
