/**
 * `hydra doctor`'s look at each engine before it probes the agents' CLIs in the image there: that
 * the engine answers, has the image and `[container] network`, and, a remote one, hands back what a
 * container prints. Each is a problem a race would stop on (or, the last, fail on with no output
 * at all), said the way the race says it, so doctor never blames a CLI for its engine.
 */
import { EngineError } from '../errors.js';
import { docker, hostLabel } from './docker.js';
import { isLocalEngine } from './hosts.js';
import { checkImage } from './placement.js';
import { DEFAULT_CONTAINER } from './settings.js';

export interface EngineProblem {
  host: string;
  message: string;
  hint: string;
}

/** The networks every engine has; any other name must exist there. */
const BUILT_IN_NETWORKS = new Set(['none', 'bridge', 'host']);

/** What the round trip's container prints; a remote engine that returns nothing drops output. */
const MARKER = 'hydra-engine-round-trip';

/** Bounds each call: an engine that does not answer is a problem, never a hang. */
const CALL_MS = 20_000;
/** A container's start on a busy `vfs` engine, with the call around it. */
const ROUND_TRIP_MS = 60_000;

/** The problem on `host` for agents in `image` on `network` (default: bridge), or null when a race could start there. */
export async function checkEngine(
  host: string,
  settings: { image: string; network: string | undefined },
): Promise<EngineProblem | null> {
  try {
    await checkImage(host, settings.image);
    const network = await checkNetwork(host, settings.network ?? DEFAULT_CONTAINER.network);
    if (network !== null) return network;
    return isLocalEngine(host) ? null : await roundTrip(host, settings.image);
  } catch (error) {
    if (error instanceof EngineError) return { host, message: error.message, hint: error.hint ?? '' };
    throw error;
  }
}

async function checkNetwork(host: string, network: string): Promise<EngineProblem | null> {
  if (BUILT_IN_NETWORKS.has(network)) return null;
  const result = await docker(host, ['network', 'inspect', '--format', '{{.Name}}', network], {
    timeoutMs: CALL_MS,
  });
  if (result.exitCode === 0) return null;
  return {
    host,
    message: `The network ${network} ([container] network) is not on the container engine at ${hostLabel(host)}.`,
    hint: `Create it there (\`docker network create ${network}\`), or set [container] network to "bridge" or "none".`,
  };
}

/**
 * One container of the image that prints a line, through the same connection a race's agent uses.
 * A proxy in between that closes the connection once docker half-closes its side (socat's default)
 * loses every agent's output: the race would fail each one with "no JSON events".
 */
async function roundTrip(host: string, image: string): Promise<EngineProblem | null> {
  const result = await docker(
    host,
    ['run', '--rm', '--network', 'none', '--entrypoint', '/bin/sh', image, '-c', `echo ${MARKER}`],
    { timeoutMs: ROUND_TRIP_MS },
  );
  if (result.stdout.includes(MARKER)) return null;
  if (result.exitCode === 126 || result.exitCode === 127) {
    return {
      host,
      message: `The image ${image} on ${host} has no /bin/sh, which an agent on a remote engine needs (its checkout is made there by git and sh).`,
      hint: 'Use an image with /bin/sh and git (a dev container has both): docs/containers-remote.md.',
    };
  }
  if (result.exitCode === 0) {
    return {
      host,
      message: `The container engine at ${host} ran a container but none of its output came back: \`docker run ${image} /bin/sh -c 'echo ${MARKER}'\` printed nothing here, so every agent's output would be lost.`,
      hint: `Something between this machine and the engine closes the connection when docker half-closes its side. With socat, keep it open: \`socat -t 86400 TCP-LISTEN:<port>,fork UNIX-CONNECT:/var/run/docker.sock\` (its default waits 0.5 s); or reach the engine by ssh:// or its own TLS port. Check with \`DOCKER_HOST=${host} docker run --rm ${image} /bin/sh -c 'sleep 1; echo ok'\`.`,
    };
  }
  return {
    host,
    message: `A container of ${image} could not run on the container engine at ${host} (exit ${result.exitCode}): ${result.stderr.trim().split('\n').slice(-2).join(' ')}`,
    hint: `Check it with \`DOCKER_HOST=${host} docker run --rm ${image} /bin/sh -c 'echo ok'\`.`,
  };
}
