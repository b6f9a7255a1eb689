/**
 * Issue 35, the checks' environment, in the sandbox: the race of
 * test/integration/engine/checks/check-environment.test.ts (a result whose code prints a cloud key
 * of hydra's environment, base64-encoded) with its agent, checks, contract, cross-testing and
 * setup in bubblewrap. The rule is the same: nothing of the key reaches an output or the disk, and
 * named in `check_pass_env` it does (the test can fail).
 * Needs bubblewrap, socat and ripgrep (.ci/run installs them).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RaceOptions, RaceSummary } from '../../../src/engine/index.js';
import { raceScripts } from '../../support/script-agent.js';
import { agentOf } from '../../support/race-summary.js';
import {
  CREDENTIAL,
  CREDENTIAL_NAME,
  LEAKY_AGENT,
  NODE_TEST,
  PLAIN,
  SETUP,
  encoded,
  filesHolding,
  makeProject,
  useLeakyRace,
  probeLine,
} from '../../support/check-env-scenario.js';

const leaky = useLeakyRace();

const race = async (extra: Partial<RaceOptions> = {}): Promise<RaceSummary> => {
  makeProject(leaky.box);
  leaky.handle = raceScripts(
    leaky.box,
    { leaky: LEAKY_AGENT },
    {
      checks: [NODE_TEST],
      setup: SETUP,
      sandbox: { mode: 'required', allowHosts: [], allowWrite: [] },
      ...extra,
    },
  );
  await leaky.handle.settled;
  return leaky.handle.finish();
};

const setupLog = (runId: string, name: string): string =>
  readFileSync(path.join(leaky.box.repo, '.hydra', 'runs', runId, `setup-${name}.log`), 'utf8');

const newTest = (summary: RaceSummary) =>
  agentOf(summary, 'leaky').newTests?.tests.find((test) => test.file === 'leak.test.js');

describe("the checks' environment in the sandbox (issue 35)", () => {
  it(
    'keeps the key out of the checks, the contract, cross-tests and their setup',
    { timeout: 240_000 },
    async () => {
      const summary = await race();
      expect(agentOf(summary, 'leaky').sandbox).toBe('bubblewrap');
      const check = agentOf(summary, 'leaky').checks?.[0];
      expect(check?.contract).toEqual(expect.arrayContaining(['lib.test.js']));
      for (const output of [check?.output, check?.own?.output]) {
        expect(output).toContain(probeLine('absent'));
        expect(output).toContain(`plain:${PLAIN}`);
      }
      expect(newTest(summary)).toMatchObject({ onBase: 'passed', onSelf: 'passed' });
      expect(setupLog(summary.runId, 'check-leaky')).toContain(`hook:${encoded('absent')}`);
      expect(setupLog(summary.runId, 'cross-leaky')).toContain(`hook:${encoded('absent')}`);
      expect(filesHolding(leaky.box.dir, encoded(CREDENTIAL))).toEqual([]);
    },
  );

  it('gives them the key check_pass_env names (the test above can fail)', { timeout: 240_000 }, async () => {
    const summary = await race({ checkPassEnv: [CREDENTIAL_NAME] });
    const check = agentOf(summary, 'leaky').checks?.[0];
    expect(check?.output).toContain(probeLine(CREDENTIAL));
    expect(newTest(summary)).toMatchObject({ onBase: 'failed', onSelf: 'failed' });
    expect(setupLog(summary.runId, 'cross-leaky')).toContain(`hook:${encoded(CREDENTIAL)}`);
  });
});
