/**
 * `hydra doctor` for agents in containers: each adapter's own probe (`--version`, `--help`), run
 * inside the image the race would use (`docker run --rm <image> <binary> ...`), so doctor says
 * which CLIs the image lacks and how to add them, before a race finds out. The probe machinery is
 * the host's (runner.ts: a time limit, its own process group), with `docker run` as the command
 * prefix. Nothing is cached: an image tag can change under the same name.
 */
import { adapterOf, binaryCandidates } from '../../adapters/registry.js';
import type { ProbeRunner } from '../../adapters/types.js';
import type { AgentPlan, AgentProbeReport } from '../types.js';
import { createProbeRunner } from './runner.js';

export interface ImageProbeOptions {
  image: string;
  /** The engine (`--host`); absent or `default`: the environment's. */
  host?: string;
  allowExperimental: boolean;
  env?: NodeJS.ProcessEnv;
  /** Runs the docker commands (tests); by default the probe runner. */
  run?: ProbeRunner;
}

/** What a container start adds to a probe's time limit (vfs copies the image on every start). */
const CONTAINER_START_MS = 30_000;

/** docker's way of saying the command is not in the image (exit 127, or the runtime's message). */
const notInImage = (output: { exitCode: number | null; stderr: string }): boolean =>
  output.exitCode === 127 ||
  /executable file not found|no such file or directory/i.test(
    output.stderr.split('\n').slice(0, 3).join('\n'),
  );

/** A probe runner that runs each command in a fresh container of the image. */
export const imageProbeRunner = (options: ImageProbeOptions): ProbeRunner => {
  const run = options.run ?? createProbeRunner(options.env ?? process.env);
  const hostArgs = options.host === undefined || options.host === 'default' ? [] : [`--host=${options.host}`];
  return (file, args, limits) =>
    run('docker', [...hostArgs, 'run', '--rm', '--init', '--network', 'none', options.image, file, ...args], {
      ...limits,
      timeoutMs: limits.timeoutMs + CONTAINER_START_MS,
    });
};

const reportOf = (plan: AgentPlan): AgentProbeReport => {
  const adapter = adapterOf(plan.adapterId);
  return {
    agent: plan.name ?? plan.adapterId,
    adapterId: adapter.id,
    displayName: adapter.displayName,
    tier: adapter.tier,
    status: 'missing',
    binary: null,
    version: null,
    capabilities: null,
    command: null,
    warnings: [],
    error: null,
    cached: false,
  };
};

/** Probes one agent's CLI in the image: the first candidate name (or the configured binary) found there. */
async function probeInImage(plan: AgentPlan, options: ImageProbeOptions): Promise<AgentProbeReport> {
  const adapter = adapterOf(plan.adapterId);
  const report = reportOf(plan);
  if (plan.enabled === false) return { ...report, status: 'disabled' };
  if (adapter.tier === 'experimental' && !options.allowExperimental)
    return { ...report, status: 'needs-opt-in' };
  const candidates = binaryCandidates(adapter, plan.binary === '' ? undefined : plan.binary);
  const image = imageProbeRunner(options);
  for (const candidate of candidates) {
    // Whether the name is in the image at all: the probe's own first call tells, once a container.
    let absent = false;
    const run: ProbeRunner = async (file, args, limits) => {
      const output = await image(file, args, limits);
      if (notInImage(output)) absent = true;
      return output;
    };
    const result = await adapter.probe(candidate, run).catch(() => null);
    if (absent || result === null) continue;
    if (result.ok) {
      return {
        ...report,
        status: 'ready',
        binary: candidate,
        version: result.capabilities.version,
        capabilities: result.capabilities,
        warnings: [...result.capabilities.warnings],
      };
    }
    return { ...report, status: 'unsupported', binary: candidate, error: result.error.toInfo() };
  }
  return {
    ...report,
    error: {
      kind: 'BinaryMissing',
      message: `${adapter.displayName} is not in the image ${options.image} (tried ${candidates.join(', ')} on its PATH)`,
      hint: `Add it to the image, e.g. in its Dockerfile: RUN ${adapter.installHint} (docs/containers-ops.md shows one for a dev container)`,
    },
  };
}

/** Every planned agent's CLI probed inside the image, in parallel. */
export const probeAgentsInImage = (
  plans: AgentPlan[],
  options: ImageProbeOptions,
): Promise<AgentProbeReport[]> => Promise.all(plans.map((plan) => probeInImage(plan, options)));
