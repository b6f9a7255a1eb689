/**
 * Issue 35, the checks' environment, in a container: a check of a container agent gets none of
 * this machine's environment but the variables `[race] check_pass_env` names, each passed with
 * `-e NAME` (its value never on a command line). A check that prints a passed token and a cloud
 * key (cut in two, past the redaction) sees the first and not the second. Without an engine these
 * tests fail, naming .ci/run's docker set-up (HYDRA_TEST_DOCKER=0 leaves them out on purpose).
 */
import { describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { leftovers, useContainerRepo } from '../../support/container-helpers.js';
import { createLimiter, createProcessRegistry } from '../../../src/engine/process/index.js';
import { runCheck } from '../../../src/engine/checks/runner.js';
import { DEFAULT_HOST } from '../../../src/engine/container/index.js';

let image = '';
let repo: string;
let sandbox: Sandbox;
const enabled = useContainerRepo((made) => ({ image, sandbox, repo } = made));

const NPM_TOKEN = 'npm_checkenv_passed_4b1e';
const AWS_KEY = 'aws-checkenv-kept-out-9f3a';
/** What the check prints of a value: its first four characters, a bar, the rest (past the redaction). */
const split = (text: string): string => `${text.slice(0, 4)}|${text.slice(4)}`;

describe.runIf(enabled)("a container check's environment", { timeout: 300_000 }, () => {
  it('holds the variables check_pass_env names, and no other credential of this machine', async () => {
    expect(sandbox.dir).toBeTruthy();
    vi.stubEnv('NPM_TOKEN', NPM_TOKEN);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', AWS_KEY);
    try {
      const run = await runCheck(
        {
          name: 'env',
          run: 'sh -c \'n=${NPM_TOKEN:-absent}; a=${AWS_SECRET_ACCESS_KEY:-absent}; echo "npm:${n%"${n#????}"}|${n#????} aws:${a%"${a#????}"}|${a#????}"\'',
          timeoutMs: 120_000,
          gate: false,
        },
        {
          cwd: repo,
          runId: 'r-checkenv',
          owner: 'check:claude',
          processes: createProcessRegistry(),
          slots: createLimiter(1),
          graceMs: 1000,
          environment: { pass: ['NPM_TOKEN'] },
          container: {
            host: DEFAULT_HOST,
            image,
            network: 'none',
            runId: 'r-checkenv',
            agent: 'claude',
            repoRoot: repo,
          },
        },
      );
      expect(run.where).toBe('container');
      expect(run.status, run.output).toBe('passed');
      expect(run.output).toContain(`npm:${split(NPM_TOKEN)} aws:${split('absent')}`);
      expect(leftovers(repo).containers).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
