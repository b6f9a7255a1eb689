/**
 * Whether a remote engine hands back what a container prints. A proxy in between that closes the
 * connection once docker half-closes its side (socat's default) loses every container's output: a
 * probe of the CLI in the image then reads no version, an agent no event. `hydra doctor` asks it of
 * each remote engine (engine-check.ts); a race asks it when the probe in the image read nothing
 * (placement.ts), so neither blames a CLI for its engine.
 */
import { docker } from './docker.js';

export interface EngineProblem {
  host: string;
  message: string;
  hint: string;
}

/** What the round trip's container prints; a remote engine that returns nothing drops output. */
const MARKER = 'hydra-engine-round-trip';

/** A container's start on a busy `vfs` engine, with the call around it. */
const ROUND_TRIP_MS = 60_000;

/**
 * One container of the image that prints a line, through the same connection a race's agent uses.
 * A proxy in between that closes the connection once docker half-closes its side (socat's default)
 * loses every agent's output: the race would fail each one with "no JSON events".
 */
export async function roundTrip(host: string, image: string): Promise<EngineProblem | null> {
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
