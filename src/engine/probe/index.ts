/** Probing agent CLIs: finding each binary, running its adapter's probe, and caching the result. */
export { createProbeRunner, probeAgents } from './probe.js';
