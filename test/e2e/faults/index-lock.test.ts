/**
 * Fault: `.git/index.lock` is present in the user's repository (another git command is running,
 * or one crashed). A race does not need the user's index, so it runs and leaves the lock alone; a
 * merge does, so it is refused before anything changes, naming the lock and what to do, and goes
 * through once the lock is gone.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
  extraWorktrees,
  hydraBranches,
} from '../../support/fault-invariants.js';

let sandbox: Sandbox;
let repo: string;
let lock: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
  lock = path.join(repo, '.git', 'index.lock');
  writeFileSync(lock, 'held by another git\n');
});

afterEach(() => sandbox.cleanup());

describe('a locked index in the user repository', () => {
  it('a race runs beside it and leaves it; a merge is refused naming the lock, then works once it is gone', async () => {
    const before = captureUserState(repo);

    const raced = await hydra(['race', '--json', '--agents', 'claude', 'Add a hello.txt file'], {
      cwd: repo,
      env: sandbox.env,
    });

    expect(raced.exitCode, raced.stderr).toBe(0);
    const summary = parseNdjson(raced.stdout).at(-1) as { runId: string; agents: Array<{ status: string }> };
    expect(summary.agents[0]?.status).toBe('completed');
    expect(readFileSync(lock, 'utf8')).toBe('held by another git\n');
    expectUserStateUnchanged(repo, before);
    expectNoProcessOfRun(summary.runId);

    const refused = await hydra(['merge', summary.runId, 'claude'], { cwd: repo, env: sandbox.env });

    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(`The index is locked: ${lock} exists.`);
    expect(refused.stderr).toMatch(/Nothing was changed.*remove that file/s);
    expectUserStateUnchanged(repo, before);
    expect(existsSync(lock)).toBe(true);

    rmSync(lock);
    const merged = await hydra(['merge', summary.runId, 'claude'], { cwd: repo, env: sandbox.env });
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(git(repo, ['status', '--porcelain'])).toBe('');
    expect(extraWorktrees(repo)).toEqual([]);
    expect(hydraBranches(repo)).toEqual([]);
    expectRecordsReadable(repo);
  });
});
