/**
 * The watchdog and containers: a hydra killed outright (SIGKILL) leaves no container of its run on
 * any engine host the container runner announced (`ProcessRegistry.watchContainerHost`), and no
 * volume of it but those labelled to be kept; a race that ends normally leaves them to the runner;
 * a host string that could be more than one argument never reaches a shell as code. Real
 * containers on the local engine, from an image built on this machine.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dockerAsync } from '../../support/docker-cli.js';
import { shellScript } from '../../../src/engine/process/containment.js';
import watchdogScript from '../../../src/engine/process/watchdog.sh';
import { requireEngine, sleeperImage } from '../../support/infra-image.js';
import { eventually } from '../../support/engine-helpers.js';

const SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/engine/process');
const RUN_LABEL = 'io.hydra.run';

let dir: string;
let image: string;
let standIn: string;
let children: ChildProcess[] = [];
let runIds: string[] = [];

beforeAll(async () => {
  await requireEngine();
  image = await sleeperImage();
  dir = mkdtempSync(path.join(tmpdir(), 'hydra-watchdog-containers-'));
  // A stand-in for hydra: the real registry and watchdog, bundled as dist/ bundles them.
  const entry = `
import { createProcessRegistry } from ${JSON.stringify(path.join(SOURCE, 'process-registry.ts'))};
import { startWatchdog } from ${JSON.stringify(path.join(SOURCE, 'watchdog.ts'))};
const [runId, mode, ...hosts] = process.argv.slice(2);
const registry = createProcessRegistry();
const watchdog = startWatchdog(runId, 500);
registry.onContainerHost(watchdog.watchContainerHost);
for (const host of hosts) registry.watchContainerHost(host);
if (mode === 'finish') watchdog.stop();
console.log('ready');
setInterval(() => undefined, 1000);
`;
  standIn = path.join(dir, 'hydra-stand-in.mjs');
  await build({
    stdin: { contents: entry, resolveDir: SOURCE, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    loader: { '.sh': 'text' },
    outfile: standIn,
    logLevel: 'warning',
  });
}, 120_000);

afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  children = [];
  for (const runId of runIds) await removeRun(runId);
  runIds = [];
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const newRun = (): string => {
  const runId = `infra-watchdog-${randomUUID().slice(0, 8)}`;
  runIds.push(runId);
  return runId;
};

/** Starts the stand-in; resolves once its watchdog knows the hosts. */
async function startStandIn(runId: string, mode: 'run' | 'finish', hosts: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [standIn, runId, mode, ...hosts], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', () => reject(new Error('the stand-in exited early')));
  });
  return child;
}

const killed = async (child: ChildProcess): Promise<void> => {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
};

const labelled = (runId: string, extra: string[] = []): string[] => [
  '--label',
  `${RUN_LABEL}=${runId}`,
  '--label',
  'io.hydra.managed=1',
  ...extra,
];

async function startContainer(runId: string): Promise<string> {
  const { stdout } = await dockerAsync(['run', '-d', ...labelled(runId), image, 'sleep', '1000']);
  return stdout.trim();
}

async function createVolume(runId: string, keep: boolean): Promise<string> {
  const extra = keep ? ['--label', 'io.hydra.keep=1'] : [];
  const { stdout } = await dockerAsync(['volume', 'create', ...labelled(runId, extra)]);
  return stdout.trim();
}

async function containersOf(runId: string): Promise<string[]> {
  const { stdout } = await dockerAsync(['ps', '-aq', '--filter', `label=${RUN_LABEL}=${runId}`]);
  return stdout.split('\n').filter((id) => id !== '');
}

async function volumesOf(runId: string): Promise<string[]> {
  const { stdout } = await dockerAsync(['volume', 'ls', '-q', '--filter', `label=${RUN_LABEL}=${runId}`]);
  return stdout.split('\n').filter((name) => name !== '');
}

async function removeRun(runId: string): Promise<void> {
  const containers = await containersOf(runId);
  if (containers.length > 0) await dockerAsync(['rm', '-f', ...containers], { reject: false });
  const volumes = await volumesOf(runId);
  if (volumes.length > 0) await dockerAsync(['volume', 'rm', '-f', ...volumes], { reject: false });
}

/** Polls an async check. */
async function eventuallyAsync(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  let done = false;
  const poll = async (): Promise<void> => {
    while (!done) {
      done = await check();
      if (!done) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  void poll();
  await eventually(() => done, timeoutMs, what);
}

describe('the watchdog with containers', () => {
  it('removes the run’s containers and unkept volumes on every announced host when hydra is killed outright', async () => {
    const runId = newRun();
    const other = newRun();
    // The default engine twice over: as the environment's engine and by its socket; and one
    // engine that does not answer, which must not stop the others' cleanup.
    const hydra = await startStandIn(runId, 'run', [
      'default',
      'unix:///var/run/docker.sock',
      'tcp://127.0.0.1:1',
    ]);
    const mine = [await startContainer(runId), await startContainer(runId)];
    const unkept = await createVolume(runId, false);
    const kept = await createVolume(runId, true);
    const bystander = await startContainer(other);
    expect(await containersOf(runId)).toHaveLength(mine.length);

    await killed(hydra);

    await eventuallyAsync(
      async () => (await containersOf(runId)).length === 0,
      20_000,
      'the run’s containers to go',
    );
    await eventuallyAsync(
      async () => !(await volumesOf(runId)).includes(unkept),
      10_000,
      'the run’s unkept volume to go',
    );
    expect(await volumesOf(runId)).toEqual([kept]);
    expect(await containersOf(other)).toEqual([bystander.slice(0, 12)]);
  }, 60_000);

  it('leaves the containers to the runner when the race ends normally', async () => {
    const runId = newRun();
    const hydra = await startStandIn(runId, 'finish', ['default']);
    const container = await startContainer(runId);

    await killed(hydra);
    await new Promise((resolve) => setTimeout(resolve, 3000));

    expect(await containersOf(runId)).toEqual([container.slice(0, 12)]);
  }, 60_000);

  it('never runs a host string as code, and still cleans the hosts that are addresses', async () => {
    const runId = newRun();
    const marker = path.join(dir, `pwned-${runId}`);
    const container = await startContainer(runId);
    expect(container).not.toBe('');
    // The script itself, with what hydra would never pass on (isEngineHost), as if it had.
    const watchdog = spawn(
      '/bin/sh',
      ['-c', shellScript(watchdogScript), 'hydra-watchdog', runId, '0', 'HYDRA_RUN_ID', RUN_LABEL],
      { stdio: ['pipe', 'ignore', 'ignore'] },
    );
    const ended = new Promise((resolve) => watchdog.once('exit', resolve));
    watchdog.stdin.end(
      [
        `host unix:///var/run/docker.sock$(touch ${marker})`,
        `host unix:///var/run/docker.sock; touch ${marker}`,
        `host -H=\`touch ${marker}\``,
        'host unix:///var/run/docker.sock',
        '',
      ].join('\n'),
    );
    await ended;

    expect(await containersOf(runId)).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});
