/**
 * `hydra continue` on an agent whose branch was deleted after the race (issue 24, case 2): the
 * round cannot start, and the command says so and fails, instead of exiting 0 with the deleted
 * branch printed as the result.
 */
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

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 90_000 });

describe('hydra continue after the agent’s branch was deleted', () => {
  it('exits non-zero with a message and a hint, and names no deleted branch as a result', async () => {
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', delayMs: 5, edits: [{ path: 'first.txt', content: 'round 1\n' }] },
    });
    const raced = await run(['race', '--json', '--agents', 'claude', 'Add a file']);
    expect(raced.exitCode, raced.stderr).toBe(0);
    const runId = String(parseNdjson(raced.stdout)[0]?.['runId']);
    git(repo, ['branch', '-D', `hydra/${runId}/claude`]);

    const result = await run(['continue', runId, 'claude', 'Go on', '--json']);

    expect(result.exitCode, result.stdout + result.stderr).not.toBe(0);
    expect(result.stderr).toContain(`claude has no result in run ${runId} to work on`);
    expect(result.stderr).toContain('hint:');
    expect(result.stderr).not.toContain(`branch hydra/${runId}/claude`);
    const summary = parseNdjson(result.stdout).at(-1) as { type: string; error: unknown };
    expect(summary.type).toBe('summary');
    expect(summary.error).toMatchObject({ message: expect.stringContaining('has no result') });
  });

  it('hydra rerun of that agent fails the same way', async () => {
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', delayMs: 5, edits: [{ path: 'first.txt', content: 'round 1\n' }] },
    });
    const raced = await run(['race', '--json', '--agents', 'claude', 'Add a file']);
    expect(raced.exitCode, raced.stderr).toBe(0);
    const runId = String(parseNdjson(raced.stdout)[0]?.['runId']);
    git(repo, ['branch', '-D', `hydra/${runId}/claude`]);

    const result = await run(['rerun', runId, 'claude', '--json']);

    expect(result.exitCode, result.stdout + result.stderr).not.toBe(0);
    expect(result.stderr).toContain(`claude has no result in run ${runId} to work on`);
    expect(result.stderr).toContain('hint:');
  }, 120_000);
});
