/**
 * A race's `--runner` holds for its follow-ups and reruns: `hydra continue` and `hydra rerun`
 * without `--runner` run the agent where the race ran it (its session store is there), not where
 * the config alone would put it. Shown without an engine: the config says `container` with an
 * image no engine has, the race says `--runner local`, and every round must then run on this
 * machine (a round that took the config's runner would stop on the missing image).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', edits: [{ path: 'claude.txt', content: 'claude\n' }] },
  });
});

afterEach(() => sandbox.cleanup());

const summaryAgents = (stdout: string): Array<Record<string, unknown>> =>
  (parseNdjson(stdout).at(-1)?.['agents'] ?? []) as Array<Record<string, unknown>>;

describe('a race run with --runner', () => {
  it('continue and rerun keep the race’s --runner when they are not given one', async () => {
    const config = path.join(sandbox.dir, 'hydra.toml');
    writeFileSync(
      config,
      [
        '[race]',
        'agents = ["claude"]',
        'runner = "container"',
        '',
        '[container]',
        'image = "hydra-trial-no-such-image:none"',
        'network = "none"',
        '',
      ].join('\n'),
    );
    const options = { cwd: repo, env: sandbox.env, timeoutMs: 120_000 };
    const race = await hydra(
      ['race', '--json', '--config', config, '--runner', 'local', 'Add a file'],
      options,
    );
    expect(race.exitCode, race.stderr).toBe(0);
    const runId = String(parseNdjson(race.stdout)[0]?.['runId']);

    const next = await hydra(
      ['continue', runId, 'claude', '--json', '--config', config, '--', '-then one more'],
      options,
    );

    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('hydra-trial-no-such-image');
    const claude = summaryAgents(next.stdout).find((agent) => agent['agent'] === 'claude');
    expect(claude?.['status']).toBe('completed');
    expect(claude?.['runner']).toBeUndefined();

    const again = await hydra(['rerun', runId, 'claude', '--json', '--config', config], options);

    expect(again.exitCode, again.stderr).toBe(0);
    const rerun = summaryAgents(again.stdout).find((agent) => agent['agent'] === 'claude-2');
    expect(rerun?.['status']).toBe('completed');
    expect(rerun?.['runner']).toBeUndefined();
  }, 240_000);
});
