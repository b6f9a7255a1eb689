/**
 * Installs the tests' fault agent (fault-agent.ts) as fake agent CLIs: the demo's sh wrappers
 * (src/demo/fake-bin.ts) around .cache/test-bin/fault-agent.js, which vitest's global setup builds.
 */
import { existsSync } from 'node:fs';
import type { AdapterId } from '../../src/adapters/types.js';
import { fakeBinaryName, installFakeAgents } from '../../src/demo/fake-bin.js';
import type { FaultScenario } from './fault-scenario.js';
import { FAULT_AGENT_SCRIPT } from './fault-scenario.js';

export type { FaultScenario } from './fault-scenario.js';
export { FAULT_AGENT_SCRIPT } from './fault-scenario.js';

/**
 * Writes `<binDir>/<name>` (an sh wrapper running the fault agent) and its scenario file for each
 * scenario given, keyed by binary name (`fakeBinaryName(adapter)`).
 */
export async function installFaultAgents(
  binDir: string,
  scenarios: Readonly<Record<string, FaultScenario | undefined>>,
): Promise<void> {
  if (!existsSync(FAULT_AGENT_SCRIPT)) {
    throw new Error(
      `the fault agent is not built (${FAULT_AGENT_SCRIPT} is missing): run the tests with vitest, ` +
        'whose global setup (test/support/build-fault-agent.ts) builds it',
    );
  }
  await installFakeAgents(binDir, scenarios, FAULT_AGENT_SCRIPT);
}

/**
 * The same, keyed by adapter: each agent's binary gets its fake (`fakeBinaryName(adapter)`), 10 ms
 * between lines unless the scenario says otherwise.
 */
export async function installFaultAgentsFor(
  binDir: string,
  scenarios: Partial<Record<AdapterId, Omit<FaultScenario, 'agent'>>>,
): Promise<void> {
  const byBinary: Record<string, FaultScenario> = {};
  for (const [agent, scenario] of Object.entries(scenarios)) {
    if (scenario !== undefined) byBinary[fakeBinaryName(agent)] = { agent, delayMs: 10, ...scenario };
  }
  await installFaultAgents(binDir, byBinary);
}
