/**
 * `hydra merge` keeps the choice open: the other results stay after a merge (unless
 * --discard-others), another merge may follow, and --only merges some files of a result with the
 * user's uncommitted work protected as in a whole merge. Real CLI, real repositories, fake agents.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, {
    claude: {
      agent: 'claude',
      delayMs: 5,
      edits: [
        { path: 'a.txt', content: 'a from claude\n' },
        { path: 'src/b.txt', content: 'b from claude\n' },
        { path: 'README.md', content: '# changed by claude\n' },
      ],
    },
    codex: { agent: 'codex', delayMs: 5, edits: [{ path: 'c.txt', content: 'c from codex\n' }] },
  });
});

afterEach(() => sandbox.cleanup());

const run = (args: string[], cwd = repo) => hydra(args, { cwd, env: sandbox.env, timeoutMs: 90_000 });

const raceOnce = async (): Promise<string> => {
  const raced = await run(['race', '--json', 'Write some files']);
  expect(raced.exitCode, raced.stderr).toBe(0);
  return (parseNdjson(raced.stdout).at(-1) as { runId: string }).runId;
};

const hydraBranches = (): string[] =>
  git(repo, ['for-each-ref', '--format=%(refname:short)', 'refs/heads/hydra/']).split('\n').filter(Boolean);

const mergeRecord = (runId: string) =>
  JSON.parse(readFileSync(path.join(repo, '.hydra', 'runs', runId, 'merge.json'), 'utf8')) as {
    agent: string;
    only?: string[];
    earlier?: Array<{ agent: string; only?: string[] }>;
  };

describe('hydra merge keeps the choice open', () => {
  it('keeps the other results after a merge, and a second result can be merged after the first', async () => {
    const runId = await raceOnce();

    const first = await run(['merge', runId, 'codex']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toContain(`hydra clean ${runId}`);
    expect(hydraBranches()).toEqual([`hydra/${runId}/claude`]);
    expect(readFileSync(path.join(repo, 'c.txt'), 'utf8')).toBe('c from codex\n');

    const second = await run(['merge', runId, 'claude']);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('a from claude\n');
    expect(readFileSync(path.join(repo, 'c.txt'), 'utf8')).toBe('c from codex\n');
    expect(mergeRecord(runId)).toMatchObject({ agent: 'claude', earlier: [{ agent: 'codex' }] });
  }, 120_000);

  it('removes the other results with --discard-others', async () => {
    const runId = await raceOnce();
    const merged = await run(['merge', runId, 'codex', '--discard-others']);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(hydraBranches()).toEqual([]);
    expect(merged.stdout).not.toContain('hydra clean');
  }, 120_000);
});

describe('hydra merge --only', () => {
  it('merges only the files named, as one commit, keeping the rest on the agent branch', async () => {
    const runId = await raceOnce();
    const before = git(repo, ['rev-parse', 'HEAD']);

    const merged = await run(['merge', 'last', 'claude', '--only', 'a.txt']);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('only a.txt');
    expect(git(repo, ['rev-parse', 'HEAD~1'])).toBe(before);
    expect(git(repo, ['log', '-1', '--format=%P']).split(' ')).toHaveLength(1);
    expect(git(repo, ['show', '--name-only', '--format=', 'HEAD']).trim()).toBe('a.txt');
    expect(readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('# test repo\n');
    expect(existsSync(path.join(repo, 'src', 'b.txt'))).toBe(false);
    // What is left of claude's result stays on its branch.
    expect(hydraBranches()).toContain(`hydra/${runId}/claude`);
    expect(mergeRecord(runId)).toMatchObject({ agent: 'claude', only: ['a.txt'] });

    // Paths are relative to where the user is: b.txt inside src/ is src/b.txt.
    mkdirSync(path.join(repo, 'src'), { recursive: true });
    const more = await run(['merge', 'last', 'claude', '--only', 'b.txt'], path.join(repo, 'src'));
    expect(more.exitCode, more.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'src', 'b.txt'), 'utf8')).toBe('b from claude\n');
    expect(mergeRecord(runId)).toMatchObject({ only: ['src/b.txt'], earlier: [{ only: ['a.txt'] }] });
    const shown = await run(['show', runId]);
    expect(shown.stdout).toMatch(
      /merged {2}claude into main \(squash, \w+, only a\.txt\)\nmerged {2}claude into main \(squash, \w+, only src\/b\.txt\)/,
    );
  }, 120_000);

  it('takes several paths after one --only, folders too', async () => {
    await raceOnce();
    const merged = await run(['merge', 'last', 'claude', '--only', 'src', 'README.md']);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(git(repo, ['show', '--name-only', '--format=', 'HEAD']).trim().split('\n').sort()).toEqual([
      'README.md',
      'src/b.txt',
    ]);
    expect(existsSync(path.join(repo, 'a.txt'))).toBe(false);
  }, 120_000);

  it('refuses paths outside the repository, inside .git, or not changed by the agent, changing nothing', async () => {
    await raceOnce();
    const head = git(repo, ['rev-parse', 'HEAD']);
    const cases: Array<[string, string]> = [
      ['../outside.txt', 'outside the repository'],
      [path.join(sandbox.dir, 'elsewhere.txt'), 'outside the repository'],
      ['.git/config', "git's own directory"],
      ['.', 'the whole repository'],
      ['nothere.txt', "claude's result does not change nothere.txt"],
    ];
    for (const [given, message] of cases) {
      const result = await run(['merge', 'last', 'claude', '--only', given]);
      expect(result.exitCode, given).toBe(1);
      expect(result.stderr, given).toContain(message);
    }
    const missing = await run(['merge', 'last', 'claude', '--only', 'nothere.txt']);
    expect(missing.stderr).toContain('claude changed: README.md, a.txt, src/b.txt');
    expect(git(repo, ['rev-parse', 'HEAD'])).toBe(head);
    expect(git(repo, ['status', '--porcelain'])).toBe('');
  }, 120_000);

  it('protects uncommitted work exactly as a whole merge does', async () => {
    await raceOnce();
    const head = git(repo, ['rev-parse', 'HEAD']);
    writeFileSync(path.join(repo, 'a.txt'), 'my own a, not committed\n');
    writeFileSync(path.join(repo, 'README.md'), '# my uncommitted edit\n');

    const refused = await run(['merge', 'last', 'claude', '--only', 'a.txt']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('uncommitted changes touch files the merge would change: a.txt');
    expect(git(repo, ['rev-parse', 'HEAD'])).toBe(head);

    // The file the user did not touch merges; their work in the others stays as it was.
    const merged = await run(['merge', 'last', 'claude', '--only', 'src/b.txt']);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'src', 'b.txt'), 'utf8')).toBe('b from claude\n');
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('my own a, not committed\n');
    expect(readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('# my uncommitted edit\n');
  }, 120_000);
});
