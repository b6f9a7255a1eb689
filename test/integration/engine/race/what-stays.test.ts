/**
 * Issue 24, item 7: one rule for what stays behind, however the race ends. A merge (as from the
 * dashboard) ends the race as `q` does: every agent worktree goes, completed results stay on their
 * branches, and a stopped agent's branch goes, as its `x` dialog says.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../../src/engine/index.js';
import type { RaceHandle } from '../../../../src/engine/index.js';
import { dialogLines } from '../../../../src/ui/layout/chrome-lines.js';
import { lineText } from '../../../../src/ui/layout/lines.js';
import { createTheme } from '../../../../src/ui/text/theme.js';
import {
  agentStatus,
  git,
  installAgents,
  makeSandbox,
  plan,
  raceOptions,
  waitForSnapshot,
  type Sandbox,
} from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

const hydraBranches = (repo: string): string[] =>
  git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/hydra/')
    .split('\n')
    .filter((line) => line !== '');

describe('a merge with a stopped agent and another result', () => {
  it('removes every worktree and the stopped agent’s branch, keeps the other result’s branch, as the x dialog says', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, {
      claude: { edits: [{ path: 'hello.txt', content: 'from claude\n' }] },
      cursor: { edits: [{ path: 'other.txt', content: 'from cursor\n' }] },
      codex: { hangAfterLines: 3 },
    });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex'), plan(sandbox, 'cursor')]),
    );
    const current = handle;
    const running = await waitForSnapshot(
      current,
      (snapshot) =>
        agentStatus(snapshot, 'codex') === 'running' &&
        (snapshot.agents.find((agent) => agent.agent === 'codex')?.eventCount ?? 0) > 0,
    );
    // What the x dialog says will happen to codex.
    const theme = createTheme({ ascii: false, color: false });
    const said = dialogLines({ kind: 'stop', agent: 'codex' }, running, theme, 300, { keepWorktrees: false })
      .map(lineText)
      .join(' ');
    expect(said).toContain('its worktree and branch are removed when the race ends (quit or merge)');

    current.stopAgent('codex');
    await current.settled;
    const worktrees = current.getSnapshot().agents.map((agent) => agent.worktree ?? '');
    expect(worktrees.every((dir) => dir !== '' && existsSync(dir))).toBe(true);

    const result = await current.merge('claude');

    // Every agent worktree is gone; only the repository's own checkout is listed.
    expect(git(sandbox.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    for (const dir of worktrees) expect(existsSync(dir)).toBe(false);
    // The merged result's branch and the stopped agent's are gone; cursor's result stays.
    expect(hydraBranches(sandbox.repo)).toEqual([`hydra/${current.runId}/cursor`]);
    // What the merge reports as removed is all of it, each worktree and branch once.
    expect([...result.removed].sort()).toEqual(
      [...worktrees, `hydra/${current.runId}/claude`, `hydra/${current.runId}/codex`].sort(),
    );
    expect(current.getSnapshot().phase).toBe('done');
  });
});
