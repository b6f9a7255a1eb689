/** Probing agent CLIs: finding each binary, running its adapter's probe, and caching the result. */
export { probeAgents, withImageCli } from './probe.js';
export { isPathLike, resolveCommandSync } from './binaries.js';
export { pricingModel } from './pricing-model.js';
export { probeAgentsInImage, probeClisInImage } from './in-image.js';
