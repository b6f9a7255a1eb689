/**
 * Agents that resist being stopped: one that ignores SIGTERM (killed once the grace is over), and
 * ones that fork background children into their process group, children that ignore SIGTERM and
 * SIGHUP and have children of their own. After the race, none of them is alive.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectAgentsSettled,
  expectFaultSurvived,
  faultSandbox,
  raceFault,
} from '../../support/fault-race.js';
import type { FaultSandbox } from '../../support/fault-race.js';

let sandbox: FaultSandbox;

afterEach(() => sandbox.cleanup());

describe('an agent that ignores SIGTERM', () => {
  it('is killed once the grace period is over and ends timed out with a hint', async () => {
    sandbox = await faultSandbox();

    const race = await raceFault(sandbox, { claude: { hangAfterLines: 2, ignoreSigterm: true }, codex: {} }, [
      '--idle-timeout',
      '0.5',
    ]);

    expectAgentsSettled(race, ['claude', 'codex']);
    expect(race.agents.find((agent) => agent.agent === 'claude')).toMatchObject({
      status: 'timed_out',
      error: { kind: 'TimedOut' },
    });
    expect(race.agents.find((agent) => agent.agent === 'codex')?.status).toBe('completed');
    // Idle timeout, then hydra's 5 s grace before SIGKILL: well under the 90 s the harness allows.
    expect(race.wallMs).toBeLessThan(45_000);
    await expectFaultSurvived(sandbox, race);
  });
});

describe('agents that fork background children into their process group', () => {
  it('leave no child alive after the race, whether the agent completed or was stopped', async () => {
    sandbox = await faultSandbox();

    const race = await raceFault(
      sandbox,
      {
        claude: { forkChildren: 4 },
        codex: { forkChildren: 4, hangAfterLines: 2, ignoreSigterm: true },
      },
      ['--idle-timeout', '1'],
    );

    expectAgentsSettled(race, ['claude', 'codex']);
    expect(race.agents.find((agent) => agent.agent === 'claude')?.status).toBe('completed');
    expect(race.agents.find((agent) => agent.agent === 'codex')?.status).toBe('timed_out');
    // The children really ran: each agent with its 4 children and their 4 sleeps (so the checks can fail).
    expect(race.peakAgentProcesses).toBeGreaterThanOrEqual(10);
    await expectFaultSurvived(sandbox, race);
  });
});
