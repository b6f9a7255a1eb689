/**
 * `hydra continue`, `hydra rerun` and `hydra show` after the user's branch moved on (issue 24,
 * case 1): every diff, the rerun's new branch and the printed hint are against the race's base
 * commit, never the current HEAD, so the user's later commit never shows reversed as an agent's change.
 */
import { writeFileSync } from 'node:fs';
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

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 90_000 });

interface SummaryAgent {
  agent: string;
  status: string;
  diff: { filesChanged: number; insertions: number; deletions: number };
}

const summaryOf = (stdout: string): { agents: SummaryAgent[] } =>
  parseNdjson(stdout).at(-1) as unknown as { agents: SummaryAgent[] };

/** A race of two agents, then a commit of the user's on main: the base is no longer HEAD. */
async function raceThenMoveOn(): Promise<{ runId: string; base: string }> {
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5, edits: [{ path: 'claude.txt', content: 'claude\n' }] },
    codex: {
      agent: 'codex',
      delayMs: 5,
      edits: [{ path: 'codex.txt', content: 'codex\n' }],
      resumedEdits: [{ path: 'codex-2.txt', content: 'more\n' }],
    },
  });
  const base = git(repo, ['rev-parse', 'HEAD']);
  const raced = await run(['race', '--json', 'Add a file']);
  expect(raced.exitCode, raced.stderr).toBe(0);
  const runId = String(parseNdjson(raced.stdout)[0]?.['runId']);
  writeFileSync(path.join(repo, 'README.md'), '# test repo\nthe user went on\n');
  writeFileSync(path.join(repo, 'user.txt'), 'mine\n');
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'the user moves on']);
  return { runId, base };
}

describe('a run whose base branch moved on', () => {
  it('continues an agent and diffs its result against the race’s base, and the hint names that base', async () => {
    const { runId, base } = await raceThenMoveOn();

    const result = await run(['continue', runId, 'codex', 'Go on', '--json']);

    expect(result.exitCode, result.stderr).toBe(0);
    expect(parseNdjson(result.stdout)[0]).toMatchObject({ type: 'race', baseRef: base });
    const summary = summaryOf(result.stdout);
    // codex.txt and codex-2.txt: not the user's README line and user.txt, reversed.
    expect(summary.agents.find((agent) => agent.agent === 'codex')?.diff).toEqual({
      filesChanged: 2,
      insertions: 2,
      deletions: 0,
    });
    expect(result.stderr).toContain(`git diff ${base.slice(0, 7)}`);
    expect(result.stderr).not.toContain(`git diff ${git(repo, ['rev-parse', '--short=7', 'HEAD'])}`);
    const shown = (await run(['show', runId])).stdout;
    expect(shown).toMatch(/codex +completed .* 2 files \+2 -0/);
  }, 120_000);

  it('reruns an agent from the race’s base, not from the current HEAD', async () => {
    const { runId, base } = await raceThenMoveOn();

    const result = await run(['rerun', runId, 'claude', '--json']);

    expect(result.exitCode, result.stderr).toBe(0);
    const branch = `hydra/${runId}/claude-2`;
    expect(git(repo, ['rev-parse', `${branch}~1`])).toBe(base);
    expect(git(repo, ['ls-tree', '-r', '--name-only', branch]).split('\n')).not.toContain('user.txt');
    expect(summaryOf(result.stdout).agents.find((agent) => agent.agent === 'claude-2')?.diff).toEqual({
      filesChanged: 1,
      insertions: 1,
      deletions: 0,
    });
  }, 120_000);
});
