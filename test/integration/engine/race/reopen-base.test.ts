/**
 * A recorded run reopened to review (`hydra show --tui`) after the user's branch moved on (issue
 * 24, case 1): the dashboard's diff (`d`) and compare's file list are the agent's changes since the
 * race's base, not the user's later commit reversed, and not "no changes" beside its counts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRun, reopenFromRecord, startRace } from '../../../../src/engine/index.js';
import type { RaceHandle, RaceOptions } from '../../../../src/engine/index.js';
import { git, installAgents, makeSandbox, plan, raceOptions } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let handles: RaceHandle[] = [];

afterEach(async () => {
  for (const handle of handles) await handle.cancel();
  handles = [];
  sandbox.cleanup();
});

const start = (options: RaceOptions): RaceHandle => {
  const handle = startRace(options);
  handles.push(handle);
  return handle;
};

describe('a run reopened after the user’s branch moved on', () => {
  it('shows each agent’s patch and files against the race’s base', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: { edits: [{ path: 'claude.txt', content: 'claude\n' }] } });
    const agents = [plan(sandbox, 'claude')];
    const base = git(sandbox.repo, 'rev-parse', 'HEAD').trim();
    const first = start(raceOptions(sandbox, agents));
    await first.settled;
    await first.finish();
    writeFileSync(path.join(sandbox.repo, 'app.txt'), 'line 1\nline 2 changed by the user\n');
    git(sandbox.repo, 'commit', '-q', '-am', 'the user moves on');

    const record = await readRun(sandbox.repo, first.runId);
    const again = start(
      raceOptions(sandbox, agents, {
        runId: first.runId,
        prompt: record.meta.prompt,
        reopen: reopenFromRecord(record),
      }),
    );
    await again.settled;

    const snapshot = again.getSnapshot();
    expect(snapshot.baseRef).toBe(base);
    const claude = snapshot.agents.find((agent) => agent.agent === 'claude');
    expect(claude?.diff?.files).toEqual([{ path: 'claude.txt', insertions: 1, deletions: 0 }]);
    const patch = await again.getPatch('claude');
    expect(patch).toContain('+++ b/claude.txt');
    expect(patch).not.toContain('app.txt');
  });
});
