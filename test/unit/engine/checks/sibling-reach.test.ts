/**
 * Issue 21, "a sibling's worktree is never taken as evidence against it": without a sandbox hydra
 * cannot see who wrote a file, but it notices an agent whose tool calls name another agent's
 * directory of the race (absolute, or `../<agent>` from its worktree), the baseline or a check's
 * checkout; ordinary paths, its own worktree and `..` inside it are not reported.
 */
import { describe, expect, it } from 'vitest';
import { ev } from '../../../../src/core/events.js';
import { siblingPathsIn } from '../../../../src/engine/checks/index.js';

const RUN_DIR = '/home/u/.cache/hydra/worktrees/repo-1a2b/20261126-070000-abcd';
const own = { worktree: `${RUN_DIR}/claude`, siblings: ['codex', 'gemini'] };
const bash = (command: string) =>
  ev({ kind: 'tool_call', id: '1', name: 'Bash', summary: command, input: { command } });

describe('siblingPathsIn', () => {
  it("names another agent's worktree an agent's command reaches into", () => {
    expect(siblingPathsIn(bash(`echo broken > ${RUN_DIR}/codex/lib.js`), own)).toEqual([`${RUN_DIR}/codex`]);
    expect(siblingPathsIn(bash('cp lib.js ../gemini/lib.js'), own)).toEqual(['../gemini']);
  });

  it('names the baseline and a check checkout, from a file tool too', () => {
    const write = ev({
      kind: 'tool_call',
      id: '2',
      name: 'Write',
      summary: 'lib.test.js',
      input: { file_path: `${RUN_DIR}/.baseline/lib.test.js` },
    });
    expect(siblingPathsIn(write, own)).toEqual([`${RUN_DIR}/.baseline`]);
    expect(siblingPathsIn(bash(`sed -i d ${RUN_DIR}/.checks-codex/x`), own)).toEqual([`${RUN_DIR}/.checks-`]);
  });

  it('leaves its own worktree, paths inside it and other events alone', () => {
    expect(siblingPathsIn(bash(`cat ${RUN_DIR}/claude/lib.js src/../lib.js ../claude/x`), own)).toEqual([]);
    expect(siblingPathsIn(bash('node --test'), own)).toEqual([]);
    expect(siblingPathsIn(ev({ kind: 'message', role: 'assistant', text: `${RUN_DIR}/codex` }), own)).toEqual(
      [],
    );
  });
});
