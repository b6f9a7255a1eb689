/**
 * The hint after a race whose check fails on the base commit too, because the worktrees lack an
 * ignored file of the checkout (`.env`): it names the file and `.worktreeinclude`; once the file
 * is listed there, the check passes and no hint is given.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, git, hydra, installFakes } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5, edits: [{ path: 'hello.txt', content: 'hello\n' }] },
  });
  // The project's tests need an ignored .env that only the user's checkout has.
  writeFileSync(path.join(repo, '.gitignore'), '.env\n');
  git(repo, ['add', '.gitignore']);
  git(repo, ['commit', '--quiet', '-m', 'ignore .env']);
  writeFileSync(path.join(repo, '.env'), 'TOKEN=local\n');
});

afterEach(() => sandbox.cleanup());

const race = () =>
  hydra(['race', '--json', '--agents', 'claude', '--check', 'test -f .env', 'Add a hello.txt file'], {
    cwd: repo,
    env: sandbox.env,
    timeoutMs: 90_000,
  });

describe('the hint for a check that fails on the base commit too', () => {
  it('names the ignored files the worktrees lack and .worktreeinclude', async () => {
    const result = await race();

    expect(result.stderr).toMatch(/hint: check test-f-.env fails on the base commit too/);
    expect(result.stderr).toMatch(
      /lack ignored files your checkout has \(\.env\): list .* in \.worktreeinclude/,
    );
    // hydra show says it again, later.
    const shown = await hydra(['show', 'last'], { cwd: repo, env: sandbox.env });
    expect(shown.stdout).toMatch(/hint: check test-f-\.env fails on the base commit too.*\(\.env\)/);
  }, 90_000);

  it('is not given once .worktreeinclude copies the file (the check then passes)', async () => {
    writeFileSync(path.join(repo, '.worktreeinclude'), '.env\n');
    git(repo, ['add', '.worktreeinclude']);
    git(repo, ['commit', '--quiet', '-m', 'copy .env']);

    const result = await race();

    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('fails on the base commit too');
  }, 90_000);
});
