/**
 * The container tests' set-up: a sandbox and repository as the CLI tests make them, fake agents on
 * the host (for the probe) and in the test image (for the race, test/support/container-image.ts),
 * a config racing them in containers, a TCP proxy to the local engine (a "remote" engine with no
 * bind mounts), and what the engine holds with hydra's labels.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { FaultScenario } from '../support/fault-bin.js';
import { repoKey } from '../../src/engine/records/index.js';
import { removeContainers } from '../../src/engine/container/index.js';

export const SOCKET = '/var/run/docker.sock';

/** A TCP port that forwards to the local engine's socket: the same daemon, reached as `tcp://`. */
export async function startEngineProxy(): Promise<{ host: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  // Half-open both ways: `docker start -a` half-closes its side of an attach and still reads the output.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ path: SOCKET, allowHalfOpen: true });
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    host: `tcp://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const tomlString = (value: string): string => JSON.stringify(value);

/** A config file racing `scenarios` (by adapter) in containers of `image`. */
export function writeContainerConfig(
  file: string,
  options: {
    image: string;
    scenarios: Record<string, FaultScenario>;
    hosts?: string[];
    maxAgents?: number;
    /** More TOML (tables such as `[setup]` or `[[checks]]`), after the rest. */
    extra?: string[];
  },
): string {
  const lines = [
    '[race]',
    `agents = [${Object.keys(options.scenarios).map(tomlString).join(', ')}]`,
    'runner = "container"',
    '',
    '[container]',
    `image = ${tomlString(options.image)}`,
    // This machine's engine has no working default bridge; the fakes need no network.
    'network = "none"',
    ...(options.hosts === undefined ? [] : [`hosts = [${options.hosts.map(tomlString).join(', ')}]`]),
    ...(options.maxAgents === undefined ? [] : [`max_agents = ${options.maxAgents}`]),
    '',
    ...Object.entries(options.scenarios).flatMap(([agent, scenario]) => [
      `[agents.${agent}]`,
      `env = { HYDRA_FAKE_SCENARIO = ${tomlString(JSON.stringify(scenario))} }`,
      '',
    ]),
    ...(options.extra ?? []),
  ];
  writeFileSync(file, lines.join('\n'));
  return file;
}

const docker = (args: string[]): string => {
  const result = spawnSync('docker', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`docker ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
};

/** The containers (all states) and volumes on the local engine with this repository's label. */
export function leftovers(repo: string): { containers: string[]; volumes: string[] } {
  const filter = ['--filter', `label=io.hydra.repo=${repoKey(repo)}`];
  const lines = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '');
  return {
    containers: lines(docker(['ps', '-a', '--format', '{{.Names}}', ...filter])),
    volumes: lines(docker(['volume', 'ls', '-q', ...filter])),
  };
}

/** Removes what a test left with this repository's label (as `hydra clean` does by label). */
export const removeLeftovers = (repo: string): Promise<unknown> =>
  removeContainers('default', { repoRoot: repo });

/**
 * Polls the engine while a race runs: the mounts of every container with this repository's label,
 * by container name, as `docker inspect` shows them.
 */
export function watchMounts(repo: string): {
  stop: () => Record<string, Array<{ Type: string; Source?: string; Destination: string; RW?: boolean }>>;
} {
  const seen: Record<
    string,
    Array<{ Type: string; Source?: string; Destination: string; RW?: boolean }>
  > = {};
  const timer = setInterval(() => {
    const result = spawnSync('docker', ['ps', '-q', '--filter', `label=io.hydra.repo=${repoKey(repo)}`], {
      encoding: 'utf8',
    });
    const ids = (result.stdout ?? '').split('\n').filter((id) => id.trim() !== '');
    if (ids.length === 0) return;
    const inspected = spawnSync('docker', ['inspect', '--format', '{{.Name}} {{json .Mounts}}', ...ids], {
      encoding: 'utf8',
    });
    for (const line of (inspected.stdout ?? '').split('\n')) {
      const space = line.indexOf(' ');
      if (space < 0) continue;
      seen[line.slice(1, space)] = JSON.parse(line.slice(space + 1)) as Array<{
        Type: string;
        Destination: string;
      }>;
    }
  }, 150);
  return {
    stop: () => {
      clearInterval(timer);
      return seen;
    },
  };
}

/** A file from a volume, read in a throwaway container of `image`. */
export const readFromVolume = (image: string, volume: string, file: string): string =>
  docker([
    'run',
    '--rm',
    '--network',
    'none',
    '-v',
    `${volume}:/v:ro`,
    image,
    'cat',
    path.posix.join('/v', file),
  ]);
