/**
 * Fault: the user's repository is on a detached HEAD when a race starts. A race needs only a
 * commit, so it runs and its results are on their branches as usual; only the merge needs a branch
 * to merge into: it is refused, changing nothing, with a hint that creates one at the race's commit.
 */
import { readFileSync } from 'node:fs';
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
import { hydraBranches } from '../../support/fault-invariants.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5, edits: [{ path: 'hello.txt', content: 'hello\n' }] },
  });
  git(repo, ['switch', '--quiet', '--detach']);
});

afterEach(() => sandbox.cleanup());

describe('a detached HEAD at race start', () => {
  it('races, keeps the result on its branch, and refuses only the merge, offering to create a branch', async () => {
    const head = git(repo, ['rev-parse', 'HEAD']);
    const raced = await hydra(['race', '--json', '--agents', 'claude', 'Add a hello.txt file'], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(raced.exitCode, raced.stderr).toBe(0);
    const summary = parseNdjson(raced.stdout).at(-1) as { runId: string; agents: Array<{ status: string }> };
    expect(summary.agents[0]?.status).toBe('completed');
    expect(hydraBranches(repo)).toEqual([`hydra/${summary.runId}/claude`]);
    const shown = await hydra(['show', 'last'], { cwd: repo, env: sandbox.env });
    expect(shown.stdout).toContain(`base    detached @ ${head.slice(0, 7)}`);

    const status = git(repo, ['status', '--porcelain']);
    const merged = await hydra(['merge', 'last', 'claude'], { cwd: repo, env: sandbox.env });
    expect(merged.exitCode).toBe(1);
    expect(merged.stderr).toContain('started on a detached HEAD');
    expect(merged.stderr).toContain(`git switch -c <new-branch> ${head.slice(0, 12)}`);
    expect(merged.stderr).toContain(`git merge hydra/${summary.runId}/claude`);
    expect(git(repo, ['rev-parse', 'HEAD'])).toBe(head);
    expect(git(repo, ['status', '--porcelain'])).toBe(status);

    // Following the hint works.
    git(repo, ['switch', '--quiet', '-c', 'from-detached', head]);
    git(repo, ['merge', '--quiet', `hydra/${summary.runId}/claude`]);
    expect(readFileSync(path.join(repo, 'hello.txt'), 'utf8')).toBe('hello\n');
  });
});
