/**
 * `--stop first-verified`: once one result passes every check, the agents still running are stopped
 * after the grace (`[race] stop_grace_s`), their work kept on their branches; the summary says who
 * was stopped and what it saved against the ledger's median cost.
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
import { writeRunRecord } from '../../support/ledger-records.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  // claude finishes at once; codex writes two lines, then hangs (until its 300 s idle timeout).
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5 },
    codex: { agent: 'codex', delayMs: 5, hangAfterLines: 2 },
  });
  writeFileSync(path.join(repo, 'hydra.toml'), '[race]\nstop_grace_s = 0\n');
});

afterEach(() => sandbox.cleanup());

interface Summary {
  type: string;
  runId: string;
  agents: Array<{ agent: string; status: string; branch: string | null; error?: { message: string } }>;
  stoppedEarly?: { by: string; agents: string[]; savedUsd: number | null };
}

const race = (args: string[]) =>
  hydra(['race', '--json', '--agents', 'claude,codex', '--check', 'true', ...args, 'Add a hello.txt file'], {
    cwd: repo,
    env: sandbox.env,
    timeoutMs: 120_000,
  });

describe('--stop first-verified', () => {
  it('stops the others once a result passes every check, keeping their branches, and says what it saved', async () => {
    // codex's history here: a median of $0.50 a race.
    for (const [index, cost] of [0.4, 0.5, 0.9].entries())
      writeRunRecord(repo, {
        runId: `2026110${index + 1}-100000-ab0${index}`,
        agents: [{ agent: 'codex', costUsd: cost }],
      });

    const result = await race(['--stop', 'first-verified']);

    expect(result.exitCode, result.stderr).toBe(0);
    const summary = parseNdjson(result.stdout).at(-1) as unknown as Summary;
    const codex = summary.agents.find((agent) => agent.agent === 'codex');
    expect(summary.agents.find((agent) => agent.agent === 'claude')?.status).toBe('completed');
    expect(codex?.status).toBe('cancelled');
    expect(codex?.error?.message).toContain('stopped early: another agent');
    expect(summary.stoppedEarly?.by).toBe('claude');
    expect(summary.stoppedEarly?.agents).toEqual(['codex']);
    // Its median less what it spent before the stop (the fake reports no cost before its result).
    expect(summary.stoppedEarly?.savedUsd).toBeCloseTo(0.5);
    expect(git(repo, ['branch', '--list', `hydra/${summary.runId}/codex`])).toContain('codex');
    expect(result.stderr).toContain("claude's result passed every check first: codex was stopped early");
    expect(result.stderr).toContain('saved about $0.50 against its median cost a race (hydra stats)');
  });

  it('refuses a --stop it does not know', async () => {
    const result = await race(['--stop', 'first']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--stop must be "first-verified" or "never" (got "first")');
  });
});
