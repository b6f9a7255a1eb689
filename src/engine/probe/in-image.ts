/**
 * `hydra doctor` for agents in containers: each adapter's own probe (`--version`, `--help`), run
 * inside the image the race would use (`docker run --rm <image> <binary> ...`), so doctor says
 * which CLIs the image lacks and how to add them, before a race finds out. The probe machinery is
 * the host's (runner.ts: a time limit, its own process group), with `docker run` as the command
 * prefix. Doctor and a race share one cache, keyed by the image's id (an image tag can change
 * under the same name; its id cannot): a race's probe of the image on each host it places agents
 * on (`probeClisInImage`), and doctor's, so a second look at the same image costs no container.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { adapterOf, binaryCandidates } from '../../adapters/registry.js';
import type { AdapterId, Capabilities, ProbeResult, ProbeRunner } from '../../adapters/types.js';
import { dockerAddress, environmentEngineAddress } from '../process/index.js';
import type { AgentPlan } from '../agent-plan.js';
import type { AgentProbeReport } from '../probe-types.js';
import { createProbeRunner } from './runner.js';

export interface ImageProbeOptions {
  image: string;
  /** The engine (`--host`); absent or `default`: the environment's. */
  host?: string;
  allowExperimental: boolean;
  env?: NodeJS.ProcessEnv;
  /** Runs the docker commands (tests); by default the probe runner. */
  run?: ProbeRunner;
  /** The race's labels on its probe containers (the watchdog and `hydra clean` find them by these). */
  labels?: Record<string, string>;
  /**
   * The race's cache of CLIs probed in images (`<dir>/image-capabilities.json`) and the image's id
   * on the engine: a CLI probed there before is not probed again (doctor, as a race); absent: none.
   */
  cache?: { dir: string; imageId: string };
}

/** What a container start adds to a probe's time limit (vfs copies the image on every start). */
const CONTAINER_START_MS = 30_000;

/** docker's way of saying the command is not in the image (exit 127, or the runtime's message). */
const notInImage = (output: { exitCode: number | null; stderr: string }): boolean =>
  output.exitCode === 127 ||
  /executable file not found|no such file or directory/i.test(
    output.stderr.split('\n').slice(0, 3).join('\n'),
  );

/**
 * `--host=<host>` unless it is the environment's engine; an `ssh://` engine's forwarded socket once
 * hydra's one connection to it is open (process/ssh-connection.ts), DOCKER_HOST's too.
 */
async function hostArgsOf(host: string | undefined, env: NodeJS.ProcessEnv): Promise<string[]> {
  if (host !== undefined && host !== 'default') return [`--host=${await dockerAddress(host, env)}`];
  const fromEnv = environmentEngineAddress(env);
  if (fromEnv === undefined) return [];
  const address = await dockerAddress(fromEnv, env);
  return address === fromEnv ? [] : [`--host=${address}`];
}

/** `--label k=v` for each label. */
const labelArgs = (labels: Record<string, string> = {}): string[] =>
  Object.entries(labels).flatMap(([key, value]) => ['--label', `${key}=${value}`]);

/** A probe runner that runs each command in a fresh container of the image. */
const imageProbeRunner = (options: ImageProbeOptions): ProbeRunner => {
  const run = options.run ?? createProbeRunner(options.env ?? process.env);
  const host = options.host;
  const env = options.env ?? process.env;
  // HYDRA_DOCKER as the container runner reads it (container/docker.ts).
  const dockerCli = env['HYDRA_DOCKER'] ?? 'docker';
  return async (file, args, limits) =>
    run(
      dockerCli,
      [
        ...(await hostArgsOf(host, env)),
        'run',
        '--rm',
        '--init',
        '--network',
        'none',
        ...labelArgs(options.labels),
        options.image,
        file,
        ...args,
      ],
      {
        ...limits,
        timeoutMs: limits.timeoutMs + CONTAINER_START_MS,
      },
    );
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
async function probeInImage(
  plan: AgentPlan,
  options: ImageProbeOptions,
  cached: ImageCache['entries'],
): Promise<AgentProbeReport> {
  const adapter = adapterOf(plan.adapterId);
  const report = reportOf(plan);
  if (plan.enabled === false) return { ...report, status: 'disabled' };
  if (adapter.tier === 'experimental' && !options.allowExperimental)
    return { ...report, status: 'needs-opt-in' };
  const candidates = binaryCandidates(adapter, plan.binary === '' ? undefined : plan.binary);
  for (const candidate of candidates) {
    const known =
      options.cache === undefined
        ? undefined
        : cached[cacheKey(options.cache.imageId, plan.adapterId, candidate)];
    if (known !== undefined)
      return {
        ...report,
        status: 'ready',
        binary: candidate,
        version: known.version,
        capabilities: known,
        warnings: [...known.warnings],
        cached: true,
      };
    const result = await probeOneInImage(plan.adapterId, candidate, imageProbeRunner(options));
    if (result === null) continue;
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

/** One binary's probe in the image (`image` runs its commands there): null when it is not there. */
async function probeOneInImage(
  adapterId: AdapterId,
  binary: string,
  image: ProbeRunner,
): Promise<ProbeResult | null> {
  // Whether the name is in the image at all: the probe's own first call tells, once a container.
  let absent = false;
  const run: ProbeRunner = async (file, args, limits) => {
    const output = await image(file, args, limits);
    if (notInImage(output)) absent = true;
    return output;
  };
  const result = await adapterOf(adapterId)
    .probe(binary, run)
    .catch(() => null);
  return absent ? null : result;
}

/** The race's cache of CLIs probed in images: `<cacheDir>/image-capabilities.json`, keyed by image id. */
const IMAGE_CACHE_FILE = 'image-capabilities.json';
/** Bump when adapters derive capabilities differently (as the host's cache, cache.ts). */
const IMAGE_CACHE_VERSION = 1;

interface ImageCache {
  version: number;
  entries: Record<string, Capabilities>;
}

const readImageCache = async (cacheDir: string): Promise<ImageCache> => {
  try {
    const parsed = JSON.parse(await readFile(path.join(cacheDir, IMAGE_CACHE_FILE), 'utf8')) as ImageCache;
    if (parsed.version === IMAGE_CACHE_VERSION && typeof parsed.entries === 'object') return parsed;
  } catch {
    // Missing or corrupt: probed again.
  }
  return { version: IMAGE_CACHE_VERSION, entries: {} };
};

/** A `docker exec` takes this much longer than the command itself on a busy engine. */
const EXEC_MARGIN_MS = 15_000;

/**
 * Runs `use` with a probe runner whose commands run by `docker exec` in one container of the image,
 * kept alive (`sleep`) meanwhile and removed after: one container start for all of a race's probes
 * on that image (on a `vfs` engine each start copies the image). An image without `sleep` gets a
 * container per command, as doctor's. The containers carry the race's labels: should hydra be
 * killed meanwhile, its watchdog and `hydra clean` remove them (and the kept-alive one ends itself
 * after two minutes).
 */
async function withProbeContainer<T>(
  options: { image: string; host: string; env?: NodeJS.ProcessEnv; labels?: Record<string, string> },
  use: (run: ProbeRunner) => Promise<T>,
): Promise<T> {
  const env = options.env ?? process.env;
  const run = createProbeRunner(env);
  const dockerCli = env['HYDRA_DOCKER'] ?? 'docker';
  const hostArgs = await hostArgsOf(options.host, env);
  const name = `hydra-probe-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  // No `--init`: with it, an image without `sleep` starts (the init does) and ends at once, and
  // every `docker exec` then fails; without, its start fails and the probe takes a container a command.
  const started = await run(
    dockerCli,
    [
      ...hostArgs,
      'run',
      '-d',
      '--rm',
      '--network',
      'none',
      '--name',
      name,
      ...labelArgs(options.labels),
      '--entrypoint',
      'sleep',
      options.image,
      '120',
    ],
    { timeoutMs: CONTAINER_START_MS },
  );
  if (started.exitCode !== 0) {
    await run(dockerCli, [...hostArgs, 'rm', '-f', name], { timeoutMs: CONTAINER_START_MS });
    return use(imageProbeRunner({ ...options, allowExperimental: true }));
  }
  try {
    return await use((file, args, limits) =>
      run(dockerCli, [...hostArgs, 'exec', name, file, ...args], {
        ...limits,
        timeoutMs: limits.timeoutMs + EXEC_MARGIN_MS,
      }),
    );
  } finally {
    await run(dockerCli, [...hostArgs, 'rm', '-f', name], { timeoutMs: CONTAINER_START_MS });
  }
}

export interface ImageCliRequest {
  /** The engine the agent goes to, and the id its image has there. */
  host: string;
  imageId: string;
  adapterId: AdapterId;
  /** The name (or path) the container will run. */
  binary: string;
}

/**
 * Each CLI probed in the image on its host (the image's id there from `docker image inspect`): its
 * capabilities, `missing` where it is not in the image, `unusable` when it is there but its probe
 * failed (too old, no stream-JSON...). One probe per image id, CLI and binary, whatever the hosts;
 * successes are cached by image id in `cacheDir` (null: not cached); what is missing is asked again
 * next time (the image is rebuilt with it).
 */
export async function probeClisInImage(
  requests: readonly ImageCliRequest[],
  options: {
    image: string;
    cacheDir: string | null;
    env?: NodeJS.ProcessEnv;
    /** The run's labels, on the probe's containers (killed hydra: the watchdog and `hydra clean` remove them). */
    labels?: Record<string, string>;
  },
): Promise<
  Array<{ capabilities: Capabilities } | { missing: true } | { unusable: ProbeResult & { ok: false } }>
> {
  const cache =
    options.cacheDir === null
      ? { version: IMAGE_CACHE_VERSION, entries: {} }
      : await readImageCache(options.cacheDir);
  const keyOf = (request: ImageCliRequest): string =>
    cacheKey(request.imageId, request.adapterId, request.binary);
  let added = false;
  // What is not cached, probed in one container per image id (on the first host that has it).
  const due = requests.filter((request) => cache.entries[keyOf(request)] === undefined);
  const probes = new Map<string, Promise<ProbeResult | null>>();
  await Promise.all(
    [...new Set(due.map((request) => request.imageId))].map((imageId) => {
      const ofImage = due.filter((request) => request.imageId === imageId);
      const host = ofImage[0]?.host ?? 'default';
      return withProbeContainer(
        {
          image: options.image,
          host,
          ...(options.env === undefined ? {} : { env: options.env }),
          ...(options.labels === undefined ? {} : { labels: options.labels }),
        },
        async (run) => {
          for (const request of ofImage) {
            const key = keyOf(request);
            if (!probes.has(key)) probes.set(key, probeOneInImage(request.adapterId, request.binary, run));
          }
          await Promise.all(probes.values());
        },
      );
    }),
  );
  const results = await Promise.all(
    requests.map(async (request) => {
      const key = keyOf(request);
      const cached = cache.entries[key];
      if (cached !== undefined) return { capabilities: cached };
      const result = (await probes.get(key)) ?? null;
      if (result === null) return { missing: true as const };
      if (!result.ok) return { unusable: result };
      cache.entries[key] = result.capabilities;
      added = true;
      return { capabilities: result.capabilities };
    }),
  );
  if (added && options.cacheDir !== null) await writeImageCache(options.cacheDir, cache);
  return results;
}

/** The cache's key of one CLI (by name or path) in one image id. */
const cacheKey = (imageId: string, adapterId: AdapterId, binary: string): string =>
  `${imageId} ${adapterId} ${binary}`;

/** Atomic: a race reading it meanwhile sees the old file or the new one. */
async function writeImageCache(dir: string, cache: ImageCache): Promise<void> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, IMAGE_CACHE_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(cache));
  await rename(temp, file);
}

/**
 * Every planned agent's CLI probed inside the image, in parallel; with `cache`, one probed there
 * before (by doctor or a race) is read from the race's cache, and a new success is added to it.
 */
export async function probeAgentsInImage(
  plans: AgentPlan[],
  options: ImageProbeOptions,
): Promise<AgentProbeReport[]> {
  const cache = options.cache === undefined ? null : await readImageCache(options.cache.dir);
  const reports = await Promise.all(plans.map((plan) => probeInImage(plan, options, cache?.entries ?? {})));
  if (cache === null || options.cache === undefined) return reports;
  const { imageId, dir } = options.cache;
  const fresh = reports.filter((report) => !report.cached && report.status === 'ready');
  for (const report of fresh)
    if (report.capabilities !== null && report.binary !== null)
      cache.entries[cacheKey(imageId, report.adapterId, report.binary)] = report.capabilities;
  if (fresh.length > 0) await writeImageCache(dir, cache);
  return reports;
}
