/** `--no-cross-test` is a flag of hydra race, continue and rerun (docs/cross-testing.md). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRepo, createSandbox, hydra } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

describe('--no-cross-test', () => {
  it.each([
    ['continue', ['continue', 'nosuchrun', 'claude', 'go on', '--no-cross-test']],
    ['rerun', ['rerun', 'nosuchrun', 'claude', '--no-cross-test']],
  ])('is accepted by hydra %s (the run is what is missing)', async (_command, args) => {
    const result = await hydra(args, { cwd: repo, env: sandbox.env });
    expect(result.stderr).not.toMatch(/unknown option/i);
    expect(result.stderr).toContain('nosuchrun');
  });

  it('is listed in hydra race --help', async () => {
    const result = await hydra(['race', '--help'], { cwd: repo, env: sandbox.env });
    expect(result.stdout).toContain('--no-cross-test');
  });
});
