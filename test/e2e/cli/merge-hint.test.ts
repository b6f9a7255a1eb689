/**
 * The hint after a headless race names the result to merge: the top score (not the first agent),
 * and on a detached HEAD, where `hydra merge` has no branch to merge into, what works there.
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
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5, edits: [{ path: 'claude.txt', content: 'claude\n' }] },
    codex: { agent: 'codex', delayMs: 40, edits: [{ path: 'codex.txt', content: 'codex\n' }] },
  });
});

afterEach(() => sandbox.cleanup());

// Only codex's result passes the gate: codex is the top score, claude the first agent.
const race = () =>
  hydra(['race', '--json', '--check', 'test -f codex.txt', 'Add a file'], {
    cwd: repo,
    env: sandbox.env,
    timeoutMs: 90_000,
  });

describe('the merge hint after a race', () => {
  it('names the top scorer, not the first agent', async () => {
    const result = await race();

    const runId = String(parseNdjson(result.stdout)[0]?.['runId']);
    expect(result.stderr).toContain(`merge one with: hydra merge ${runId} codex`);
  }, 90_000);

  it('on a detached HEAD says to switch to a branch first, or to the result’s branch', async () => {
    git(repo, ['checkout', '--quiet', '--detach']);

    const result = await race();

    const runId = String(parseNdjson(result.stdout)[0]?.['runId']);
    expect(result.stderr).not.toContain('merge one with:');
    expect(result.stderr).toContain('HEAD is detached, so there is no branch to merge into');
    expect(result.stderr).toContain(`git switch hydra/${runId}/codex`);
  }, 90_000);
});
