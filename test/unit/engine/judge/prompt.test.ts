/** The judge's prompt tells it which tests each result changed (issue 34, --allow-test-changes). */
import { describe, expect, it } from 'vitest';
import { judgePrompt } from '../../../../src/engine/judge/prompt.js';
import type { CheckSummary } from '../../../../src/engine/index.js';

const check = (status: CheckSummary['status'], extra: Partial<CheckSummary> = {}): CheckSummary => ({
  name: 'test',
  gate: true,
  status,
  exitCode: status === 'passed' ? 0 : 1,
  durationMs: 10,
  tests: { passed: 1, failed: status === 'passed' ? 0 : 1, skipped: 0 },
  newlyFailing: null,
  newlyPassing: null,
  output: '',
  ...extra,
});

describe('the judge prompt', () => {
  it("shows both runs and what a result changed of the base's tests", () => {
    const prompt = judgePrompt(
      'Make applyDiscount take a fraction',
      [
        {
          label: 'result-1',
          patch: '+x',
          checks: [
            check('failed', {
              own: {
                status: 'passed',
                exitCode: 0,
                durationMs: 10,
                tests: { passed: 2, failed: 0, skipped: 0 },
                output: '',
              },
              contract: ['lib.test.js'],
            }),
          ],
        },
        { label: 'result-2', patch: '+y', checks: [check('passed')] },
      ],
      'n0nce',
    );
    expect(prompt).toContain(
      "test: passed, 2 passed, 0 failed with its own tests; failed, 1 passed, 1 failed with the base's tests\nchanged the base's tests: lib.test.js",
    );
    expect(prompt).toContain('test: passed, 1 passed, 0 failed\ndiff:');
    expect(prompt).toContain('judge whether those changes follow from the task');
  });

  it('says nothing of changed tests when no result changed them', () => {
    const prompt = judgePrompt('t', [{ label: 'result-1', patch: '+x', checks: [check('passed')] }], 'n');
    expect(prompt).not.toContain("base's tests");
  });
});
