/** Configuration: hydra.toml and flags, validated into RaceOptions; typo suggestions. */
export { ConfigError } from './config-error.js';
export {
  buildRaceOptions,
  CONFIG_DEFAULTS,
  displayPath,
  findRepoRoot,
  loadConfig,
  planForDoctor,
} from './config.js';
export type { RaceFlags } from './config.js';
export { closest } from './did-you-mean.js';
