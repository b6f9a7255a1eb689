/**
 * A container agent's container is made while git makes its worktree (precreate.ts): started
 * there, its CLI waiting for the go (nothing of the agent runs before its start), or, for an agent
 * that waits for room (`max_agents`), created only. A race cancelled then (Ctrl-C while a slow
 * checkout runs) leaves neither that container nor its `home` volume behind, and hydra does not
 * wait for a watchdog or `hydra clean` to remove them; a `kill -9` of hydra then leaves no
 * container either (the watchdog removes it by label).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execaSync } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { git, installFakes } from '../../support/cli-helpers.js';
import { eventually } from '../../support/engine-helpers.js';
import {
  leftovers,
  raceInBackground,
  useContainerRepo,
  writeContainerConfig,
} from '../../support/container-helpers.js';
import { dockerSync } from '../../support/docker-cli.js';

let image = '';
let sandbox: Sandbox;
let repo: string;
const enabled = useContainerRepo((made) => ({ image, sandbox, repo } = made));

/** The slow smudge filter's sleep, with a duration no other test uses. */
const SLOW = 'sleep 61.3';
const slowFilters = (): number =>
  execaSync('ps', ['-eo', 'args='])
    .stdout.split('\n')
    .filter((line) => line.includes(SLOW)).length;

beforeEach(() => {
  // A file that takes a minute to check out (like a git-lfs download): the worktree is still being made.
  writeFileSync(path.join(repo, '.gitattributes'), '*.slow filter=slow\n');
  writeFileSync(path.join(repo, 'big.slow'), 'slow to check out\n');
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'a slow file']);
  git(repo, ['config', 'filter.slow.smudge', `sh -c '${SLOW}; cat'`]);
  git(repo, ['config', 'filter.slow.clean', 'cat']);
});

/** The container's state (`created`, `running`...), or '' when it is gone. */
const stateOf = (name: string): string =>
  dockerSync(['inspect', '--format', '{{.State.Status}}', name]).stdout.trim();

/** The command lines of the processes in a running container, as the host's ps sees them. */
const processesIn = (name: string): string[] =>
  dockerSync(['top', name, '-o', 'pid,args']).stdout.split('\n').slice(1);

/** The agent's container (not the probe's, which the race's probe of the image may still keep), or ''. */
const agentContainer = (): string =>
  leftovers(repo).containers.find((name) => name.endsWith('-claude')) ?? '';

/** `hydra race` of one fake claude in containers (its scenario hangs), as a child to stop. */
async function startRace(
  extra: { maxAgents?: number } = {},
): Promise<{ child: ReturnType<typeof raceInBackground> }> {
  const scenarios = { claude: { agent: 'claude' as const, delayMs: 5 } };
  await installFakes(sandbox.bin, scenarios);
  const config = writeContainerConfig(path.join(sandbox.dir, 'hydra.toml'), { image, scenarios, ...extra });
  return { child: raceInBackground({ sandbox, repo }, config, { forceKillAfterDelay: false }) };
}

describe.runIf(enabled)('a container created ahead', () => {
  it('is removed, with its volume, when the race is cancelled while its worktree is made', async () => {
    const scenarios = { claude: { agent: 'claude' as const, delayMs: 5 } };
    await installFakes(sandbox.bin, scenarios);
    const config = writeContainerConfig(path.join(sandbox.dir, 'hydra.toml'), { image, scenarios });
    const child = raceInBackground({ sandbox, repo }, config);
    // Created while git is still checking the worktree out.
    await eventually(
      () => leftovers(repo).containers.length === 1 && slowFilters() > 0,
      90_000,
      'the agent’s container to be created during the checkout',
    );
    // Started there too, its CLI not yet run: the container waits at its gate for the agent's start.
    await eventually(
      () => stateOf(agentContainer()) === 'running',
      60_000,
      'the agent’s container to be started ahead',
    );
    const name = agentContainer();
    expect(slowFilters()).toBeGreaterThan(0);
    expect(processesIn(name).some((line) => /fault-agent|node/.test(line))).toBe(false);

    child.kill('SIGINT');
    const result = await child;

    expect(result.exitCode).not.toBe(0);
    expect(leftovers(repo)).toEqual({ containers: [], volumes: [] });
  }, 180_000);

  it('is removed by the watchdog when hydra is killed outright while it waits for its go', async () => {
    const { child } = await startRace();
    await eventually(
      () => {
        const name = agentContainer();
        return name !== '' && stateOf(name) === 'running' && slowFilters() > 0;
      },
      90_000,
      'the agent’s container to be started ahead during the checkout',
    );

    child.kill('SIGKILL');
    await child;

    await eventually(
      () => leftovers(repo).containers.length === 0,
      20_000,
      'the watchdog to remove the waiting container',
    );
  }, 180_000);

  it('is created only, not started, for an agent that waits for room on its host (max_agents)', async () => {
    const { child } = await startRace({ maxAgents: 1 });
    await eventually(
      () => {
        const name = agentContainer();
        return name !== '' && stateOf(name) !== '' && slowFilters() > 0;
      },
      90_000,
      'the agent’s container to be created during the checkout',
    );
    // Had it been started it would count as running on its host, and hold room it has not been given.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const name = agentContainer();
    expect(stateOf(name)).toBe('created');

    child.kill('SIGINT');
    const result = await child;

    expect(result.exitCode).not.toBe(0);
    expect(leftovers(repo)).toEqual({ containers: [], volumes: [] });
  }, 180_000);
});
