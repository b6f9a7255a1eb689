/**
 * The race's probe of its CLIs in the image (probe/in-image.ts) runs in a container of the run: it
 * carries the run's labels, and the watchdog is told its host, so a hydra killed meanwhile leaves
 * none (the watchdog and `hydra clean` remove containers by label). A fake docker CLI
 * (HYDRA_DOCKER) records the calls; no engine is touched.
 */
import { expect, it } from 'vitest';
import { placeContainers } from '../../../../src/engine/container/placement.js';
import type { FakeDocker } from '../../../support/fake-docker.js';
import { useFakeDocker } from '../../../support/fake-docker.js';

const IMAGE = 'agents:1';
let docker: FakeDocker;
let cacheDir: string;
useFakeDocker(
  { images: { [IMAGE]: 'sha256:bbb' }, inImage: ['claude'] },
  (made) => ({ docker, cacheDir } = made),
);

it("labels the image probe's container with the run's labels and tells the watchdog its host", async () => {
  const watched: string[] = [];
  const labels = { 'io.hydra.run': 'r-probe', 'io.hydra.repo': 'repo-key', 'io.hydra.managed': '1' };
  const launches = [
    {
      agent: 'claude',
      container: { host: 'tcp://one:2376', image: IMAGE, network: 'none', remote: true, passEnv: [] },
      cli: { adapterId: 'claude' as const, binary: 'claude' },
    },
  ];

  const placed = await placeContainers(
    launches,
    { hosts: ['tcp://one:2376'], maxAgents: null },
    {},
    { cacheDir, labels, watchHost: (host) => watched.push(host) },
  );

  expect(placed.capabilities['claude']?.version).toBe('2.1.330');
  const started = docker.calls().filter((call) => call[0] === 'run');
  expect(started).toHaveLength(1);
  const args = started[0] ?? [];
  for (const [key, value] of Object.entries(labels)) {
    const at = args.indexOf(`${key}=${value}`);
    expect(at, `${key} on ${args.join(' ')}`).toBeGreaterThan(0);
    expect(args[at - 1]).toBe('--label');
  }
  expect(watched).toEqual(['tcp://one:2376']);
});
