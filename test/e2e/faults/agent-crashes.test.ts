/**
 * Agents that end badly on their own: killed by a signal halfway through the stream, or exiting 0
 * without ever printing a result. Each ends failed with a typed error and a hint, the other agent
 * of the race is unaffected, and nothing is left behind.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/demo/fake-bin.js';
import {
  expectAgentsSettled,
  expectFaultSurvived,
  faultSandbox,
  raceFault,
} from '../../support/fault-race.js';
import type { FaultSandbox } from '../../support/fault-race.js';

let sandbox: FaultSandbox;

afterEach(() => sandbox.cleanup());

describe.each(['SIGKILL', 'SIGSEGV'] as const)(
  'an agent killed by %s halfway through its stream',
  (signal) => {
    it('ends failed with the signal named and a hint; the other agent completes; nothing is left', async () => {
      sandbox = await faultSandbox();

      const race = await raceFault(sandbox, {
        claude: { signalAfterLines: { lines: 3, signal }, stderr: 'about to crash\n' },
        codex: {},
      });

      expectAgentsSettled(race, ['claude', 'codex']);
      const claude = race.agents.find((agent) => agent.agent === 'claude');
      expect(claude).toMatchObject({ status: 'failed', error: { kind: 'AgentFailed' } });
      expect(claude?.error?.message).toContain(`was killed by ${signal}`);
      expect(race.agents.find((agent) => agent.agent === 'codex')?.status).toBe('completed');
      expect(race.exitCode, race.stderr).toBe(0);
      await expectFaultSurvived(sandbox, race);
    });
  },
);

describe('an agent that exits 0 without a result', () => {
  it('ends failed as a stream without a result, with a hint, and nothing is left', async () => {
    sandbox = await faultSandbox();
    const stream = readFileSync(
      path.join(packageRoot(), 'fixtures', 'adapters', 'claude', 'streams', 'success-edit.jsonl'),
      'utf8',
    );
    const withoutResult = stream
      .split('\n')
      .filter((line) => line !== '' && !line.includes('"type":"result"'));

    const race = await raceFault(sandbox, { claude: { lines: withoutResult, exitCode: 0 } });

    expectAgentsSettled(race, ['claude']);
    expect(race.agents[0]).toMatchObject({
      status: 'failed',
      exitCode: 0,
      error: { kind: 'StreamParseError' },
    });
    expect(race.agents[0]?.error?.message).toMatch(/exited without a result/);
    expect(race.exitCode).toBe(1);
    await expectFaultSurvived(sandbox, race);
  });
});
