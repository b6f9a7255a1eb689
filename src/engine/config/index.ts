/** Configuration: hydra.toml and flags, validated into RaceOptions; typo suggestions. */
export { ConfigError } from './config-error.js';
export {
  buildRaceOptions,
  checkConfiguredBinaries,
  CONFIG_DEFAULTS,
  displayPath,
  findRepoRoot,
  loadConfig,
  parseConfigText,
  planForDoctor,
  untrustedConfigWarning,
  userConfigPath,
} from './config.js';
export type { RaceFlags } from './config.js';
export { EXECUTING_KEYS, listTrusted, revokeTrust, trustFile, userConfigDirOf } from './trust.js';
export { closest } from './did-you-mean.js';
export { MAX_REPEAT } from './agents.js';
