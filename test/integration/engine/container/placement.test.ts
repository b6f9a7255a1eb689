/**
 * Placement and the queue for room on a host (`max_agents`), with a fake docker CLI (HYDRA_DOCKER):
 * a race larger than its hosts' room is placed, not refused, and its agents wait their turn on their
 * host, counting other runs' containers there; each agent's CLI is probed in the image on its host,
 * once per image id, and one missing from the image is an error naming it and how to add it.
 */
import { describe, expect, it } from 'vitest';
import { placeContainers } from '../../../../src/engine/container/placement.js';
import { noteRunning, releaseSlot, takeSlot } from '../../../../src/engine/container/slots.js';
import type { ContainerLaunch } from '../../../../src/engine/container/types.js';
import type { FakeDocker } from '../../../support/fake-docker.js';
import { useFakeDocker } from '../../../support/fake-docker.js';

const IMAGE = 'agents:1';
let docker: FakeDocker;
let cacheDir: string;
useFakeDocker(
  { images: { [IMAGE]: 'sha256:aaa' }, inImage: ['claude'] },
  (made) => ({ docker, cacheDir } = made),
);

const container = (): ContainerLaunch => ({
  host: 'default',
  image: IMAGE,
  network: 'none',
  remote: false,
  passEnv: [],
});

const agents = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ agent: `a${index}`, container: container() }));

describe('placement', () => {
  it('places a race larger than its hosts room instead of refusing it, least busy first', async () => {
    docker.setRunning(['hydra-other-run-x']);
    const placed = await placeContainers(agents(5), {
      hosts: ['tcp://one:2376', 'tcp://two:2376'],
      maxAgents: 2,
    });
    const hosts = placed.launches.map((launch) => launch.container.host);
    // Both hosts run one container of another race: the five are spread 3 / 2.
    expect(hosts.filter((host) => host === 'tcp://one:2376')).toHaveLength(3);
    expect(hosts.filter((host) => host === 'tcp://two:2376')).toHaveLength(2);
    expect(placed.launches.every((launch) => launch.container.maxAgents === 2)).toBe(true);
  });

  it('probes each CLI in the image on its host once per image id: a second race costs an image inspect', async () => {
    const launches = [
      { agent: 'opus', container: container(), cli: { adapterId: 'claude' as const, binary: 'claude' } },
      { agent: 'sonnet', container: container(), cli: { adapterId: 'claude' as const, binary: 'claude' } },
    ];
    const first = await placeContainers(launches, { hosts: ['default'], maxAgents: null }, {}, { cacheDir });
    expect(first.capabilities['opus']?.version).toBe('2.1.330');
    expect(first.capabilities['sonnet']?.features).toEqual(first.capabilities['opus']?.features);
    const execs = docker.calls().filter((call) => call[0] === 'exec');
    // One probe container for both agents, its commands run in it.
    expect(docker.calls().filter((call) => call[0] === 'run')).toHaveLength(1);
    expect(execs.every((call) => call[2] === 'claude')).toBe(true);

    const before = docker.calls().length;
    const second = await placeContainers(launches, { hosts: ['default'], maxAgents: null }, {}, { cacheDir });
    expect(second.capabilities['opus']?.version).toBe('2.1.330');
    expect(
      docker
        .calls()
        .slice(before)
        .map((call) => call.slice(0, 2))
        // Asked at once (placement.ts), so in either order.
        .sort(),
    ).toEqual([
      ['image', 'inspect'],
      ['ps', '--format'],
    ]);
  });

  it('refuses a race whose CLI is not in the image, naming the image, the CLI and the line that adds it', async () => {
    const launches = [
      { agent: 'codex', container: container(), cli: { adapterId: 'codex' as const, binary: 'codex' } },
    ];
    const error = (await placeContainers(
      launches,
      { hosts: ['default'], maxAgents: null },
      {},
      { cacheDir },
    ).then(
      () => null,
      (caught: unknown) => caught,
    )) as { kind: string; message: string; hint: string };
    expect(error).toMatchObject({ kind: 'SpawnFailed' });
    expect(error.message).toContain('Codex (`codex`) is not in');
    expect(error.message).toContain(`the image ${IMAGE}`);
    expect(error.hint).toContain('RUN npm install -g @openai/codex');
  });
});

describe('waiting for room on a host', () => {
  const waiter = (host: string, holder: string, maxAgents: number) => {
    const abort = new AbortController();
    const said: string[] = [];
    let done: boolean | null = null;
    const taken = takeSlot({
      host,
      maxAgents,
      holder,
      signal: abort.signal,
      onWait: (detail) => said.push(detail),
    }).then((room) => {
      done = room;
      return room;
    });
    return { taken, said, abort, done: () => done };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('starts max_agents at once and each next one as one ends, saying why it waits', async () => {
    const host = 'tcp://queue-a:2376';
    noteRunning(host, []);
    const [a, b, c] = [
      waiter(host, 'hydra-r-a', 2),
      waiter(host, 'hydra-r-b', 2),
      waiter(host, 'hydra-r-c', 2),
    ];
    await settle();
    expect([a.done(), b.done(), c.done()]).toEqual([true, true, null]);
    expect(c.said.at(-1)).toContain('2/2 agents running there');
    expect(c.said.at(-1)).toContain('queue-a');
    releaseSlot(host, 'hydra-r-a');
    expect(await c.taken).toBe(true);
    releaseSlot(host, 'hydra-r-b');
    releaseSlot(host, 'hydra-r-c');
  });

  it("counts other runs' containers on the host, and starts once they end", async () => {
    const host = 'tcp://queue-b:2376';
    docker.setRunning(['hydra-other-1']);
    noteRunning(host, ['hydra-other-1']);
    const a = waiter(host, 'hydra-r-a', 1);
    await settle();
    expect(a.done()).toBe(null);
    expect(a.said.at(-1)).toContain('1/1');
    docker.setRunning([]);
    // The first in line asks the engine again (every few seconds).
    expect(await a.taken).toBe(true);
    releaseSlot(host, 'hydra-r-a');
  }, 15_000);

  it('a cancelled wait holds nothing and leaves the line', async () => {
    const host = 'tcp://queue-c:2376';
    noteRunning(host, []);
    const a = waiter(host, 'hydra-r-a', 1);
    const b = waiter(host, 'hydra-r-b', 1);
    const c = waiter(host, 'hydra-r-c', 1);
    await settle();
    b.abort.abort();
    expect(await b.taken).toBe(false);
    releaseSlot(host, 'hydra-r-a');
    expect(await c.taken).toBe(true);
    releaseSlot(host, 'hydra-r-c');
    expect(await a.taken).toBe(true);
  });
});
