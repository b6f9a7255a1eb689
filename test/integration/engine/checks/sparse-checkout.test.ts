/**
 * Issue 34, "Sparse checkouts are not changed checkouts": in a repository with
 * `git sparse-checkout set src`, the checks judge the whole commit (the test outside `src/` is
 * there) and the honest result's checkout is not "changed while it ran", so `--auto-merge best`
 * merges it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceHandle } from '../../../../src/engine/index.js';
import { git, makeSandbox } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';
import { raceScripts, registerScriptAgent } from '../../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
const unregister: Array<() => void> = [];

beforeEach(() => {
  sandbox = makeSandbox();
  unregister.push(registerScriptAgent('honest'), registerScriptAgent('broken'));
  mkdirSync(path.join(sandbox.repo, 'src'));
  mkdirSync(path.join(sandbox.repo, 'test'));
  writeFileSync(path.join(sandbox.repo, 'src', 'price.txt'), 'bug\n');
  writeFileSync(
    path.join(sandbox.repo, 'test', 'check.sh'),
    'grep -q fixed src/price.txt && echo "1 passed" || { echo "1 failed"; exit 1; }\n',
  );
  git(sandbox.repo, 'add', '.');
  git(sandbox.repo, 'commit', '-q', '-m', 'a bug and its test');
  git(sandbox.repo, 'sparse-checkout', 'set', 'src');
});

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  for (const undo of unregister.splice(0)) undo();
  sandbox.cleanup();
});

describe('a sparse checkout (issue 34)', () => {
  it('checks the whole commit, flags nothing, and --auto-merge best merges the honest result', async () => {
    handle = raceScripts(
      sandbox,
      { honest: `printf 'fixed\\n' > src/price.txt`, broken: `printf 'still a bug\\n' > src/price.txt` },
      {
        checks: [{ name: 'test', run: 'sh test/check.sh', timeoutMs: 30_000, gate: true }],
        autoMerge: 'best',
      },
    );
    await handle.settled;
    const summary = await handle.finish();
    const honest = summary.agents.find((agent) => agent.agent === 'honest');
    expect(honest?.checks?.map((check) => [check.status, check.checkoutChanged])).toEqual([
      ['passed', undefined],
    ]);
    expect(summary.merged?.agent).toBe('honest');
    expect(readFileSync(path.join(sandbox.repo, 'src', 'price.txt'), 'utf8')).toBe('fixed\n');
    // The user's checkout is still sparse.
    expect(git(sandbox.repo, 'sparse-checkout', 'list').trim()).toBe('src');
  }, 60_000);
});
