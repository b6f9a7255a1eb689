/**
 * `kill -9` of hydra mid-race with its agents in containers (the real `hydra race --json`, fake
 * agents that hang, in the container runner's test image on the local engine): no handler of
 * hydra's can run, so the watchdog, told each engine host by the runner, removes the run's
 * containers; none is left within seconds.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/engine-helpers.js';
import { installFakes } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  leftovers,
  raceInBackground,
  useContainerRepo,
  writeContainerConfig,
} from '../../support/container-helpers.js';

let sandbox: Sandbox;
let repo: string;
let image = '';
// The fault suite always runs this (no engine: it fails, naming .ci/run's set-up).
useContainerRepo((made) => ({ image, sandbox, repo } = made), { required: true });

describe('hydra killed outright with agents in containers', () => {
  it('leaves no container of the run (the watchdog removes them by label)', async () => {
    const scenarios = {
      claude: { agent: 'claude' as const, delayMs: 5, hangAfterLines: 2 },
      codex: { agent: 'codex' as const, delayMs: 5, hangAfterLines: 2 },
    };
    await installFakes(sandbox.bin, scenarios);
    const config = writeContainerConfig(path.join(sandbox.dir, 'hydra.toml'), { image, scenarios });
    const child = raceInBackground({ sandbox, repo }, config, { forceKillAfterDelay: false });
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
