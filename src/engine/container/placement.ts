/**
 * Which engine each container agent runs on: the hosts of `[container] hosts` that answer, least
 * busy first (the hydra containers running there, from any race, plus the ones placed now), none
 * past `max_agents`. A follow-up stays where its agent ran (its volumes are there). The image must
 * be on every host used: a missing image or an engine that cannot be reached is an error naming
 * the host (and the image) before any agent starts, never a hang.
 */
import { EngineError } from '../errors.js';
import type { AgentName } from '../types.js';
import { docker, hostLabel } from './docker.js';
import { isLocalEngine } from './hosts.js';
import { LABEL_MANAGED } from './labels.js';
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
    const result = await docker(host, ['ps', '-q', '--filter', `label=${LABEL_MANAGED}=1`], {
      timeoutMs: 20_000,
    });
    if (result.exitCode !== 0) {
      return {
        host,
        running: null,
        problem: new EngineError({
          kind: 'SpawnFailed',
          message: `The container engine at ${hostLabel(host)} refused to list its containers: ${result.stderr.trim()}`,
          hint: `Check the engine with \`docker info\` (DOCKER_HOST=${host}).`,
        }),
      };
    }
    return {
      host,
      running: result.stdout.split('\n').filter((line) => line.trim() !== '').length,
      problem: null,
    };
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

/** The image on `host`, or the error that says how to get it there. */
async function checkImage(host: string, image: string): Promise<void> {
  const result = await docker(host, ['image', 'inspect', '--format', '{{.Id}}', image], {
    timeoutMs: 20_000,
  });
  if (result.exitCode === 0) return;
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
}

/**
 * Gives each container launch its host (and whether that engine is remote). `stay` names the host
 * an agent already ran on (a follow-up). Throws when no host answers, when every host is full, or
 * when the image is missing on a host an agent goes to.
 */
export async function placeContainers<L extends { agent: AgentName; container?: ContainerLaunch | null }>(
  launches: readonly L[],
  settings: PlacementSettings,
  stay: Readonly<Record<AgentName, string | undefined>> = {},
): Promise<Placed<L>> {
  const wanted = launches.filter((launch) => launch.container !== undefined && launch.container !== null);
  if (wanted.length === 0) return { launches: [...launches], warnings: [] };
  const hosts = [
    ...new Set([
      ...settings.hosts,
      ...Object.values(stay).flatMap((host) => (host === undefined ? [] : [host])),
    ]),
  ];
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
    if (up.length === 0)
      throw (
        down[0]?.problem ??
        new EngineError({
          kind: 'SpawnFailed',
          message: 'No container engine answered.',
          hint: 'Check [container] hosts.',
        })
      );
    const free = [...load.entries()].filter(
      ([, count]) => settings.maxAgents === null || count < settings.maxAgents,
    );
    free.sort((a, b) => a[1] - b[1] || hosts.indexOf(a[0]) - hosts.indexOf(b[0]));
    const best = free[0];
    if (best === undefined) {
      throw new EngineError({
        kind: 'Refused',
        message: `Every container host already runs ${settings.maxAgents ?? 0} agents ([container] max_agents), so ${launch.agent} has nowhere to run.`,
        hint: 'Race fewer agents, add a host to [container] hosts, or raise [container] max_agents.',
      });
    }
    chosen.set(launch.agent, best[0]);
    load.set(best[0], best[1] + 1);
  }
  const image = wanted[0]?.container?.image ?? '';
  // A dev container's image is built where it is missing (src/engine/devcontainer); any other must be there.
  const ensure = settings.ensureImage ?? checkImage;
  await Promise.all([...new Set(chosen.values())].map((host) => ensure(host, image)));
  const placed = launches.map((launch) => {
    const host = chosen.get(launch.agent);
    if (host === undefined || !launch.container) return launch;
    return { ...launch, container: { ...launch.container, host, remote: !isLocalEngine(host) } };
  });
  const warnings = down.map((state) =>
    `The container engine at ${hostLabel(state.host)} did not answer; its share of the agents ran on the other hosts. ${state.problem?.message ?? ''}`.trim(),
  );
  return { launches: placed, warnings };
}
