/**
 * `hydra demo "<prompt>" --check ...` on the user's own project: the simulated agents race in a
 * copy of the repository (its checkout untouched, its ignored `.worktreeinclude` files copied) or,
 * with --here, in it; the checks, the baseline, the scores and `--auto-merge best` are real.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, git, hydra, parseNdjson } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  // The project's check needs an ignored .env that .worktreeinclude names.
  writeFileSync(path.join(repo, '.gitignore'), '.env\n');
  writeFileSync(path.join(repo, '.worktreeinclude'), '.env\n');
  git(repo, ['add', '.gitignore', '.worktreeinclude']);
  git(repo, ['commit', '--quiet', '-m', 'env']);
  writeFileSync(path.join(repo, '.env'), 'TOKEN=local\n');
});

afterEach(() => sandbox.cleanup());

type Summary = {
  type: string;
  agents: Array<{ agent: string; checks?: Array<{ name: string; status: string }> }>;
  baseline?: { checks: Array<{ status: string }> };
  merged?: { agent: string } | null;
  mergeReason?: string;
};

const summaryOf = (stdout: string): Summary => parseNdjson(stdout).at(-1) as unknown as Summary;

const CHECK = 'test -f hello.txt && test -f .env';

describe('hydra demo on your own project', () => {
  it('races a copy of the repository with your prompt and check; your checkout is not touched', async () => {
    const head = git(repo, ['rev-parse', 'HEAD']);
    const result = await hydra(
      [
        'demo',
        'Add a greeting',
        '--check',
        CHECK,
        '--agents',
        'claude,codex',
        '--auto-merge',
        'best',
        '--json',
      ],
      { cwd: repo, env: sandbox.env, timeoutMs: 90_000 },
    );

    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/hydra demo: a copy of \S+ at (\S+) \(its committed HEAD/);
    const summary = summaryOf(result.stdout);
    expect(summary.agents.map((agent) => agent.agent)).toEqual(['claude', 'codex']);
    // The check ran on each result (with the copied .env) and on the base, where it fails.
    for (const agent of summary.agents) expect(agent.checks?.[0]?.status).toBe('passed');
    expect(summary.baseline?.checks[0]?.status).toBe('failed');
    // The two simulated results pass the same check with diffs of the same size, each its own
    // change: only time and cost tell them apart, so --auto-merge best merges neither and says why.
    expect(summary.merged).toBeNull();
    expect(summary.mergeReason).toMatch(
      /pass the same checks with diffs of the same size: only time and cost/,
    );
    // The user's repository has no race at all.
    expect(git(repo, ['rev-parse', 'HEAD'])).toBe(head);
    expect(git(repo, ['branch', '--list', 'hydra/*'])).toBe('');
    expect(existsSync(path.join(repo, 'hello.txt'))).toBe(false);
    expect(existsSync(path.join(repo, '.hydra'))).toBe(false);
  }, 90_000);

  it('with --here races in the repository itself, the prompt recorded as given', async () => {
    const result = await hydra(
      ['demo', 'Add a greeting', '--here', '--check', CHECK, '--agents', 'gemini', '--json'],
      {
        cwd: repo,
        env: sandbox.env,
        timeoutMs: 90_000,
      },
    );

    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain('whatever the prompt; your checks, cross-testing and the merge are real');
    const summary = summaryOf(result.stdout);
    expect(summary.agents.map((agent) => [agent.agent, agent.checks?.[0]?.status])).toEqual([
      ['gemini', 'passed'],
    ]);
    expect(git(repo, ['branch', '--list', 'hydra/*'])).toContain('/gemini');
    const shown = await hydra(['show', 'last'], { cwd: repo, env: sandbox.env });
    expect(shown.stdout).toContain('Add a greeting');
  }, 90_000);

  it('refuses a flag a race of simulated agents has no use for', async () => {
    const result = await hydra(['demo', 'Add a greeting', '--model', 'claude=opus'], {
      cwd: repo,
      env: sandbox.env,
    });

    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--model');
  });
});
