/**
 * Which engine each container agent runs on: the hosts of `[container] hosts` that answer, least
 * busy first (the hydra containers running there, from any race, plus the ones placed now). Past
 * `max_agents` nothing is refused: the agents are still spread over the hosts, and each waits on
 * its host for room before it starts (slots.ts). A follow-up stays where its agent ran (its volumes
 * are there). The image must be on every host used, and each agent's CLI in it (probed there, once
 * per image id: probe/in-image.ts): a missing image, a missing CLI or an engine that cannot be
 * reached is an error naming the host (and the image) before any agent starts, never a hang.
 */
import { adapterOf } from '../../adapters/registry.js';
import type { AdapterId, Capabilities } from '../../adapters/types.js';
import { EngineError } from '../errors.js';
import { probeClisInImage } from '../probe/index.js';
import type { AgentName } from '../agent-name.js';
import { docker, hostLabel } from './docker.js';
import { isLocalEngine } from './hosts.js';
import { roundTrip } from './round-trip.js';
import { noteRunning, runningNames } from './slots.js';
import type { ContainerLaunch } from './types.js';

interface HostState {
  host: string;
  /** Hydra containers running there; null when it did not answer. */
  running: number | null;
  problem: EngineError | null;
}

/** How many hydra containers run on `host`, or why it could not be asked. */
async function hostState(host: string): Promise<HostState> {
  try {
    const names = await runningNames(host);
    if (names === null) {
      return {
        host,
        running: null,
        problem: new EngineError({
          kind: 'SpawnFailed',
          message: `The container engine at ${hostLabel(host)} refused to list its containers.`,
          hint: `Check the engine with \`docker info\` (DOCKER_HOST=${host}).`,
        }),
      };
    }
    // Its agents that wait for room start from this count (slots.ts).
    noteRunning(host, names);
    return { host, running: names.length, problem: null };
  } catch (error) {
    return {
      host,
      running: null,
      problem:
        error instanceof EngineError
          ? error
          : new EngineError({
              kind: 'SpawnFailed',
              message: String(error),
              hint: 'Check the engine with `docker info`.',
            }),
    };
  }
}

/** The image's id on `host`, or the error that says how to get it there. */
export async function checkImage(host: string, image: string): Promise<string> {
  const result = await docker(host, ['image', 'inspect', '--format', '{{.Id}}', image], {
    timeoutMs: 20_000,
  });
  if (result.exitCode === 0) return result.stdout.trim();
  throw new EngineError({
    kind: 'SpawnFailed',
    message: `The image ${image} is not on the container engine at ${hostLabel(host)}.`,
    hint: `Build it there (\`docker build -t ${image} .\`, or [container] devcontainer = true) or pull it (\`docker pull ${image}\`); [container] image in hydra.toml names it.`,
  });
}

export interface PlacementSettings {
  hosts: readonly string[];
  maxAgents: number | null;
  /** Makes the image be on a host that gets agents (a dev container's build); default: it must be there. */
  ensureImage?: (host: string, image: string) => Promise<void>;
}

export interface Placed<L> {
  launches: L[];
  /** Hosts left out (they did not answer) while others took the agents. */
  warnings: string[];
  /** Each probed agent's CLI as found in the image on its host: what its command is built for. */
  capabilities: Partial<Record<AgentName, Capabilities>>;
}

/** What a launch may say of its CLI, so placement probes it in the image (`cli`). */
export interface Placeable {
  agent: AgentName;
  container?: ContainerLaunch | null;
  /** The adapter and the binary its container runs (a name on the image's PATH, or a path in it). */
  cli?: { adapterId: AdapterId; binary: string };
}

/** Where the image probes are cached (the race's probe cache); absent: the CLIs are not probed. */
export interface ProbeInImage {
  cacheDir: string | null;
  /** The race's labels on the probe's containers, and the watchdog told their host (in-image.ts). */
  labels?: Record<string, string>;
  watchHost?: (host: string) => void;
}

const noEngine = (): EngineError =>
  new EngineError({
    kind: 'SpawnFailed',
    message: 'No container engine answered.',
    hint: 'Check [container] hosts.',
  });

/**
 * Gives each container launch its host (and whether that engine is remote, and the host's
 * `max_agents`). `stay` names the host an agent already ran on (a follow-up). Throws when no host
 * answers, when the image is missing on a host an agent goes to, or (with `probe`) when an agent's
 * CLI is not in the image there.
 */
export async function placeContainers<L extends Placeable>(
  launches: readonly L[],
  settings: PlacementSettings,
  stay: Readonly<Record<AgentName, string | undefined>> = {},
  probe?: ProbeInImage,
): Promise<Placed<L>> {
  const wanted = launches.filter((launch) => launch.container !== undefined && launch.container !== null);
  if (wanted.length === 0) return { launches: [...launches], warnings: [], capabilities: {} };
  const hosts = [
    ...new Set([
      ...settings.hosts,
      ...Object.values(stay).flatMap((host) => (host === undefined ? [] : [host])),
    ]),
  ];
  const image = wanted[0]?.container?.image ?? '';
  // The image is looked for on every host while they are asked how busy they are (one docker call
  // less in a row); what a host not given agents says of it is not read. A dev container's image is
  // looked for after it was built (below).
  const looked = new Map(
    settings.ensureImage === undefined
      ? hosts.map((host) => {
          const id = checkImage(host, image);
          id.catch(() => undefined);
          return [host, id] as const;
        })
      : [],
  );
  const states = await Promise.all(hosts.map(hostState));
  const up = states.filter((state) => state.running !== null);
  const down = states.filter((state) => state.running === null);
  const load = new Map(up.map((state) => [state.host, state.running ?? 0]));
  const chosen = new Map<AgentName, string>();
  for (const launch of wanted) {
    const kept = stay[launch.agent];
    if (kept !== undefined) {
      const problem = down.find((state) => state.host === kept)?.problem;
      if (problem) throw problem;
      chosen.set(launch.agent, kept);
      load.set(kept, (load.get(kept) ?? 0) + 1);
      continue;
    }
    if (up.length === 0) throw down[0]?.problem ?? noEngine();
    // Least busy first, full or not: past max_agents an agent waits on its host (slots.ts).
    const best = [...load.entries()].sort(
      (a, b) => a[1] - b[1] || hosts.indexOf(a[0]) - hosts.indexOf(b[0]),
    )[0];
    if (best === undefined) throw noEngine();
    chosen.set(launch.agent, best[0]);
    load.set(best[0], best[1] + 1);
  }
  const used = [...new Set(chosen.values())];
  // A dev container's image is built where it is missing first (src/engine/devcontainer); any other must be there.
  if (settings.ensureImage !== undefined)
    await Promise.all(used.map((host) => settings.ensureImage?.(host, image)));
  const ids = new Map(
    await Promise.all(
      used.map(async (host) => [host, await (looked.get(host) ?? checkImage(host, image))] as const),
    ),
  );
  const capabilities = probe === undefined ? {} : await probeClis(wanted, chosen, ids, image, probe);
  const placed = launches.map((launch) => {
    const host = chosen.get(launch.agent);
    if (host === undefined || !launch.container) return launch;
    return {
      ...launch,
      container: { ...launch.container, host, remote: !isLocalEngine(host), maxAgents: settings.maxAgents },
    };
  });
  const warnings = down.map((state) =>
    `The container engine at ${hostLabel(state.host)} did not answer; its share of the agents ran on the other hosts. ${state.problem?.message ?? ''}`.trim(),
  );
  return { launches: placed, warnings, capabilities };
}

/**
 * Each agent's CLI probed in the image on its host (cached by image id): its capabilities, or the
 * error naming the image, the CLI and the Dockerfile line that adds it.
 */
async function probeClis(
  wanted: readonly Placeable[],
  chosen: ReadonlyMap<AgentName, string>,
  ids: ReadonlyMap<string, string>,
  image: string,
  probe: ProbeInImage,
): Promise<Partial<Record<AgentName, Capabilities>>> {
  const asked = wanted.flatMap((launch) => {
    const host = chosen.get(launch.agent);
    if (launch.cli === undefined || host === undefined) return [];
    return [{ agent: launch.agent, host, imageId: ids.get(host) ?? image, ...launch.cli }];
  });
  for (const request of asked) probe.watchHost?.(request.host);
  const results = await probeClisInImage(asked, {
    image,
    cacheDir: probe.cacheDir,
    ...(probe.labels === undefined ? {} : { labels: probe.labels }),
  });
  // A remote engine whose connection loses what containers print reads as a CLI with no version:
  // say the engine's problem instead (round-trip.ts), never "reinstall the CLI".
  const failedOn = [
    ...new Set(
      asked.flatMap((request, index) => {
        const result = results[index];
        return isLocalEngine(request.host) || (result !== undefined && 'capabilities' in result)
          ? []
          : [request.host];
      }),
    ),
  ];
  for (const host of failedOn) {
    const problem = await roundTrip(host, image);
    if (problem !== null)
      throw new EngineError({ kind: 'SpawnFailed', message: problem.message, hint: problem.hint });
  }
  const capabilities: Partial<Record<AgentName, Capabilities>> = {};
  asked.forEach((request, index) => {
    const result = results[index];
    const adapter = adapterOf(request.adapterId);
    const where = `the image ${image} on ${hostLabel(request.host)}`;
    if (result === undefined || 'missing' in result) {
      throw new EngineError({
        kind: 'SpawnFailed',
        message: `${adapter.displayName} (\`${request.binary}\`) is not in ${where}, so ${request.agent} cannot run in a container there.`,
        hint: `Add it to the image, e.g. in its Dockerfile: RUN ${adapter.installHint} (docs/containers-ops.md shows one for a dev container; \`hydra doctor\` probes the image), or run ${request.agent} on this machine: agents.${request.agent}.runner = "local".`,
      });
    }
    if ('unusable' in result) {
      const info = result.unusable.error.toInfo();
      throw new EngineError({
        kind: 'SpawnFailed',
        message: `${adapter.displayName} (\`${request.binary}\`) in ${where} cannot be used: ${info.message}`,
        hint: `${info.hint} Rebuild the image with it (e.g. RUN ${adapter.installHint}).`,
      });
    }
    capabilities[request.agent] = result.capabilities;
  });
  return capabilities;
}
