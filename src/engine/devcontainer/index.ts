/** Dev containers: the repository's devcontainer.json built into the agents' image (`[container] devcontainer`). */
export { buildDevcontainer, DEVCONTAINER_INSTALL } from './build.js';
export type { DevcontainerBuild } from './build.js';
export { copiedSources, devcontainerImageName, findDevcontainer, readDevcontainer } from './definition.js';
export type { DevcontainerDefinition } from './definition.js';
export { DEVCONTAINER_LOG, IMAGE_STAGE, imageBuilt, withDevcontainerImage } from './image.js';
export type { DevcontainerStepContext, EnsureImage } from './image.js';
export { parseJsonc } from './jsonc.js';
