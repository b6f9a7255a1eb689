/**
 * Issue 22, git inside a jailed worktree: while an agent runs, its worktree is linked to its own
 * repository (`<runDir>/.git-private/<agent>`) that reads the shared objects through alternates.
 * Its git works (status, add, commit, amend, checkout -b, tag) without writing anything under the
 * repository's shared git directory (what the OS sandbox will forbid); hydra takes its commits back
 * onto `hydra/<run>/<agent>`, moves none of the user's refs, and runs nothing the agent wrote into
 * whatever `.git` it saw (hooks, fsmonitor, filters).
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeRun } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import { git, makeSandbox } from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import { captureUserState, expectUserStateUnchanged } from '../../support/fault-invariants.js';
import { SCRIPT_AGENT, raceScript, registerScriptAgent } from '../../support/script-agent.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;
let unregister: () => void;
let marker: string;
let out: string;

beforeEach(() => {
  // The race runs its agents' git in private repositories (as it does when they are sandboxed).
  process.env['HYDRA_PRIVATE_GIT'] = '1';
  sandbox = makeSandbox();
  unregister = registerScriptAgent();
  marker = path.join(sandbox.dir, 'ran.log');
  out = path.join(sandbox.dir, 'agent-out');
});

afterEach(async () => {
  delete process.env['HYDRA_PRIVATE_GIT'];
  await handle?.cancel();
  handle = null;
  unregister();
  sandbox.cleanup();
});

/**
 * Every path under the shared git directory with its type and content (a hash), the agent
 * worktree entries' included: what the OS sandbox keeps read-only, as a test running as root can
 * check it (chmod does not stop root).
 */
const sharedGitDir = (): Map<string, string> => {
  const common = path.join(sandbox.repo, '.git');
  const entries = new Map<string, string>();
  const walk = (rel: string): void => {
    const file = path.join(common, rel);
    const stat = lstatSync(file);
    if (stat.isSymbolicLink()) entries.set(rel, `link ${readlinkSync(file)}`);
    else if (stat.isDirectory()) {
      entries.set(rel, 'dir');
      for (const name of readdirSync(file)) walk(path.join(rel, name));
    } else {
      const hash = createHash('sha1').update(readFileSync(file)).digest('hex');
      entries.set(rel, `file ${stat.mode.toString(8)} ${stat.mtimeMs} ${hash}`);
    }
  };
  walk('.');
  return entries;
};

/** A program that logs its name to the marker file (and passes its input through, as a filter). */
const logger = (name: string): string => {
  const file = path.join(sandbox.dir, `${name}.sh`);
  writeFileSync(file, `#!/bin/sh\necho ${name} >> '${marker}'\ncat\n`, { mode: 0o755 });
  return file;
};

const ran = (): string[] =>
  existsSync(marker)
    ? readFileSync(marker, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

/**
 * Lines of the agent's script that leave, in whatever `.git` it sees, a hook for every step hydra
 * takes afterwards, an fsmonitor and a clean filter for every file: each logs to the marker.
 */
const traps = (): string[] => [
  'gd=$(git rev-parse --path-format=absolute --git-dir)',
  'mkdir -p "$gd/hooks" "$gd/info"',
  ...['pre-commit', 'post-commit', 'post-checkout', 'reference-transaction', 'pre-auto-gc'].flatMap(
    (hook) => [
      `printf '#!/bin/sh\\necho ${hook} >> ${marker}\\n' > "$gd/hooks/${hook}"`,
      `chmod +x "$gd/hooks/${hook}"`,
    ],
  ),
  `git config core.fsmonitor ${logger('fsmonitor')}`,
  `git config filter.evil.clean ${logger('clean')}`,
  `git config core.hooksPath "$gd/hooks"`,
  'echo "* filter=evil" > "$gd/info/attributes"',
];

/** The agent's `git` work on its own branch, with the snapshots of the shared dir around it. */
const ownBranchScript = (): string =>
  [
    `mkdir -p ${out}`,
    `git status --porcelain > ${out}/status`,
    'echo one > one.txt',
    'git add one.txt',
    'git commit -q -m "agent one"',
    'git commit -q --amend -m "agent one (amended)"',
    'git tag agent-tag',
    'git branch agent-side',
    `git rev-parse --abbrev-ref HEAD > ${out}/branch`,
    `git log --format=%s main > ${out}/main-log`,
    ...traps(),
    'echo two > two.txt',
    `echo done > ${out}/done`,
  ].join('\n');

describe("an agent's git in its own repository", () => {
  it('commits on its branch come back, the shared git directory is never written while it runs, nothing it planted runs', async () => {
    const user = captureUserState(sandbox.repo);
    const configBefore = readFileSync(path.join(sandbox.repo, '.git', 'config'), 'utf8');
    // The shared directory as the agent starts: hydra has made its worktree (and entry) by then.
    let before: Map<string, string> | null = null;
    let during: Map<string, string> | null = null;
    const body = ownBranchScript();
    handle = raceScript(sandbox, `sleep 0.5\n${body}\nsleep 0.5`);
    const stop = handle.subscribe((snapshot) => {
      const agent = snapshot.agents[0];
      if (before === null && agent?.status === 'running') before = sharedGitDir();
      if (during === null && existsSync(path.join(out, 'done'))) during = sharedGitDir();
    });
    await eventuallyTrue(() => existsSync(path.join(out, 'done')));
    during ??= sharedGitDir();
    const summary = await handle.settled;
    stop();
    expect(summary.agents[0]?.status).toBe('completed');
    // The agent's git worked: on its own branch, the user's main readable, status clean at start.
    expect(readFileSync(path.join(out, 'branch'), 'utf8').trim()).toBe(
      `hydra/${handle.runId}/${SCRIPT_AGENT}`,
    );
    expect(readFileSync(path.join(out, 'main-log'), 'utf8').trim()).toBe('init');
    expect(readFileSync(path.join(out, 'status'), 'utf8')).toBe('');
    // Nothing under the shared git directory changed while it ran git (refs, objects, config, hooks, info, its entry).
    expect(before).not.toBeNull();
    expect([...during!].filter(([rel, what]) => before!.get(rel) !== what)).toEqual([]);
    expect([...before!.keys()].filter((rel) => !during!.has(rel))).toEqual([]);
    // Its amended commit is on its branch, under hydra's result commit with the rest of its work.
    const branch = `hydra/${handle.runId}/${SCRIPT_AGENT}`;
    expect(git(sandbox.repo, 'log', '--format=%s', branch).trim().split('\n').slice(1)).toEqual([
      'agent one (amended)',
      'init',
    ]);
    expect(git(sandbox.repo, 'show', `${branch}:one.txt`)).toBe('one\n');
    expect(git(sandbox.repo, 'show', `${branch}:two.txt`)).toBe('two\n');
    // Its tag and side branch stayed in its own repository; the user's refs, config and hooks are as they were.
    expect(git(sandbox.repo, 'tag', '--list')).toBe('');
    expect(git(sandbox.repo, 'branch', '--list', 'agent-side')).toBe('');
    expectUserStateUnchanged(sandbox.repo, user);
    expect(readFileSync(path.join(sandbox.repo, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(
      readdirSync(path.join(sandbox.repo, '.git', 'hooks')).filter((name) => !name.endsWith('.sample')),
    ).toEqual([]);
    // hydra's own git (taking the commits back, staging, committing) ran none of what it planted.
    expect(ran()).toEqual([]);
    const worktree = handle.getSnapshot().agents[0]!.worktree!;
    await handle.finish();
    expect(existsSync(path.join(path.dirname(worktree), '.git-private'))).toBe(false);
    // Merged, the user's own log shows the agent's commit, and the user's git runs nothing either.
    await mergeRun(sandbox.repo, handle.runId, SCRIPT_AGENT, {}, { worktreeRoot: sandbox.worktreeRoot });
    expect(git(sandbox.repo, 'log', '--format=%s', 'main')).toContain('agent one (amended)');
    git(sandbox.repo, 'status');
    expect(ran()).toEqual([]);
  });

  it("an agent that switches to its copy of the user's branch and commits there moves no ref of the user's", async () => {
    const user = captureUserState(sandbox.repo);
    handle = raceScript(
      sandbox,
      [
        'git checkout -q -b other',
        'echo other > other.txt',
        'git add other.txt',
        'git commit -q -m "on other"',
        'git checkout -q main',
        'echo mine > main.txt',
        'git add main.txt',
        'git commit -q -m "on main"',
        'echo loose > loose.txt',
      ].join('\n'),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    expectUserStateUnchanged(sandbox.repo, user);
    expect(git(sandbox.repo, 'log', '--format=%s', 'main').trim()).toBe('init');
    expect(git(sandbox.repo, 'branch', '--list', 'other')).toBe('');
    const branch = `hydra/${handle.runId}/${SCRIPT_AGENT}`;
    // Only what it made on the branch it left for: "on main", then its uncommitted file.
    expect(git(sandbox.repo, 'show', `${branch}:main.txt`)).toBe('mine\n');
    expect(git(sandbox.repo, 'show', `${branch}:loose.txt`)).toBe('loose\n');
    expect(git(sandbox.repo, 'log', '--format=%s', branch).trim().split('\n').slice(1)).toEqual([
      'on main',
      'init',
    ]);
  });

  it('a private repository the agent wrecked: its files are still committed, with a warning', async () => {
    handle = raceScript(
      sandbox,
      [
        'echo one > one.txt',
        'git add one.txt',
        'git commit -q -m "agent one"',
        'gd=$(git rev-parse --path-format=absolute --git-dir)',
        'rm -rf "$gd/objects" "$gd/refs"',
      ].join('\n'),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    const branch = `hydra/${handle.runId}/${SCRIPT_AGENT}`;
    expect(git(sandbox.repo, 'show', `${branch}:one.txt`)).toBe('one\n');
    expect(handle.getSnapshot().agents[0]!.warnings.join('\n')).toMatch(/own git repository .* was damaged/);
  });
});

async function eventuallyTrue(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
