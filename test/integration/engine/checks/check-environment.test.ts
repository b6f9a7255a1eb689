/**
 * Issue 35, "nothing it should not see reaches it": the commands that run an agent's code get
 * hydra's environment without its credentials. A result whose library prints a cloud key of
 * hydra's environment base64-encoded (no token shape for the redaction to catch) prints `absent`
 * in its checks, in the contract's run (it changed the base's test) and in its follow-up round's
 * checks; its new test, cross-tested on the base, does not see the key; the setup of its checks'
 * checkout, of cross-testing's tree and of its follow-up's worktree made again runs its hook
 * without it. Nothing on the disk holds the key, encoded or not. A variable that is no credential
 * (DATABASE_URL) stays. Named in `[race] check_pass_env`, the key reaches all of them (the test
 * can fail). Without the sandbox: the rule does not depend on it (test/system/sandbox/ races the
 * same result in it).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RaceHandle, RaceOptions, RaceSummary } from '../../../../src/engine/index.js';
import { git } from '../../../support/engine-helpers.js';
import { raceScripts } from '../../../support/script-agent.js';
import { agentOf } from '../../../support/race-summary.js';
import {
  CREDENTIAL,
  LEAKY_AGENT,
  NODE_TEST,
  PLAIN,
  SETUP,
  encoded,
  filesHolding,
  makeProject,
  useLeakyRace,
  probeLine,
} from '../../../support/check-env-scenario.js';

const leaky = useLeakyRace();

/** Races the leaky agent; settled, not finished (a round can still start). */
const raceOnly = async (extra: Partial<RaceOptions> = {}): Promise<RaceHandle> => {
  makeProject(leaky.box);
  const started = raceScripts(
    leaky.box,
    { leaky: LEAKY_AGENT },
    { checks: [NODE_TEST], setup: SETUP, ...extra },
  );
  leaky.handle = started;
  await started.settled;
  return started;
};

const race = async (extra: Partial<RaceOptions> = {}): Promise<RaceSummary> =>
  (await raceOnly(extra)).finish();

/** What cross-testing says of the result's new test. */
const newTest = (summary: RaceSummary) =>
  agentOf(summary, 'leaky').newTests?.tests.find((test) => test.file === 'leak.test.js');

/** A setup log of the run's record. */
const setupLog = (runId: string, name: string): string =>
  readFileSync(path.join(leaky.box.repo, '.hydra', 'runs', runId, `setup-${name}.log`), 'utf8');

describe("the checks' environment (issue 35)", () => {
  it('keeps a credential out of the checks, the contract, cross-tests and their setup', async () => {
    const summary = await race();
    const runId = summary.runId;
    const check = agentOf(summary, 'leaky').checks?.[0];
    // The contract ran: the check is its run (the base's test on the result), `own` the result's.
    expect(check?.contract).toEqual(expect.arrayContaining(['lib.test.js']));
    for (const output of [check?.output, check?.own?.output]) {
      expect(output).toContain(probeLine('absent'));
      expect(output).toContain(`plain:${PLAIN}`);
    }
    expect(check?.status, check?.output).toBe('passed');
    // Its test ran on the base (cross-testing) and on its own result without the key.
    expect(newTest(summary)).toMatchObject({ onBase: 'passed', onSelf: 'passed' });
    expect(setupLog(runId, 'check-leaky')).toContain(`hook:${encoded('absent')}`);
    expect(setupLog(runId, 'cross-leaky')).toContain(`hook:${encoded('absent')}`);
    expect(filesHolding(leaky.box.dir, encoded(CREDENTIAL))).toEqual([]);
    expect(filesHolding(leaky.box.dir, CREDENTIAL)).toEqual([]);
  });

  it('keeps it out of a follow-up round: its checks, and the setup of its worktree made again', async () => {
    const raced = await raceOnly();
    // Its worktree gone (removed by hand): the round makes it again on its branch and sets it up.
    const worktree = raced.getSnapshot().agents[0]?.worktree;
    if (worktree === undefined || worktree === null) throw new Error('no worktree');
    git(leaky.box.repo, 'worktree', 'remove', '--force', worktree);
    const round = await raced.startRound({ kind: 'follow_up', agent: 'leaky', prompt: 'again' });
    const check = agentOf(round, 'leaky').checks?.[0];
    expect(check?.output).toContain(probeLine('absent'));
    expect(check?.status, check?.output).toBe('passed');
    expect(setupLog(round.runId, 'leaky')).toContain(`hook:${encoded('absent')}`);
    expect(filesHolding(leaky.box.dir, encoded(CREDENTIAL))).toEqual([]);
  });

  it('gives the checks a credential `[race] check_pass_env` names (the test above can fail)', async () => {
    const summary = await race({ checkPassEnv: ['AWS_SECRET_*'] });
    const check = agentOf(summary, 'leaky').checks?.[0];
    expect(check?.output).toContain(probeLine(CREDENTIAL));
    expect(check?.own?.output).toContain(probeLine(CREDENTIAL));
    expect(newTest(summary)).toMatchObject({ onBase: 'failed', onSelf: 'failed' });
    expect(setupLog(summary.runId, 'check-leaky')).toContain(`hook:${encoded(CREDENTIAL)}`);
    expect(setupLog(summary.runId, 'cross-leaky')).toContain(`hook:${encoded(CREDENTIAL)}`);
  });
});
