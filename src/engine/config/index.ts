/** Configuration: hydra.toml and flags, validated into RaceOptions; typo suggestions. */
export { ConfigError } from './config-error.js';
export { CONFIG_DEFAULTS } from './schema.js';
export { parseConfigText } from './parse.js';
export { displayPath, findRepoRoot, userConfigPath } from './locate.js';
export { configWarnings, loadConfig } from './load.js';
export { EXECUTING_KEYS } from './trust-filter.js';
export { buildRaceOptions, checkConfiguredBinaries, planForDoctor, sandboxOf } from './resolve.js';
export type { RaceFlags } from './resolve.js';
export { linkedOutside, listTrusted, revokeTrust, trustFile, userConfigDirOf } from './trust.js';
export { closest } from './did-you-mean.js';
export { autoCheckState, describeAutoCheck, resolveAutoChecks } from './auto-checks.js';
export type { AutoCheckState } from './auto-checks.js';
export { MAX_REPEAT } from './agents.js';
export { raceSetup, trustCursorSetup } from './setup-trust.js';
export { devcontainerStatus, devcontainerTrusted, trustDevcontainer } from './devcontainer-trust.js';
export type { DevcontainerStatus } from './devcontainer-trust.js';
export { setupOf } from './resolve.js';
export type { RaceOptions, ReopenRun, RoundRequest } from './race-options.js';
