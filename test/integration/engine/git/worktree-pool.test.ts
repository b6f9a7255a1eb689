import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanRuns, startRace } from '../../../../src/engine/index.js';
import { worktreePoolDir } from '../../../../src/engine/records/index.js';
import { buildRaceOptions, parseConfigText } from '../../../../src/engine/config/index.js';
import type { RaceHandle } from '../../../../src/engine/index.js';
import { extraWorktrees, hydraBranches, poolWorktrees } from '../../../support/fault-invariants.js';
import {
  git,
  installAgents,
  makeSandbox,
  plan,
  raceOptions,
  repoState,
} from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';
import { SCRIPT_AGENT, raceScripts, registerScriptAgent } from '../../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

const edit = (file: string, content: string) => ({ edits: [{ path: file, content }] });

const poolOf = (): string => worktreePoolDir(sandbox.worktreeRoot, sandbox.repo);
const pooled = (): string[] => (existsSync(poolOf()) ? readdirSync(poolOf()) : []);

/** One headless race that ends without a merge (finish): its worktrees go back to the pool. */
async function race(pool: number): Promise<{ runId: string; worktrees: string[] }> {
  handle = startRace(
    raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')], { worktreePool: pool }),
  );
  const summary = await handle.settled;
  expect(summary.agents.map((agent) => agent.status)).toEqual(['completed', 'completed']);
  const worktrees = handle.getSnapshot().agents.map((agent) => agent.worktree!);
  const runId = handle.runId;
  await handle.finish();
  handle = null;
  return { runId, worktrees };
}

describe('the warm worktree pool (worktree_pool)', () => {
  it('keeps worktrees between races, resets them to the new base, and hydra clean removes them', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, {
      claude: { delayMs: 10, ...edit('claude.txt', 'from claude\n') },
      codex: { delayMs: 10, ...edit('codex.txt', 'from codex\n') },
    });
    const before = repoState(sandbox.repo);

    const first = await race(2);

    // Both worktrees went to the pool: detached, on no branch, outside the run's directory.
    expect(pooled()).toHaveLength(2);
    for (const dir of first.worktrees) expect(existsSync(dir)).toBe(false);
    expect(poolWorktrees(sandbox.repo)).toHaveLength(2);
    expect(poolWorktrees(sandbox.repo).every((dir) => dir.startsWith(poolOf()))).toBe(true);
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
    expect(git(sandbox.repo, 'worktree', 'list', '--porcelain')).not.toContain(
      `branch refs/heads/hydra/${first.runId}/`,
    );
    // The completed results' branches stay, as without a pool.
    expect(hydraBranches(sandbox.repo).sort()).toEqual([
      `hydra/${first.runId}/claude`,
      `hydra/${first.runId}/codex`,
    ]);

    // The user moves main on; an ignored left-over sits in a pooled worktree.
    writeFileSync(path.join(sandbox.repo, 'app.txt'), 'line 1\nline 2\nline 3\n');
    git(sandbox.repo, 'commit', '-q', '-am', 'second');
    const idle = path.join(poolOf(), pooled()[0]!);
    writeFileSync(path.join(idle, 'stray.log'), 'left over\n');
    // A setting the last agent made for its worktree alone does not carry over.
    const adminDir = readFileSync(path.join(idle, '.git'), 'utf8')
      .replace(/^gitdir: /, '')
      .trim();
    writeFileSync(path.join(adminDir, 'config.worktree'), '[core]\n\tfsmonitor = false\n');
    const userBefore = repoState(sandbox.repo);

    const second = await race(2);

    // The second race ran in the pooled worktrees (the pool did not grow), each at the new base.
    expect(pooled()).toHaveLength(2);
    for (const agent of ['claude', 'codex']) {
      const branch = `hydra/${second.runId}/${agent}`;
      expect(git(sandbox.repo, 'rev-parse', `${branch}~1`).trim()).toBe(
        git(sandbox.repo, 'rev-parse', 'main').trim(),
      );
      const files = git(sandbox.repo, 'ls-tree', '-r', '--name-only', branch).split('\n').filter(Boolean);
      // Only the base's files and this agent's own: nothing of the first race, no stray file.
      expect(files.sort()).toEqual(['README.md', 'app.txt', `${agent}.txt`]);
    }
    for (const dir of readdirSync(poolOf())) {
      const tree = path.join(poolOf(), dir);
      expect(existsSync(path.join(tree, 'stray.log'))).toBe(false);
      expect(readFileSync(path.join(tree, 'app.txt'), 'utf8')).toContain('line 3');
    }
    expect(repoState(sandbox.repo)).toEqual(userBefore);
    expect(existsSync(path.join(adminDir, 'config.worktree'))).toBe(false);

    const report = await cleanRuns(sandbox.repo, { dryRun: false, worktreeRoot: sandbox.worktreeRoot });

    expect(report.removedWorktrees.filter((dir) => dir.startsWith(poolOf()))).toHaveLength(2);
    expect(existsSync(poolOf())).toBe(false);
    expect(poolWorktrees(sandbox.repo)).toEqual([]);
    // The runs themselves are this (live) process's, so clean skips them; the pool is no run's.
    expect(report.skipped.map((item) => item.runId).sort()).toEqual([first.runId, second.runId].sort());
    expect(repoState(sandbox.repo)).toEqual(userBefore);
    expect(before).not.toEqual(userBefore);
  });

  it('keeps no more than the pool size, and makes new worktrees when the pool is empty', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {}, codex: {} });

    await race(1);
    expect(pooled()).toHaveLength(1);
    // One worktree comes from the pool, the other is made: the pool is back to one.
    await race(1);
    expect(pooled()).toHaveLength(1);
    expect(poolWorktrees(sandbox.repo)).toHaveLength(1);
    expect(extraWorktrees(sandbox.repo)).toEqual([]);
  });

  it('removes a pooled worktree whose .git was broken instead of racing in it', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {}, codex: {} });
    await race(2);
    const [broken, sound] = pooled().map((name) => path.join(poolOf(), name));
    writeFileSync(path.join(broken!, '.git'), 'gitdir: /nowhere\n');

    const second = await race(2);

    expect(existsSync(broken!)).toBe(false);
    expect(existsSync(sound!)).toBe(false);
    expect(hydraBranches(sandbox.repo)).toContain(`hydra/${second.runId}/codex`);
    expect(poolWorktrees(sandbox.repo)).toHaveLength(2);
  });

  it('a clean of named runs leaves the pool alone', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {}, codex: {} });
    const { runId } = await race(2);

    await cleanRuns(sandbox.repo, { dryRun: false, worktreeRoot: sandbox.worktreeRoot, runIds: [runId] });

    expect(pooled()).toHaveLength(2);
    expect(poolWorktrees(sandbox.repo)).toHaveLength(2);
  });
});

describe('a pooled worktree is a fresh checkout of the base, whatever the last agent hid in it', () => {
  const SECOND = 'scripted2';
  let unregister: Array<() => void> = [];

  afterEach(() => {
    for (const undo of unregister) undo();
    unregister = [];
  });

  /** What an agent of the second race finds in its worktree, written where the test reads it. */
  const look = (out: string): string =>
    [
      // `ls -di`, not GNU's `stat -c %i`: macOS's stat spells it `stat -f %i`.
      `{ echo "inode $(ls -di . | awk '{ print $1 }')"`,
      'git ls-files -v',
      'echo "== status"',
      'git status --porcelain --ignored --untracked-files=all',
      'echo "== refs"',
      'git for-each-ref --format="%(refname)" refs/worktree refs/bisect',
      'echo "== files"',
      'cat app.txt README.md',
      `echo "== end"; } > ${out}`,
    ].join('\n');

  /** One race of the two scripted agents with a pool of 2; resolves once its worktrees are back. */
  const scriptedRace = async (bodies: Record<string, string>): Promise<void> => {
    handle = raceScripts(sandbox, bodies, { worktreePool: 2 });
    await handle.settled;
    await handle.finish();
    handle = null;
  };

  it('clears skip-worktree and assume-unchanged edits, a sparse checkout, ignored files and its own refs', async () => {
    sandbox = makeSandbox();
    unregister = [registerScriptAgent(), registerScriptAgent(SECOND)];
    const base = { app: 'line 1\nline 2\n', readme: '# test repo\n' };

    await scriptedRace({
      // Edits that `git status` and `git add -A` do not see, a hidden ignored file, a ref of its own.
      [SCRIPT_AGENT]: [
        'echo hidden edit > app.txt',
        'git update-index --skip-worktree app.txt',
        'echo assumed edit > README.md',
        'git update-index --assume-unchanged README.md',
        'echo secret > notes.log',
        'echo "*.log" >> "$(git rev-parse --git-path info/exclude)"',
        'git update-ref refs/worktree/planted HEAD',
        'echo done > one.txt',
      ].join('\n'),
      // A sparse checkout: app.txt gone from the worktree and marked skip-worktree.
      [SECOND]: ['git sparse-checkout set --no-cone /README.md /two.txt', 'echo done > two.txt'].join('\n'),
    });
    // The attacks took: the pooled worktrees carry the flags (checked before the next race).
    const held = pooled().map((name) => path.join(poolOf(), name));
    expect(held).toHaveLength(2);
    const flags = held.map((dir) => git(dir, 'ls-files', '-v')).join('');
    expect(flags).toMatch(/^S app\.txt$/m);
    expect(flags).toMatch(/^h README\.md$/m);
    const inodes = held.map((dir) => String(statSync(dir).ino)).sort();

    const seen = [path.join(sandbox.dir, 'seen-1.txt'), path.join(sandbox.dir, 'seen-2.txt')];
    await scriptedRace({ [SCRIPT_AGENT]: look(seen[0]!), [SECOND]: look(seen[1]!) });

    for (const file of seen) {
      const text = readFileSync(file, 'utf8');
      // Every file of the base, tracked as usual (H), its content the base's, nothing else there.
      expect(text).toContain('H README.md\nH app.txt\n== status\n== refs\n== files\n');
      expect(text).toContain(`== files\n${base.app}${base.readme}== end\n`);
    }
    // The pooled worktrees were reset, not dropped: the second race ran in them.
    const used = seen.map((file) => /^inode (\d+)$/m.exec(readFileSync(file, 'utf8'))?.[1]).sort();
    expect(used).toEqual(inodes);
    expect(poolWorktrees(sandbox.repo)).toHaveLength(2);
  });
});

describe('worktree_pool in hydra.toml', () => {
  it.each(['-1', '2.5', '"4"', '65'])('refuses %s with what it must be', (value) => {
    expect(() => parseConfigText(`[race]\nworktree_pool = ${value}\n`, 'hydra.toml')).toThrow(
      /worktree_pool.*whole number from 0 \(no pool\) to 64/s,
    );
  });

  it('reaches the race options', () => {
    const config = parseConfigText('[race]\nworktree_pool = 4\n', 'hydra.toml');
    expect(buildRaceOptions(config, {}, { repoPath: '.', prompt: 'p' }).worktreePool).toBe(4);
    expect(
      buildRaceOptions(parseConfigText('', 'hydra.toml'), {}, { repoPath: '.', prompt: 'p' }).worktreePool,
    ).toBe(undefined);
  });
});
