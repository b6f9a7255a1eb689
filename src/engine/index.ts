/**
 * The engine's entry: the only module the CLI and the dashboard import from the engine. Each folder
 * beside it has an index of its own (see ARCHITECTURE.md for what lives where).
 */
export { reopenFromRecord, ROUND_STAGE, startRace } from './race/index.js';
export { cleanRuns, commitsBrought, mergeRun, openWorktree, protectedFilesNote } from './results/index.js';
export { lockRun } from './locks/index.js';
export { AUTO_AGENTS, chooseAgents, ledgerRepos, readLedger, rememberRepository } from './ledger/index.js';
export type { AgentLedger, AutoChoice, Ledger } from './ledger/index.js';
export type { HeldLock } from './locks/index.js';
export {
  defaultCacheDir,
  eventJson,
  LAST_RUN,
  listRuns,
  newRunId,
  readRun,
  resolveRunName,
} from './records/index.js';
export { blocksRace, ensureExcluded, existingBranches, HYDRA_EXCLUDES, inspectRepo } from './git/index.js';
export { probeAgents, probeAgentsInImage } from './probe/index.js';
export {
  activeContainment,
  describeContainment,
  describeProcessGuards,
  guardsComplete,
  processGuards,
} from './process/index.js';
export type { Containment, ProcessGuards } from './process/index.js';
export { autoCheckState, describeAutoCheck, resolveAutoChecks } from './config/index.js';
export type { AutoCheckState } from './config/index.js';
export {
  DEFAULT_SCORE_WEIGHTS,
  DETECTION_SOURCES,
  contractOf,
  detectTestCommand,
  meritOf,
} from './checks/index.js';
export { describeSandbox, prepareSandbox } from './sandbox/index.js';
export type { SandboxSettings, SandboxSupport } from './sandbox/index.js';
export {
  buildRaceOptions,
  checkConfiguredBinaries,
  closest,
  CONFIG_DEFAULTS,
  configWarnings,
  ConfigError,
  displayPath,
  EXECUTING_KEYS,
  findRepoRoot,
  linkedOutside,
  listTrusted,
  loadConfig,
  MAX_REPEAT,
  parseConfigText,
  planForDoctor,
  revokeTrust,
  sandboxOf,
  trustFile,
  userConfigDirOf,
  userConfigPath,
} from './config/index.js';
export type { RaceFlags } from './config/index.js';
export { raceSetup, setupOf, trustCursorSetup } from './config/index.js';
export { CURSOR_SETUP_FILE } from './setup/index.js';
export { EngineError } from './errors.js';
// The engine's public shapes, each from the folder that owns it (ARCHITECTURE.md, "The engine's folders").
export type { AgentName } from './agent-name.js';
export type { AgentPlan } from './agent-plan.js';
export type {
  CheckRun,
  CheckSpec,
  CheckStatus,
  CheckSummary,
  ContractSummary,
  NewTestRun,
  NewTestStatus,
  NewTestsSummary,
  ScoreSummary,
} from './check-types.js';
export type { AdapterStatus, AgentProbeReport } from './probe-types.js';
export type { BroughtCommit, DiffSummary, FileStat, RepoInfo, SecretFound } from './git/index.js';
export type {
  AgentEventRecord,
  AgentRound,
  AgentSummary,
  JudgeSummary,
  MergeResult,
  RaceSummary,
  RunListEntry,
  RunRecord,
} from './records/index.js';
export type { AgentSetup, AgentStatus } from './agent/index.js';
export type { CleanReport, MergeOptions } from './results/index.js';
export type { RaceOptions, ReopenRun, RoundRequest } from './config/index.js';
export type {
  AgentSnapshot,
  BaselineSnapshot,
  RaceHandle,
  RacePhase,
  RaceSnapshot,
  ShellRequest,
  ShellResult,
} from './race/index.js';
export {
  copyIncludedFiles,
  describeShareSupport,
  ignoredNotCopied,
  shareSupport,
  WORKTREE_INCLUDE,
} from './setup/index.js';
export {
  buildDevcontainer,
  DEVCONTAINER_INSTALL,
  DEVCONTAINER_LOG,
  devcontainerImageName,
  findDevcontainer,
  IMAGE_STAGE,
} from './devcontainer/index.js';
export { devcontainerStatus, trustDevcontainer } from './config/index.js';
export type { DevcontainerStatus } from './config/index.js';
export { checkEngine, checkImage, engineFacts, removeDevcontainerImages } from './container/index.js';
export type { EngineFacts, EngineProblem } from './container/index.js';
