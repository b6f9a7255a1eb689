/**
 * `hydra race --agents auto`: the agents with the most verified wins per dollar in this
 * repository's records race, and the race's header says why; with no history, the default race.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';
import { writeRunRecord } from '../../support/ledger-records.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5 },
    codex: { agent: 'codex', delayMs: 5 },
  });
});

afterEach(() => sandbox.cleanup());

const race = (args: string[]) =>
  hydra(['race', '--json', ...args, 'Add a hello.txt file'], {
    cwd: repo,
    env: sandbox.env,
    timeoutMs: 90_000,
  });

/** Three races codex won (checks passed, $0.10 each) and claude lost ($0.40 each). */
const codexWins = (): void => {
  for (const index of [1, 2, 3])
    writeRunRecord(repo, {
      runId: `2026110${index}-100000-ab0${index}`,
      agents: [
        { agent: 'claude', checks: 'failed', costUsd: 0.4 },
        { agent: 'codex', checks: 'passed', total: 80, costUsd: 0.1 },
      ],
    });
};

const raceLine = (stdout: string): { agents: string[]; warnings?: string[] } =>
  parseNdjson(stdout)[0] as { agents: string[]; warnings?: string[] };

describe('--agents auto', () => {
  it('races the agent with the most verified wins per dollar here, saying why', async () => {
    codexWins();
    const result = await race(['--agents', 'auto:1']);
    expect(result.exitCode, result.stderr).toBe(0);
    const line = raceLine(result.stdout);
    expect(line.agents).toEqual(['codex']);
    expect(line.warnings).toContain(
      '--agents auto: chose codex: 3 verified wins in 3 races here ($0.100 a race, $0.100 a verified win)',
    );
    expect(result.stderr).toContain('--agents auto: chose codex');
  });

  it('races the default agents while there is no history, and says so', async () => {
    const result = await race(['--agents', 'auto']);
    expect(result.exitCode, result.stderr).toBe(0);
    const line = raceLine(result.stdout);
    expect(line.agents).toEqual(['claude', 'codex']);
    expect(line.warnings).toContain(
      '--agents auto: raced the default agents: too little history to choose by record',
    );
  });

  it('refuses auto beside named agents, and an auto:N out of range', async () => {
    const beside = await race(['--agents', 'auto,claude']);
    expect(beside.exitCode).toBe(2);
    expect(beside.stderr).toContain('--agents auto chooses every agent of the race by record');
    const zero = await race(['--agents', 'auto:0']);
    expect(zero.exitCode).toBe(2);
    expect(zero.stderr).toContain('auto:N needs a number of agents from 1 to 9');
  });
});
