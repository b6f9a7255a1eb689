/**
 * Issue 21, case 5: an agent that damages the shared ref store (a bad line appended to
 * `packed-refs`, a HEAD that names nothing) through the real `hydra race`: hydra never dies with a
 * stack trace, repairs what its snapshot allows and says so, leaves a repository every git command
 * reads again, and never calls a result "completed" when nothing of it was committed.
 */
import { readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { expectNoProcessOfRun } from '../../support/fault-invariants.js';
import { writeScript } from '../../support/security-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  git(repo, ['branch', 'dev']);
  git(repo, ['tag', 'v1']);
  // Packed, as after a `git gc`.
  git(repo, ['pack-refs', '--all']);
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 2, edits: [{ path: 'hello.txt', content: 'hello\n' }] },
  });
});

afterEach(() => sandbox.cleanup());

/** Makes the fake claude run `body` (sh, in its worktree) before it works: only when racing, not when probed. */
function hostileClaude(body: string): void {
  const real = path.join(sandbox.bin, 'claude-real');
  renameSync(path.join(sandbox.bin, 'claude'), real);
  writeScript(
    path.join(sandbox.bin, 'claude'),
    `case "$PWD" in ${sandbox.env['HYDRA_WORKTREE_ROOT']}/*) ( ${body} ) >/dev/null 2>&1 ;; esac\nexec '${real}' "$@"`,
  );
}

interface Summary {
  runId: string;
  agents: Array<{ status: string; warnings?: string[]; branch: string | null; error?: { message: string } }>;
}

const race = async (): Promise<{ exitCode: number; stderr: string; summary: Summary }> => {
  const result = await hydra(['race', '--json', '--agents', 'claude', 'Create hello.txt'], {
    cwd: repo,
    env: sandbox.env,
    timeoutMs: 90_000,
  });
  const lines = parseNdjson(result.stdout);
  return { exitCode: result.exitCode, stderr: result.stderr, summary: lines.at(-1) as unknown as Summary };
};

const expectNoStackTrace = (stderr: string): void => {
  expect(stderr).not.toMatch(/^\s+at .*\(.*:\d+:\d+\)$/m);
  expect(stderr).not.toContain('GitCommandError:');
  expect(stderr).not.toContain('Node.js v');
};

describe('an agent that damages the ref store', () => {
  it('a bad line in packed-refs: no stack trace, packed-refs repaired and said, every ref readable again', async () => {
    const refsBefore = git(repo, ['for-each-ref', '--format=%(refname) %(objectname)']);
    hostileClaude('echo "garbage line" >> "$(git rev-parse --git-common-dir)/packed-refs"');
    const { stderr, summary } = await race();
    expectNoStackTrace(stderr);
    const agent = summary.agents[0]!;
    expect(agent.warnings?.join('\n')).toMatch(/refs were damaged .*repaired packed-refs/);
    // Completed only with its work committed on its branch.
    if (agent.status === 'completed')
      expect(git(repo, ['show', `hydra/${summary.runId}/claude:hello.txt`])).toBe('hello');
    else expect(agent.error?.message).toBeTruthy();
    expect(readFileSync(path.join(repo, '.git', 'packed-refs'), 'utf8')).not.toContain('garbage');
    expect(git(repo, ['status', '--porcelain'])).toBeDefined();
    expect(
      git(repo, ['for-each-ref', '--format=%(refname) %(objectname)'])
        .split('\n')
        .filter((line) => !line.startsWith('refs/heads/hydra/'))
        .join('\n'),
    ).toBe(refsBefore);
    expectNoProcessOfRun(summary.runId);
  });

  it('a HEAD that names nothing: written again from the snapshot, no stack trace', async () => {
    hostileClaude('echo "not a ref" > "$(git rev-parse --git-common-dir)/HEAD"');
    const { stderr, summary } = await race();
    expectNoStackTrace(stderr);
    expect(readFileSync(path.join(repo, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect(git(repo, ['rev-parse', '--abbrev-ref', 'HEAD']).trim()).toBe('main');
    expect(summary.agents[0]?.warnings?.join('\n')).toMatch(/repaired .*HEAD/);
  });

  it('a config git cannot read: put back, and the race ends with its result', async () => {
    hostileClaude('printf "[broken\\n" >> "$(git rev-parse --git-common-dir)/config"');
    const { stderr, summary } = await race();
    expectNoStackTrace(stderr);
    expect(readFileSync(path.join(repo, '.git', 'config'), 'utf8')).not.toContain('[broken');
    expect(git(repo, ['status', '--porcelain'])).toBeDefined();
    const agent = summary.agents[0]!;
    if (agent.status === 'completed')
      expect(git(repo, ['show', `hydra/${summary.runId}/claude:hello.txt`])).toBe('hello');
  });
});
