/** A per-agent check is compared with the baseline only when it is the same check: same name and command. */
import { describe, expect, it } from 'vitest';
import { summarizeChecks } from '../../../../src/engine/checks/index.js';
import type { CheckRun } from '../../../../src/engine/index.js';

const run = (command: string, failedNames: string[], passedNames: string[]): CheckRun => ({
  name: 'test',
  run: command,
  gate: false,
  status: failedNames.length === 0 ? 'passed' : 'failed',
  exitCode: failedNames.length === 0 ? 0 : 1,
  durationMs: 10,
  tests: {
    runner: 'node',
    passed: passedNames.length,
    failed: failedNames.length,
    skipped: 0,
    failedNames,
    passedNames,
  },
  output: '',
});

describe('newly failing against the baseline', () => {
  const baseline = [run('npm test', [], ['adds', 'multiplies'])];

  it('compares a check of the same name and command', () => {
    const [summary] = summarizeChecks([run('npm test', ['adds'], ['multiplies'])], baseline);
    expect(summary?.newlyFailing).toEqual(['adds']);
  });

  it("does not compare an agent's own command for a check of the same name", () => {
    const [summary] = summarizeChecks([run('pytest -q', ['adds'], ['multiplies'])], baseline);
    expect(summary?.newlyFailing).toBeNull();
    expect(summary?.newlyPassing).toBeNull();
  });
});
