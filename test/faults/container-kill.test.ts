/**
 * `kill -9` of hydra mid-race with its agents in containers (the real `hydra race --json`, fake
 * agents that hang, in the container runner's test image on the local engine): no handler of
 * hydra's can run, so the watchdog, told each engine host by the runner, removes the run's
 * containers; none is left within seconds.
 */
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../engine/helpers.js';
import { createRepo, createSandbox, installFakes, MAIN } from '../cli/helpers.js';
import type { Sandbox } from '../cli/helpers.js';
import { dockerReachable, testImage } from '../support/container-image.js';
import { leftovers, removeLeftovers, writeContainerConfig } from '../container/helpers.js';

let sandbox: Sandbox;
let repo: string;
let image = '';

beforeAll(() => {
  if (!dockerReachable()) throw new Error('No Docker engine answers: see .ci/run for its set-up.');
  image = testImage();
}, 300_000);

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(async () => {
  await removeLeftovers(repo);
  sandbox.cleanup();
});

describe('hydra killed outright with agents in containers', () => {
  it('leaves no container of the run (the watchdog removes them by label)', async () => {
    const scenarios = {
      claude: { agent: 'claude' as const, delayMs: 5, hangAfterLines: 2 },
      codex: { agent: 'codex' as const, delayMs: 5, hangAfterLines: 2 },
    };
    await installFakes(sandbox.bin, scenarios);
    const config = writeContainerConfig(path.join(sandbox.dir, 'hydra.toml'), { image, scenarios });
    const child = execa(process.execPath, [MAIN, 'race', '--json', '--config', config, 'Add a hello file'], {
      cwd: repo,
      env: sandbox.env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 120_000,
      forceKillAfterDelay: false,
    });
    const running = (): number => leftovers(repo).containers.length;
    // Both agents' containers exist and have printed (hangAfterLines): the race is mid-way.
    await eventually(() => running() === 2, 90_000, 'both agents’ containers to start');
    await new Promise((resolve) => setTimeout(resolve, 1000));

    child.kill('SIGKILL');
    await child;

    await eventually(() => running() === 0, 20_000, 'the watchdog to remove the run’s containers');
    expect(leftovers(repo).containers).toEqual([]);
  }, 240_000);
});
