/**
 * A container agent's container is created while git makes its worktree (precreate.ts): a race
 * cancelled then (Ctrl-C while a slow checkout runs) leaves neither that container nor its `home`
 * volume behind, and hydra does not wait for a watchdog or `hydra clean` to remove them.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { execaSync } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../cli/helpers.js';
import { git, installFakes } from '../cli/helpers.js';
import { eventually } from '../engine/helpers.js';
import { leftovers, raceInBackground, useContainerRepo, writeContainerConfig } from './helpers.js';

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

    child.kill('SIGINT');
    const result = await child;

    expect(result.exitCode).not.toBe(0);
    expect(leftovers(repo)).toEqual({ containers: [], volumes: [] });
  }, 180_000);
});
