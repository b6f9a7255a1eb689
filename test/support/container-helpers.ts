/**
 * The container tests' set-up: a sandbox and repository as the CLI tests make them, fake agents on
 * the host (for the probe) and in the test image (for the race, test/support/container-image.ts),
 * a config racing them in containers, a TCP proxy to the local engine (a "remote" engine with no
 * bind mounts), and what the engine holds with hydra's labels. `useContainerRepo()` is the hooks
 * every file racing in real containers shares.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { Sandbox } from './cli-helpers.js';
import { createRepo, createSandbox, MAIN } from './cli-helpers.js';
import { dockerReachable, testImage } from './container-image.js';
import type { FaultScenario } from './fault-bin.js';
import { buildTestImage, realShell } from './infra-image.js';
import { repoKey } from '../../src/engine/records/index.js';
import { removeContainers } from '../../src/engine/container/index.js';
import { dockerSync } from './docker-cli.js';

export const SOCKET = '/var/run/docker.sock';

/** A TCP port that forwards to the local engine's socket: the same daemon, reached as `tcp://`. */
export async function startEngineProxy({
  dropOnHalfClose = false,
}: { dropOnHalfClose?: boolean } = {}): Promise<{ host: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  // Half-open both ways: `docker start -a` half-closes its side of an attach and still reads the output.
  // dropOnHalfClose: like socat without `-t`, both sides closed as soon as the client half-closes its
  // own, so a `docker run` or attach gets none of the container's output.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ path: SOCKET, allowHalfOpen: !dropOnHalfClose });
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    if (dropOnHalfClose) client.on('end', end);
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
  const result = dockerSync(args);
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
    // Every state (-a): a container is made ahead of its agent's start, and its mounts are there
    // from then on, so a race under load does not end before one poll saw it running.
    const result = dockerSync(['ps', '-a', '-q', '--filter', `label=io.hydra.repo=${repoKey(repo)}`], {
      timeoutMs: 20_000,
    });
    const ids = (result.stdout ?? '').split('\n').filter((id) => id.trim() !== '');
    if (ids.length === 0) return;
    const inspected = dockerSync(['inspect', '--format', '{{.Name}} {{json .Mounts}}', ...ids], {
      timeoutMs: 20_000,
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

/** What each test of a container file works in. */
export interface ContainerRepo {
  /** The test image (test/support/container-image.ts). */
  image: string;
  sandbox: Sandbox;
  /** A repository with one commit, in the sandbox. */
  repo: string;
}

/**
 * The hooks of a file that races in real containers: the test image before its first test; for each
 * test a sandbox and a repository (handed to `use`, which keeps them where the tests read them);
 * after each test every container and volume with the repository's label removed and checked to be
 * gone, then the sandbox. Returns whether the tests run (`describe.runIf`): without an engine
 * `dockerReachable()` fails them, naming .ci/run's set-up, unless HYDRA_TEST_DOCKER=0 leaves them
 * out; `required` files (the fault suite) never leave them out.
 */
export function useContainerRepo(
  use: (made: ContainerRepo) => void,
  options: { required?: boolean } = {},
): boolean {
  const enabled = options.required === true || dockerReachable();
  let image = '';
  let made: ContainerRepo | undefined;

  beforeAll(() => {
    if (options.required === true && !dockerReachable())
      throw new Error('No Docker engine answers: see .ci/run for its set-up.');
    if (enabled) image = testImage();
  }, 300_000);

  beforeEach(async () => {
    const sandbox = createSandbox();
    made = { image, sandbox, repo: await createRepo(sandbox.dir) };
    use(made);
  });

  afterEach(async () => {
    if (made === undefined) return;
    const { sandbox, repo } = made;
    made = undefined;
    try {
      await removeLeftovers(repo);
      expect(leftovers(repo)).toEqual({ containers: [], volumes: [] });
    } finally {
      sandbox.cleanup();
    }
  });

  return enabled;
}

/**
 * `hydra race --json` of `config` in the repository, not awaited: for a test that stops or kills it
 * mid-race (`forceKillAfterDelay: false`: execa sends no SIGKILL of its own after a kill).
 */
export const raceInBackground = (
  { sandbox, repo }: Pick<ContainerRepo, 'sandbox' | 'repo'>,
  config: string,
  options: { forceKillAfterDelay?: false } = {},
) =>
  execa(process.execPath, [MAIN, 'race', '--json', '--config', config, 'Add a hello file'], {
    cwd: repo,
    env: sandbox.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 120_000,
    ...options,
  });

/** Removes the images built from this repository's dev container (labelled with its key). */
export function removeDevcontainerImages(repo: string): void {
  const built = dockerSync([
    'images',
    '-q',
    '--filter',
    `label=io.hydra.devcontainer=${repoKey(repo)}`,
  ]).stdout.trim();
  if (built !== '') dockerSync(['rmi', '-f', ...new Set(built.split('\n'))]);
}

/** What doctor's images hold: a shell, cat and node, from this machine. */
const doctorBase = () => ({ binaries: [realShell(), '/usr/bin/cat', '/usr/bin/node'] });

/** An image with no agent CLI in it (built at most once per content, test/support/infra-image.ts). */
export const doctorBareImage = (): Promise<string> =>
  buildTestImage({ name: 'doctor-bare', ...doctorBase() });

/** An image with a fake claude that answers `--version` and `--help` as Claude Code 2.1.330 does. */
export function doctorClaudeImage(): Promise<string> {
  const help = path.resolve('fixtures/adapters/claude/help/2.1.330');
  return buildTestImage({
    name: 'doctor-claude',
    ...doctorBase(),
    files: {
      '/usr/local/bin/claude': {
        content:
          '#!/bin/sh\ncase "$1" in --version) cat /opt/claude/version.txt ;; *) cat /opt/claude/help.txt ;; esac\n',
        executable: true,
      },
      '/opt/claude/version.txt': { content: readFileSync(path.join(help, 'version.txt'), 'utf8') },
      '/opt/claude/help.txt': { content: readFileSync(path.join(help, 'help.txt'), 'utf8') },
    },
  });
}
