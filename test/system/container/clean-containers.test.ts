/**
 * `hydra clean` and agents in containers: the containers and volumes a run left on an engine (a
 * hydra killed without its watchdog) go with the run, found by their labels; with no run named,
 * every hydra container of this repository goes, and nothing of another repository or of a run
 * still in use; an engine that does not answer is a warning, never a hang. Real containers on the
 * local engine.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanRuns } from '../../../src/engine/index.js';
import { repoKey } from '../../../src/engine/records/paths.js';
import { requireEngine, sleeperImage } from '../../support/infra-image.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';
import { dockerAsync } from '../../support/docker-cli.js';

let sandbox: Sandbox;
let repo: string;
let key: string;
let image: string;
/** Every label value a test created, removed afterwards whatever it did. */
let created: string[] = [];

beforeAll(async () => {
  await requireEngine();
  image = await sleeperImage();
}, 120_000);

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  key = repoKey(git(repo, ['rev-parse', '--show-toplevel']).trim());
  created.push(key);
  // One agent: a race here only makes the run (its record) whose containers the tests label.
  await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
});

afterEach(async () => {
  for (const repoLabel of created) {
    const filter = ['--filter', `label=io.hydra.repo=${repoLabel}`];
    const containers = await ids(['ps', '-aq', ...filter]);
    if (containers.length > 0) await dockerAsync(['rm', '-f', ...containers], { reject: false });
    const volumes = await ids(['volume', 'ls', '-q', ...filter]);
    if (volumes.length > 0) await dockerAsync(['volume', 'rm', '-f', ...volumes], { reject: false });
  }
  created = [];
  sandbox.cleanup();
});

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 90_000 });

const raceOnce = async (): Promise<string> => {
  const raced = await run(['race', '--json', 'Add a hello.txt file']);
  expect(raced.exitCode, raced.stderr).toBe(0);
  return (parseNdjson(raced.stdout).at(-1) as { runId: string }).runId;
};

async function ids(args: string[]): Promise<string[]> {
  const { stdout } = await dockerAsync(args);
  return stdout.split('\n').filter((line) => line !== '');
}

const labels = (runId: string, repoLabel = key, extra: string[] = []): string[] => [
  '--label',
  `io.hydra.run=${runId}`,
  '--label',
  `io.hydra.repo=${repoLabel}`,
  '--label',
  'io.hydra.agent=claude',
  '--label',
  'io.hydra.managed=1',
  ...extra,
];

async function container(runId: string, repoLabel = key): Promise<string> {
  const { stdout } = await dockerAsync(['run', '-d', ...labels(runId, repoLabel), image, 'sleep', '1000']);
  return stdout.trim().slice(0, 12);
}

async function volume(runId: string, keep = false): Promise<string> {
  const extra = keep ? ['--label', 'io.hydra.keep=1'] : [];
  const { stdout } = await dockerAsync(['volume', 'create', ...labels(runId, key, extra)]);
  return stdout.trim();
}

const containersOf = (runId: string): Promise<string[]> =>
  ids(['ps', '-aq', '--filter', `label=io.hydra.run=${runId}`]);
const volumesOf = (runId: string): Promise<string[]> =>
  ids(['volume', 'ls', '-q', '--filter', `label=io.hydra.run=${runId}`]);

describe('hydra clean with containers', () => {
  it('removes a named run’s containers and volumes, and nothing of another run', async () => {
    const [first, second] = [await raceOnce(), await raceOnce()];
    const mine = await container(first);
    await volume(first);
    await volume(first, true);
    const theirs = await container(second);

    const cleaned = await run(['clean', first]);

    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain('removed containers (1):');
    expect(cleaned.stdout).toContain(`${mine} (run ${first})`);
    expect(cleaned.stdout).toContain('removed volumes (2):');
    expect(await containersOf(first)).toEqual([]);
    expect(await volumesOf(first)).toEqual([]);
    expect(await containersOf(second)).toEqual([theirs]);
  }, 180_000);

  it('keeps the session volumes with --keep-results, and changes nothing with --dry-run', async () => {
    const runId = await raceOnce();
    await container(runId);
    await volume(runId);
    const session = await volume(runId, true);

    const dry = await run(['clean', '--dry-run', runId]);
    expect(dry.stdout).toContain('would remove containers (1):');
    expect(await containersOf(runId)).toHaveLength(1);
    expect(await volumesOf(runId)).toHaveLength(2);

    const kept = await run(['clean', '--keep-results', runId]);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(await containersOf(runId)).toEqual([]);
    expect(await volumesOf(runId)).toEqual([session]);
  }, 180_000);

  it('with no run named removes every container of this repository, even of a run without a record, and none of another repository', async () => {
    const runId = await raceOnce();
    const unrecorded = `${runId.slice(0, -4)}zzzz`;
    const otherRepo = `elsewhere-${randomUUID().slice(0, 8)}`;
    created.push(otherRepo);
    await container(runId);
    await container(unrecorded);
    const foreign = await container(runId, otherRepo);

    const cleaned = await run(['clean']);

    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain('removed containers (2):');
    expect(await containersOf(unrecorded)).toEqual([]);
    expect(await ids(['ps', '-aq', '--filter', `label=io.hydra.repo=${key}`])).toEqual([]);
    expect(await ids(['ps', '-aq', '--filter', `label=io.hydra.repo=${otherRepo}`])).toEqual([foreign]);
  }, 180_000);
});

describe('engines that do not answer', () => {
  let silent: Server;
  let port: number;

  beforeAll(async () => {
    // Accepts connections and never answers: an engine that hangs.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as { port: number }).port;
  });

  afterAll(() => {
    silent.close();
  });

  it('are a warning each, within the engine timeout, and the engines that answer are still cleaned', async () => {
    const runId = await raceOnce();
    await container(runId);
    const startedAt = Date.now();

    const report = await cleanRuns(repo, {
      dryRun: false,
      runIds: [runId],
      containers: {
        hosts: ['tcp://127.0.0.1:1', `tcp://127.0.0.1:${port}`, 'tcp://x; rm -rf /'],
        warnDefault: true,
      },
    });

    expect(Date.now() - startedAt).toBeLessThan(40_000);
    expect(report.removedContainers).toHaveLength(1);
    expect(await containersOf(runId)).toEqual([]);
    const warnings = report.warnings ?? [];
    expect(warnings).toHaveLength(3);
    expect(warnings.find((line) => line.startsWith('tcp://127.0.0.1:1 did not answer'))).toBeDefined();
    expect(
      warnings.find((line) =>
        line.includes(`127.0.0.1:${port} did not answer (\`docker ps\` did not answer within 15 s)`),
      ),
    ).toBeDefined();
    expect(warnings.find((line) => line.includes('not an engine address'))).toBeDefined();
  }, 120_000);
});
