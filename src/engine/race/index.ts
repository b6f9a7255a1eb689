/** A race: the race machine, its actors, the snapshot it publishes, and startRace, which drives it. */
export { startRace } from './race.js';
export { reopenFromRecord, ROUND_STAGE } from './race-rounds.js';
