/** Dev containers: the repository's `.devcontainer` built into the agents' image (`[container] devcontainer`). */
export { buildDevcontainer, DEVCONTAINER_INSTALL, devcontainerImageName } from './build.js';
export type { DevcontainerBuild } from './build.js';
