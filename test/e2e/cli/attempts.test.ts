/**
 * `hydra race --attempts N`: while no result passes every check, another attempt (a rerun on a new
 * branch) of the agent with the best record, given the failing checks' output; up to N in all,
 * and never past the budget.
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

let sandbox: Sandbox;
let repo: string;
let argvLog: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  argvLog = path.join(sandbox.dir, 'argv.jsonl');
  // The fake claude writes hello.txt and reports $0.0126 a run; the check wants a file it never writes.
  await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5, logArgvTo: argvLog } });
});

afterEach(() => sandbox.cleanup());

interface Summary {
  agents: Array<{ agent: string; status: string }>;
}

const race = (args: string[]) =>
  hydra(
    ['race', '--json', '--agents', 'claude', '--check', 'test -f done.txt', ...args, 'Add a hello.txt file'],
    { cwd: repo, env: sandbox.env, timeoutMs: 180_000 },
  );

const agentsOf = (stdout: string): string[] =>
  (parseNdjson(stdout).at(-1) as unknown as Summary).agents.map((agent) => agent.agent);

describe('--attempts', () => {
  it('tries again, given the failing check, until N attempts were made', async () => {
    const result = await race(['--attempts', '3']);

    expect(result.exitCode, result.stderr).toBe(0);
    expect(agentsOf(result.stdout)).toEqual(['claude', 'claude-2', 'claude-3']);
    expect(result.stderr).toContain('attempt 2 of 3: claude again');
    expect(result.stderr).toContain('--attempts: 3 attempts made, none passed every check');
    const prompts = readFileSync(argvLog, 'utf8').trim().split('\n');
    expect(prompts).toHaveLength(3);
    expect(prompts[1]).toContain('did not pass these checks');
    expect(prompts[1]).toContain('Check \\"test-f-done.txt\\" failed (exit code 1)');
  });

  it('stops when another attempt would pass the budget', async () => {
    // $0.0126 an attempt: a second fits in $0.03, a third does not.
    const result = await race(['--attempts', '5', '--max-cost-usd', '0.03']);

    expect(result.exitCode, result.stderr).toBe(0);
    expect(agentsOf(result.stdout)).toEqual(['claude', 'claude-2']);
    expect(result.stderr).toMatch(
      /another attempt of claude \(about \$0\.0126\) would pass --max-cost-usd \$0\.03/,
    );
  });

  it('--auto-merge best decides after the last attempt, not at the first review: the attempt that passed is merged', async () => {
    // The check passes only for the second attempt (its checks run as HYDRA_AGENT=claude-2).
    const result = await hydra(
      [
        'race',
        '--json',
        '--agents',
        'claude',
        '--check',
        'test "$HYDRA_AGENT" = claude-2',
        '--attempts',
        '3',
        '--auto-merge',
        'best',
        'Add a hello.txt file',
      ],
      { cwd: repo, env: sandbox.env, timeoutMs: 180_000 },
    );

    expect(result.exitCode, result.stderr).toBe(0);
    const summary = parseNdjson(result.stdout).at(-1) as unknown as Summary & {
      merged: { agent: string } | null;
    };
    expect(summary.agents.map((agent) => agent.agent)).toEqual(['claude', 'claude-2']);
    expect(summary.merged?.agent).toBe('claude-2');
    expect(git(repo, ['log', '-1', '--format=%s', 'main'])).not.toBe('');
    expect(git(repo, ['ls-tree', '--name-only', 'main'])).toContain('hello.txt');
  });

  it('refuses an --attempts out of range', async () => {
    const result = await race(['--attempts', '0']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--attempts must be a whole number of attempts from 1 to 9');
  });
});
