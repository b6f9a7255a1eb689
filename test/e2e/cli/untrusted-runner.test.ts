/**
 * An untrusted repository's hydra.toml that asks for agents in containers: hydra does not use its
 * container settings, and does not quietly race on this machine instead. It refuses, naming the
 * keys, `hydra trust` and `--runner`; with `--runner local` the user's choice races here.
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
  writeFileSync(path.join(repo, 'hydra.toml'), '[race]\nrunner = "container"\n');
  git(repo, ['add', 'hydra.toml']);
  git(repo, ['commit', '--quiet', '-m', 'race in containers']);
});

afterEach(() => sandbox.cleanup());

const race = (...flags: string[]) =>
  hydra(['race', '--json', '--agents', 'claude', ...flags, 'Add a hello.txt file'], {
    cwd: repo,
    env: sandbox.env,
    timeoutMs: 90_000,
  });

describe('an untrusted runner = "container"', () => {
  it('is refused with the keys, hydra trust and --runner named; nothing races', async () => {
    const result = await race();

    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('hydra.toml asks for agents in containers (race.runner = "container")');
    expect(result.stderr).toContain('it will not run the agents on this machine instead without asking');
    expect(result.stderr).toMatch(/hydra trust.*--runner local.*--runner container/);
    expect(git(repo, ['branch', '--list', 'hydra/*'])).toBe('');
  }, 90_000);

  it('races on this machine when the user chooses --runner local', async () => {
    const result = await race('--runner', 'local');

    expect(result.exitCode, result.stderr).toBe(0);
  }, 90_000);
});
