/**
 * The engine's public API. The CLI and the dashboard use only this (and the types in types.ts).
 */
export { startRace } from './race.js';
export { mergeRun } from './merge.js';
export { listRuns, readRun } from './records.js';
export { cleanRuns } from './clean.js';
export { ensureExcluded, HYDRA_EXCLUDES, inspectRepo } from './repo.js';
export { probeAgents } from './probe.js';
export { EngineError, isEngineError } from './errors.js';
export { defaultWorktreeRoot } from './paths.js';
