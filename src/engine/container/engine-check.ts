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
import { roundTrip } from './round-trip.js';
import type { EngineProblem } from './round-trip.js';
import { DEFAULT_CONTAINER, DEFAULT_HOST } from './settings.js';
import { environmentEngineAddress, sshConnectionNote } from '../process/index.js';

export type { EngineProblem } from './round-trip.js';

/** The networks every engine has; any other name must exist there. */
const BUILT_IN_NETWORKS = new Set(['none', 'bridge', 'host']);

/** Bounds each call: an engine that does not answer is a problem, never a hang. */
const CALL_MS = 20_000;
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

/** What `hydra doctor` says of an engine that answers: its version and, for ssh://, how hydra reaches it. */
export interface EngineFacts {
  host: string;
  /** The engine's version (`docker version`), null when it did not answer. */
  version: string | null;
  /** For an `ssh://` engine: one shared connection, or a connection per call and why. */
  connection: string | null;
}

/** The engine's version and the way hydra reaches it; never throws (checkEngine says what is wrong). */
export async function engineFacts(host: string): Promise<EngineFacts> {
  const version = await docker(host, ['version', '--format', '{{.Server.Version}}'], { timeoutMs: CALL_MS })
    .then((result) => (result.exitCode === 0 ? result.stdout.trim() || null : null))
    .catch(() => null);
  const address = host === DEFAULT_HOST ? environmentEngineAddress() : host;
  return { host, version, connection: address === undefined ? null : sshConnectionNote(address) };
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
