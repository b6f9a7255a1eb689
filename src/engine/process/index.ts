/** Processes: spawning an agent under supervision, the registry of its process group, the process table (/proc or ps), line splitting, and the watchdog. */
export { DEFAULT_MAX_LINE_BYTES, LineSplitter, TailBuffer } from './line-splitter.js';
export {
  RUN_ID_ENV,
  groupMembers,
  pidAlive,
  processInfo,
  processStillRuns,
  signalGroup,
  signallableProcessesOfRun,
} from './process-table.js';
export { createProcessRegistry, PROBE_OWNER } from './process-registry.js';
export type { HandledSignal, ProcessRegistry } from './process-registry.js';
export { spawnSupervised } from './supervisor.js';
export {
  agentEnvironment,
  commandEnvironment,
  isCredentialVariable,
  isGeneralVariable,
  passedVariables,
} from './agent-env.js';
export type { CommandEnvironment } from './agent-env.js';
export { runLimited } from './limited-run.js';
export { createLimiter } from './limiter.js';
export type { Limiter } from './limiter.js';
export type { LimitedRun, StartProcess } from './limited-run.js';
export { prewrapSandboxedCommand, refusalKey } from './sandboxed.js';
export { startChild } from './child.js';
export { activeContainment, describeContainment, mountingFlags, prepareContainment } from './containment.js';
export type { Containment } from './containment.js';
export type { ProcessExit, SpawnSpec, Supervised, SupervisorCallbacks } from './supervisor.js';
export { startWatchdog } from './watchdog.js';
export { describeProcessGuards, guardsComplete, processGuards } from './process-guards.js';
export type { ProcessGuards } from './process-guards.js';
export type { Watchdog } from './watchdog.js';
export { CONTAINER_LABELS, ENVIRONMENT_ENGINE, isEngineHost } from './container-labels.js';
export { runInteractive } from './interactive.js';
export { SHELL, shellScript } from './containment.js';
export {
  copyShare,
  mountProgram,
  overlayOptions,
  prepareOverlay,
  removeShareLayers,
  SHARE_DIR,
  shareLayersDir,
  unmountable,
} from './share-mount.js';
export type { ShareMount } from './share-mount.js';
export { dockerContextHost, dockerContextName, environmentEngineAddress } from './docker-context.js';
export {
  dockerAddress,
  forwardedSocket,
  openSshConnection,
  sshConnectionNote,
  sshTarget,
} from './ssh-connection.js';
