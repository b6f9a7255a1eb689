/**
 * Fault (a sibling of 10.7, another signal): Ctrl-C or SIGTERM to `hydra merge` while git is
 * writing the user's working tree. The merge is never left half-done: the signal waits for it, the
 * merge completes and is recorded, and then hydra exits by the signal.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa, execaSync } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  MAIN,
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';
import { eventually } from '../../support/engine-helpers.js';
import { expectRecordsReadable, extraWorktrees, hydraBranches } from '../../support/fault-invariants.js';

let sandbox: Sandbox;
let repo: string;

/** The slow smudge filter's sleep, with a duration no other test uses. */
const SLOW = 'sleep 1.37';
const slowFilters = (): number[] =>
  execaSync('ps', ['-eo', 'pid=,args='])
    .stdout.split('\n')
    .filter((line) => line.includes(SLOW))
    .map((line) => Number(line.trim().split(/\s+/)[0]));

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  // Files named *.slow take a while to check out (like a git-lfs download).
  writeFileSync(path.join(repo, '.gitattributes'), '*.slow filter=slow\n');
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'attributes']);
  git(repo, ['config', 'filter.slow.smudge', `sh -c '${SLOW}; cat'`]);
  git(repo, ['config', 'filter.slow.clean', 'cat']);
  await installFakes(sandbox.bin, {
    claude: {
      agent: 'claude',
      delayMs: 5,
      edits: [
        { path: 'a.txt', content: 'first\n' },
        { path: 'b.slow', content: 'slow to check out\n' },
        { path: 'c.txt', content: 'last\n' },
      ],
    },
  });
});

afterEach(() => sandbox.cleanup());

describe('a signal to hydra merge while it writes the working tree', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s waits for the merge, which completes whole', async (signal) => {
    const raced = await hydra(['race', '--json', '--agents', 'claude', 'Add files'], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(raced.exitCode, raced.stderr).toBe(0);
    const { runId } = parseNdjson(raced.stdout).at(-1) as { runId: string };
    const head = git(repo, ['rev-parse', 'HEAD']);

    const child = execa(process.execPath, [MAIN, 'merge', runId, 'claude'], {
      cwd: repo,
      env: sandbox.env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 30_000,
    });
    await eventually(() => slowFilters().length > 0, 15_000, 'the checkout to reach the slow file');
    child.kill(signal);
    const result = await child;

    expect(result.signal ?? result.exitCode).toBe(signal);
    // Whole: the branch moved, every file is there, nothing uncommitted, the merge recorded.
    expect(git(repo, ['rev-parse', 'HEAD'])).not.toBe(head);
    expect(git(repo, ['status', '--porcelain'])).toBe('');
    for (const file of ['a.txt', 'b.slow', 'c.txt']) expect(existsSync(path.join(repo, file))).toBe(true);
    expect(existsSync(path.join(repo, '.hydra', 'runs', runId, 'merge.json'))).toBe(true);
    expect(extraWorktrees(repo)).toEqual([]);
    expect(hydraBranches(repo)).toEqual([]);
    expectRecordsReadable(repo);
  });
});
