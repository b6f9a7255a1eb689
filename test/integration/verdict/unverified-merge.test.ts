/**
 * Issue 26, "No unverified merge": with no check run for the top result, its score is diff size,
 * time and cost alone, so `--auto-merge best` merges nothing and says how to add a check;
 * `--unverified` merges as before.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { installAgents, makeSandbox, plan, raceOptions } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

/** Two agents that each make a one-line change; no check. */
const race = async (extra: { allowUnverified?: boolean } = {}) => {
  sandbox = makeSandbox();
  await installAgents(sandbox, {
    claude: { edits: [{ path: 'hello.txt', content: 'hello\n' }] },
    codex: { edits: [{ path: 'hello.txt', content: 'hello world\n' }], delayMs: 400 },
  });
  handle = startRace(
    raceOptions(
      sandbox,
      ['claude', 'codex'].map((agent) => plan(sandbox, agent)),
      { autoMerge: 'best', ...extra },
    ),
  );
  await handle.settled;
  return handle.finish();
};

describe('--auto-merge best without a check (issue 26)', () => {
  it('merges nothing, marks every score unverified, and says how to add a check', async () => {
    const summary = await race();
    expect(summary.agents.map((agent) => agent.score?.verified)).toEqual([false, false]);
    expect(summary.agents[0]?.score?.total).toBeGreaterThan(0);
    expect(summary.merged).toBeNull();
    expect(summary.mergeReason).toMatch(/^--auto-merge best merged nothing: no check ran for claude/);
    expect(summary.mergeReason).toContain('--check auto');
    expect(summary.mergeReason).toContain('--unverified');
    expect(existsSync(path.join(sandbox.repo, 'hello.txt'))).toBe(false);
  }, 60_000);

  it('merges the top score with --unverified, as before', async () => {
    const summary = await race({ allowUnverified: true });
    expect(summary.merged?.agent).toBe('claude');
    expect(existsSync(path.join(sandbox.repo, 'hello.txt'))).toBe(true);
  }, 60_000);
});
