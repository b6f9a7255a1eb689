/**
 * An agent whose sandbox looks its children up in /proc, as Codex's bubblewrap does (it opens
 * /proc/<child>/ns with the PID fork returned). Inside hydra's PID namespace that PID is the
 * namespace's, so /proc must be the namespace's own: with the host's /proc, bwrap failed, left its
 * half-started child holding Codex's pipes, and every race with the real Codex hung.
 */
import { afterEach, expect, it } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import { activeContainment } from '../../../src/engine/process/containment.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { installAgents, makeSandbox, plan, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';

let sandbox: Sandbox | null = null;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox?.cleanup();
  sandbox = null;
});

it('runs under the PID namespace here (else the case below would not test it)', () => {
  expect(activeContainment().kind).toBe('pid-namespace');
});

it('an agent finds the child it started in /proc under the PID it got, and completes', async () => {
  const box = makeSandbox();
  sandbox = box;
  await installAgents(box, { codex: { sandboxChild: true } });
  handle = startRace(raceOptions(box, [plan(box, 'codex')]));

  const summary = await handle.settled;

  // On failure the agent's stderr (bwrap's error) is in the error's message.
  expect(summary.agents[0]?.error ?? null).toBeNull();
  expect(summary.agents[0]?.status).toBe('completed');
});
