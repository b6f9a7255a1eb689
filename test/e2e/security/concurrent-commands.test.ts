/**
 * Issue 21, cases 2 to 4: two real hydra commands at once on one run (or one repository) never
 * tread on each other, and a merge that fails never writes over newer work. Each test spawns the
 * built CLI twice; the first command is held at a known point by something the test controls (a
 * fake agent waiting for a file, the user's signing program, or a git of the test's own first on the
 * merge's PATH), so the
 * overlap is certain, not timing luck. The second command waits HYDRA_LOCK_WAIT_MS (short here)
 * and then refuses, naming the command that holds the run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  MAIN,
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';
import { writeScript } from '../../support/security-helpers.js';

// Each test is a race and then two or three hydra commands, a minute or more on a loaded machine.
vi.setConfig({ testTimeout: 180_000 });

let sandbox: Sandbox;
let repo: string;
/** Where the test and the things it holds talk: `armed*` (consumed once), `started`, `release`. */
let gate: string;
const running: Array<{ kill: (signal?: NodeJS.Signals) => boolean }> = [];

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  git(repo, ['config', 'user.name', 'test']);
  git(repo, ['config', 'user.email', 'test@example.invalid']);
  gate = path.join(sandbox.dir, 'gate');
  mkdirSync(gate);
});

afterEach(() => {
  writeFileSync(path.join(gate, 'release'), '');
  for (const child of running.splice(0)) child.kill('SIGKILL');
  sandbox.cleanup();
});

const SECOND = (): NodeJS.ProcessEnv => ({ ...sandbox.env, HYDRA_LOCK_WAIT_MS: '300' });

const run = (args: string[], env: NodeJS.ProcessEnv = sandbox.env) =>
  hydra(args, { cwd: repo, env, timeoutMs: 90_000 });

/** Starts a hydra command and returns its process (not awaited: it is held at the gate). */
function start(args: string[]) {
  const child = execa(process.execPath, [MAIN, ...args], {
    cwd: repo,
    env: sandbox.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 170_000,
  });
  running.push(child);
  return child;
}

async function waitForFile(file: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} did not appear within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const arm = (name = 'armed'): void => mkdirSync(path.join(gate, name));
const release = (): void => writeFileSync(path.join(gate, 'release'), '');
/** sh: once per arming (rmdir is atomic), say so in `started` and wait for `release`. */
const holdOnce = (name = 'armed'): string =>
  `if rmdir '${gate}/${name}' 2>/dev/null; then : > '${gate}/started'; while [ ! -e '${gate}/release' ]; do sleep 0.05; done; fi`;

/**
 * Claude Code and Codex fakes (in realbin/) behind wrappers on PATH that hold a follow-up (argv
 * with `--resume` or Codex's `resume`) at the gate while it is armed. Both agents write shared.txt.
 */
async function raceTwoAgents(): Promise<string> {
  const realbin = path.join(sandbox.dir, 'realbin');
  await installFakes(realbin, {
    claude: {
      agent: 'claude',
      delayMs: 5,
      edits: [{ path: 'shared.txt', content: 'claude\n' }],
      resumedEdits: [{ path: 'second.txt', content: 'round 2\n' }],
    },
    codex: {
      agent: 'codex',
      delayMs: 5,
      edits: [{ path: 'shared.txt', content: 'codex\n' }],
      resumedEdits: [{ path: 'codex-2.txt', content: 'round 2\n' }],
    },
  });
  for (const agent of ['claude', 'codex']) {
    writeScript(
      path.join(sandbox.bin, agent),
      `case " $* " in *" --resume "*|*" resume "*) ${holdOnce()} ;; esac\nexec '${realbin}/${agent}' "$@"`,
    );
  }
  const result = await run(['race', '--json', '--agents', 'claude,codex', 'Write shared.txt']);
  expect(result.exitCode, result.stderr).toBe(0);
  return String(parseNdjson(result.stdout)[0]?.['runId']);
}

/** What the user would see: HEAD, staged and unstaged changes. */
const userState = () => ({
  status: git(repo, ['status', '--porcelain']),
  staged: git(repo, ['diff', '--cached', '--name-only']),
});

describe('two hydra merges at once', () => {
  it('of one run: the second refuses naming the first; the first merges and the checkout is clean', async () => {
    // The user signs commits (set up before the race: it is the user's own configuration); their
    // signing program is where the first merge is held.
    const gpg = writeScript(
      path.join(sandbox.dir, 'fake-gpg'),
      `cat >/dev/null\n${holdOnce()}\nprintf '\\n[GNUPG:] SIG_CREATED D 1 8 00 0 FAKE\\n' >&2\nprintf -- '-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZQ==\\n-----END PGP SIGNATURE-----\\n'`,
    );
    git(repo, ['config', 'gpg.program', gpg]);
    git(repo, ['config', 'commit.gpgsign', 'true']);
    const runId = await raceTwoAgents();
    arm();

    const first = start(['merge', runId, 'claude']);
    await waitForFile(path.join(gate, 'started'));
    const second = await run(['merge', runId, 'codex'], SECOND());
    release();
    const firstDone = await first;

    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(
      `Run ${runId} is in use by \`hydra merge ${runId} claude\` (pid ${first.pid}`,
    );
    expect(second.stderr).toContain('Nothing was changed');
    expect(firstDone.exitCode, String(firstDone.stderr)).toBe(0);
    expect(readFileSync(path.join(repo, 'shared.txt'), 'utf8')).toBe('claude\n');
    expect(git(repo, ['show', 'HEAD:shared.txt'])).toBe('claude');
    expect(userState()).toEqual({ status: '', staged: '' });

    // Afterwards, the other result is refused for what it is (a conflict), and nothing changes.
    const again = await run(['merge', runId, 'codex']);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/would conflict in shared\.txt/);
    expect(userState()).toEqual({ status: '', staged: '' });
  });
});

describe('hydra merge while hydra continue works on the run', () => {
  it('refuses naming the follow-up, and the follow-up keeps its worktree and its work', async () => {
    const runId = await raceTwoAgents();
    arm();

    const follow = start(['continue', runId, 'claude', 'Add a second file', '--json']);
    await waitForFile(path.join(gate, 'started'));
    const merge = await run(['merge', runId, 'claude'], SECOND());
    const clean = await run(['clean', runId], SECOND());
    release();
    const followDone = await follow;

    expect(merge.exitCode).toBe(1);
    expect(merge.stderr).toContain(`is in use by \`hydra continue ${runId} claude\` (pid ${follow.pid}`);
    expect(clean.stdout).toContain(`kept ${runId}:`);
    expect(followDone.exitCode, String(followDone.stderr)).toBe(0);
    expect(git(repo, ['ls-tree', '-r', '--name-only', `hydra/${runId}/claude`]).split('\n')).toContain(
      'second.txt',
    );
    expect(userState()).toEqual({ status: '', staged: '' });

    // Once the follow-up is done the merge goes through, with both rounds.
    const after = await run(['merge', runId, 'claude']);
    expect(after.exitCode, after.stderr).toBe(0);
    expect(existsSync(path.join(repo, 'second.txt'))).toBe(true);
  });
});

describe('two hydra continue at once', () => {
  it.each([
    ['the same agent', 'claude'],
    ['another agent of the run', 'codex'],
  ])('on %s: the second refuses naming the first, which completes and can be merged', async (_, other) => {
    const runId = await raceTwoAgents();
    arm();

    const first = start(['continue', runId, 'claude', 'Add a second file', '--json']);
    await waitForFile(path.join(gate, 'started'));
    const second = await run(['continue', runId, other, 'Something else', '--json'], SECOND());
    release();
    const firstDone = await first;

    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(`is in use by \`hydra continue ${runId} claude\` (pid ${first.pid}`);
    expect(second.stderr).toContain('no follow-up starts now');
    expect(firstDone.exitCode, String(firstDone.stderr)).toBe(0);
    const record = JSON.parse((await run(['show', runId, '--json'])).stdout) as {
      summary: { agents: Array<{ agent: string; status: string }> };
    };
    expect(record.summary.agents.map((agent) => [agent.agent, agent.status])).toEqual([
      ['claude', 'completed'],
      ['codex', 'completed'],
    ]);
    const merged = await run(['merge', runId, 'claude']);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(existsSync(path.join(repo, 'second.txt'))).toBe(true);
  });
});

describe('a lock left by a hydra that is gone', () => {
  const lockFile = (runId: string): string => path.join(repo, '.git', 'hydra', 'locks', `run-${runId}.lock`);

  it('is taken over when its hydra was killed mid-command', async () => {
    const runId = await raceTwoAgents();
    arm();
    const follow = start(['continue', runId, 'codex', 'More', '--json']);
    await waitForFile(path.join(gate, 'started'));
    expect(JSON.parse(readFileSync(lockFile(runId), 'utf8'))).toMatchObject({ pid: follow.pid });
    follow.kill('SIGKILL');
    await follow;

    const merged = await run(['merge', runId, 'claude'], SECOND());

    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(existsSync(lockFile(runId))).toBe(false);
  });

  it('is taken over when its pid now belongs to another process (start time differs)', async () => {
    const runId = await raceTwoAgents();
    // This test's own pid is alive, but did not start at tick 1: a reused pid, not the holder.
    const stale = {
      pid: process.pid,
      startTime: '1',
      command: 'hydra continue',
      since: new Date().toISOString(),
      nonce: 'old',
    };
    mkdirSync(path.dirname(lockFile(runId)), { recursive: true });
    writeFileSync(lockFile(runId), JSON.stringify(stale));
    writeFileSync(
      path.join(repo, '.git', 'hydra', 'locks', 'merge.lock'),
      JSON.stringify({ ...stale, pid: 999_999_999 }),
    );

    const merged = await run(['merge', runId, 'claude'], SECOND());

    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(existsSync(lockFile(runId))).toBe(false);
  });
});

describe('a merge that fails after it wrote the checkout', () => {
  async function raceOne(): Promise<string> {
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 5,
        edits: [
          { path: 'README.md', content: '# changed by claude\n' },
          { path: 'new.txt', content: 'new\n' },
        ],
      },
    });
    const result = await run(['race', '--json', '--agents', 'claude', 'Change the readme']);
    expect(result.exitCode, result.stderr).toBe(0);
    return String(parseNdjson(result.stdout)[0]?.['runId']);
  }

  /**
   * hydra runs none of the repository's hooks (an agent could have planted them), so the test holds
   * the merge with a git of its own first on the merge's PATH: once armed, `step` runs right before
   * (or after) the real git does what the merge asked.
   */
  function mergeEnv(when: 'before' | 'after', match: string, step: string): NodeJS.ProcessEnv {
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const wrapDir = path.join(sandbox.dir, 'wrapped-git');
    mkdirSync(wrapDir, { recursive: true });
    const armed = `case " $* " in *${match}*) rmdir '${gate}/armed' 2>/dev/null && ARMED=1;; esac`;
    const body =
      when === 'before'
        ? `${armed}\nif [ -n "$ARMED" ]; then ${step}; fi\nexec '${realGit}' "$@"`
        : `${armed}\n'${realGit}' "$@"; rc=$?\nif [ -n "$ARMED" ]; then ${step}; fi\nexit $rc`;
    writeScript(path.join(wrapDir, 'git'), `ARMED=\n${body}`);
    return { ...sandbox.env, PATH: `${wrapDir}${path.delimiter}${sandbox.env['PATH'] ?? ''}` };
  }

  it('does not write over a file saved meanwhile', async () => {
    // The user's editor saves README.md just as the branch is about to move, and the ref update fails.
    const env = mergeEnv(
      'before',
      'update-ref*refs/heads/main',
      `printf 'newer work\\n' > '${repo}/README.md'; exit 1`,
    );
    const runId = await raceOne();
    arm();
    const head = git(repo, ['rev-parse', 'HEAD']);

    const merged = await run(['merge', runId, 'claude'], env);

    expect(merged.exitCode).toBe(1);
    expect(merged.stderr).toMatch(/README\.md.* changed on disk after the merge wrote them/);
    expect(merged.stderr).toContain('hydra wrote nothing back');
    expect(readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('newer work\n');
    expect(git(repo, ['rev-parse', 'HEAD'])).toBe(head);
  });

  it('does not stage a revert when the branch moved meanwhile (another merge of the same result)', async () => {
    // Right after the merge's checkout writes the index, another command commits that very tree.
    const env = mergeEnv(
      'after',
      'read-tree*-m*-u',
      `export GIT_AUTHOR_NAME=u GIT_AUTHOR_EMAIL=u@x GIT_COMMITTER_NAME=u GIT_COMMITTER_EMAIL=u@x; c=$(git -C '${repo}' commit-tree "$(git -C '${repo}' write-tree)" -p HEAD -m 'another merge') && git -C '${repo}' update-ref refs/heads/main "$c"`,
    );
    const runId = await raceOne();
    arm();

    const merged = await run(['merge', runId, 'claude'], env);

    expect(merged.exitCode).toBe(1);
    expect(merged.stderr).toMatch(/main moved from [0-9a-f]{12} to [0-9a-f]{12}/);
    expect(merged.stderr).toContain('hydra wrote nothing back');
    expect(git(repo, ['log', '-1', '--format=%s'])).toBe('another merge');
    // HEAD, index and files agree: nothing staged against the new commit.
    expect(userState()).toEqual({ status: '', staged: '' });
    expect(readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('# changed by claude\n');
  });
});
