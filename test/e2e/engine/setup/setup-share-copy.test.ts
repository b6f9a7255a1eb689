/**
 * Issue 23, shared dependencies where no copy-on-write is possible: with HYDRA_CONTAINMENT=group
 * the agents get no mount namespace, so `[setup] share` copies the directory into each worktree,
 * says so in a warning and in each pane, and the user's copy stays as it was.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../../src/engine/index.js';
import { activeContainment } from '../../../../src/engine/process/index.js';
import { shareSupport } from '../../../../src/engine/setup/index.js';
import { hydra } from '../../../support/cli-helpers.js';
import { makeSandbox } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';
import { raceScript, registerScriptAgent } from '../../../support/script-agent.js';
import { branchFile, makeNodeProject, treeState } from '../../../support/share-project.js';

// Read once per process, on first use: this file's races run without a namespace.
process.env['HYDRA_CONTAINMENT'] = 'group';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void = () => undefined;

beforeEach(() => {
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

describe('[setup] share without a mount namespace (issue 23)', () => {
  it('copies node_modules into each worktree, with a warning, and leaves the checkout as it was', async () => {
    expect(activeContainment().kind).toBe('process-group');
    expect(shareSupport()).toEqual({
      kind: 'copy',
      reason: 'agents run without a mount namespace (HYDRA_CONTAINMENT=group is set)',
    });
    makeNodeProject(sandbox.repo);
    const before = treeState(path.join(sandbox.repo, 'node_modules'));

    handle = raceScript(
      sandbox,
      [
        'echo mine > node_modules/wrote-by-agent',
        'rm node_modules/leftpad/extra.txt',
        'rm -rf node_modules/unused',
        'ls node_modules > seen.txt',
        'git add seen.txt',
        'git commit -q -m "what it saw"',
      ].join('\n'),
      {
        setup: { run: [], runSource: null, timeoutMs: 60_000, copy: [], share: ['node_modules'] },
        checks: [{ name: 'test', run: 'node test.js', timeoutMs: 60_000, gate: true }],
      },
    );
    await handle.settled;
    const snapshot = handle.getSnapshot();
    const summary = await handle.finish();

    expect(snapshot.warnings).toContain(
      '[setup] share: node_modules copied into each worktree, not shared copy-on-write (agents run without a mount namespace (HYDRA_CONTAINMENT=group is set)).',
    );
    expect(snapshot.agents[0]?.recentEvents).toContainEqual(
      expect.objectContaining({ kind: 'progress', stage: 'shared', detail: 'node_modules by copy' }),
    );
    expect(summary.baseline?.checks.map((check) => check.status)).toEqual(['passed']);
    expect(summary.agents[0]?.checks?.map((check) => check.status)).toEqual(['passed']);
    expect(branchFile(sandbox.repo, summary.agents[0]?.branch ?? '', 'seen.txt')).toBe(
      'leftpad\nwrote-by-agent\n',
    );
    expect(treeState(path.join(sandbox.repo, 'node_modules'))).toEqual(before);
  });

  it('hydra doctor says the share is a copy here, and why', async () => {
    const doctor = await hydra(['doctor'], { cwd: sandbox.repo, env: process.env });
    expect(doctor.stdout).toContain(
      '[setup] share: copy per worktree (cp --reflink=auto), no copy-on-write: agents run without a mount namespace (HYDRA_CONTAINMENT=group is set)',
    );
  });
});
