/** Agents in containers on a Docker-compatible engine, local or remote (docs/containers.md; ARCHITECTURE.md "Runners"). */
export { DEFAULT_CONTAINER, DEFAULT_HOST, RUNNER_KINDS } from './settings.js';
export type { ContainerSettings, RunnerKind } from './settings.js';
export type { ContainerLaunch } from './types.js';
export { CONTAINER_HOME } from './types.js';
export { docker, dockerBinary, dockerOk, hostLabel } from './docker.js';
export type { DockerResult } from './docker.js';
export { isLocalEngine, REMOTE_ENV } from './hosts.js';
export {
  containerLabels,
  containerName,
  labelFilters,
  LABEL_AGENT,
  LABEL_MANAGED,
  LABEL_REPO,
  LABEL_RUN,
  volumeName,
} from './labels.js';
export { passedEnvNames } from './env.js';
export { placeContainers } from './placement.js';
export { leaveRoom, roomDue, waitForRoom } from './slots.js';
export type { PlacementSettings } from './placement.js';
export { startContainer } from './container-process.js';
export { blameSilentEngine } from './silent-engine.js';
export { discardPrecreated, precreateContainer } from './precreate.js';
export { removeContainers, removeDevcontainerImages } from './clean.js';
export { checkEngine, engineFacts } from './engine-check.js';
export type { EngineFacts, EngineProblem } from './engine-check.js';
export { containerRunner, localRunner } from './runner.js';
export type { AgentRunner } from './runner.js';
export { baselineContainer, checksContainer, containerStarter, setupContainer } from './exec.js';
export type { CommandContainer } from './exec.js';
export { copiedInto, copyFilesIn, makeRemoteCheckout, rememberCopied } from './remote-checkout.js';
export type { RemoteCheckout } from './remote-checkout.js';
