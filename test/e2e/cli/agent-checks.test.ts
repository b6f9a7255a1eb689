/**
 * Per-agent checks end to end: two named agents over one fake Claude CLI, one with its own command
 * for a race-wide check and a check of its own. Each result shows its own checks, the baseline the
 * race-wide ones only, and a check whose command differs from the baseline's is not compared with it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckSummary } from '../../../src/engine/index.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5, edits: [{ path: 'hello.txt', content: 'hello\n' }] },
  });
});

afterEach(() => sandbox.cleanup());

// `--config` is the user's own file: trusted, so its checks run.
const CONFIG =
  '[race]\nagents = ["py", "js"]\n\n' +
  '[[checks]]\nname = "test"\nrun = "echo race-wide test"\ngate = true\n\n' +
  '[agents.py]\nadapter = "claude"\nmodel = "claude-sonnet-4-5"\n\n' +
  '[[agents.py.checks]]\nname = "test"\nrun = "sh -c \'echo py test; exit 3\'"\n\n' +
  '[[agents.py.checks]]\nname = "types"\nrun = "echo py types"\n\n' +
  '[agents.js]\nadapter = "claude"\nmodel = "claude-opus-4-5"\n';

type Recorded = {
  runId: string;
  agents: Array<{ agent: string; checks?: CheckSummary[]; score?: { gates: { failed: string[] } } }>;
  baseline?: { status?: string; checks: CheckSummary[] };
};

describe('per-agent checks in a race', () => {
  it('runs each named agent its own checks over one CLI; the baseline runs the race-wide ones', async () => {
    const configFile = path.join(sandbox.dir, 'hydra.toml');
    writeFileSync(configFile, CONFIG);
    const result = await hydra(['race', '--json', '--config', configFile, 'Add a hello.txt file'], {
      cwd: repo,
      env: sandbox.env,
      timeoutMs: 90_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);

    const summary = parseNdjson(result.stdout).at(-1) as unknown as {
      runId: string;
      agents: Array<{ agent: string; checks?: Array<{ name: string; status: string; exitCode: number }> }>;
      baseline?: { checks: Array<{ name: string; status: string }> };
    };
    const checksOf = (agent: string) =>
      summary.agents
        .find((item) => item.agent === agent)
        ?.checks?.map((check) => [check.name, check.status, check.exitCode]);
    expect(checksOf('py')).toEqual([
      ['test', 'failed', 3],
      ['types', 'passed', 0],
    ]);
    expect(checksOf('js')).toEqual([['test', 'passed', 0]]);
    expect(summary.baseline?.checks.map((check) => [check.name, check.status])).toEqual([['test', 'passed']]);

    // The record keeps each check's output: each agent's own command ran in its own worktree.
    const record = JSON.parse(
      readFileSync(path.join(repo, '.hydra', 'runs', summary.runId, 'summary.json'), 'utf8'),
    ) as Recorded;
    const outputOf = (agent: string) =>
      record.agents.find((item) => item.agent === agent)?.checks?.map((check) => check.output.trim());
    expect(outputOf('py')).toEqual(['py test', 'py types']);
    expect(outputOf('js')).toEqual(['race-wide test']);
    expect(record.baseline?.checks.map((check) => check.output.trim())).toEqual(['race-wide test']);
    // py's own command for the race's gate is still a gate: failing it fails the gate.
    expect(record.agents.find((item) => item.agent === 'py')?.score?.gates.failed).toEqual(['test']);
    expect(record.agents.find((item) => item.agent === 'js')?.score?.gates.failed).toEqual([]);
  });
});
