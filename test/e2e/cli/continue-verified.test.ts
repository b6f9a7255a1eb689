/**
 * Issue 34, "Follow-ups are verified too": `hydra continue` and `hydra rerun` run the race's checks
 * (a `--check` given to the race included) on the new round, so the round is not "unverified".
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 90_000 });

interface Summary {
  runId: string;
  agents: Array<{
    agent: string;
    checks?: Array<{ name: string; status: string }> | null;
    score?: { verified: boolean } | null;
  }>;
}

const summaryOf = (stdout: string): Summary => parseNdjson(stdout).at(-1) as unknown as Summary;

describe('a follow-up round (issue 34)', () => {
  it("runs the race's --check again on hydra continue and hydra rerun", async () => {
    const marker = path.join(sandbox.dir, 'checks.log');
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 5,
        edits: [{ path: 'first.txt', content: 'round 1\n' }],
        resumedEdits: [{ path: 'second.txt', content: 'round 2\n' }],
      },
      codex: { agent: 'codex', delayMs: 5, edits: [{ path: 'codex.txt', content: 'round 1\n' }] },
    });
    // The check logs the checkout it ran in, and passes where first.txt is.
    const check = `echo "$PWD" >> ${marker}; test -f first.txt`;
    const race = await run(['race', '--json', '--check', check, 'Add first.txt']);
    expect(race.exitCode, race.stderr).toBe(0);
    const { runId } = summaryOf(race.stdout);
    const ranBefore = readFileSync(marker, 'utf8').trim().split('\n').length;

    const followUp = await run(['continue', runId, 'claude', 'Now add second.txt', '--json']);
    expect(followUp.exitCode, followUp.stderr).toBe(0);
    const claude = summaryOf(followUp.stdout).agents.find((agent) => agent.agent === 'claude');
    expect(claude?.checks?.map((item) => item.status)).toEqual(['passed']);
    expect(claude?.score?.verified).toBe(true);
    const ranAfter = readFileSync(marker, 'utf8').trim().split('\n');
    expect(ranAfter.slice(ranBefore).map((line) => path.basename(line))).toContain('.checks-claude');

    const rerun = await run(['rerun', runId, 'codex', '--json']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const again = summaryOf(rerun.stdout).agents.find((agent) => agent.agent === 'codex-2');
    expect(again?.checks?.map((item) => item.status)).toEqual(['failed']);
    expect(again?.score?.verified).toBe(true);
    expect(existsSync(marker)).toBe(true);
  }, 240_000);
});
