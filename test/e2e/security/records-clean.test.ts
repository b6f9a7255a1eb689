/**
 * Issue 9.1: a run record is data, never authority. A record planted in `.hydra/runs` (committed
 * to a cloned repository, or written there by anything else) names a directory of the victim's and
 * another process group: `hydra clean` must delete nothing outside hydra's own worktree directory
 * for that run, signal no process that is not the run's, and say in `--dry-run` what it refuses.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoKey } from '../../../src/engine/records/paths.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';
import { alive, eventually } from '../../support/engine-helpers.js';
import { captureUserState, expectUserStateUnchanged, hydraBranches } from '../../support/fault-invariants.js';

let sandbox: Sandbox;
let repo: string;
let victims: ChildProcess[] = [];

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => {
  for (const victim of victims) victim.kill('SIGKILL');
  victims = [];
  sandbox.cleanup();
});

const RUN = '20261101-101010-abcd';

/** A directory of the victim's, with a file in it. */
const victimDir = (name = 'precious'): string => {
  const dir = path.join(sandbox.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'thesis.txt'), 'years of work\n');
  return dir;
};

/** A process of the victim's, leading its own process group. */
const victimProcess = (env: NodeJS.ProcessEnv = {}, cwd = sandbox.dir): ChildProcess => {
  const child = spawn('sleep', ['60'], {
    detached: true,
    stdio: 'ignore',
    cwd,
    env: { ...process.env, ...env },
  });
  victims.push(child);
  return child;
};

/** A pid that is certainly dead: a process that already exited. */
const deadPid = (): number => spawnSync('true').pid ?? 999_999;

/** The directory hydra keeps this run's worktrees in. */
const runArea = (repoDir: string, runId = RUN): string =>
  path.join(sandbox.env.HYDRA_WORKTREE_ROOT!, repoKey(realpathSync(repoDir)), runId);

interface PlantOptions {
  worktrees: string[];
  pgid?: number;
  startedAt?: number;
  branch?: (agent: string) => string;
}

/** A well-formed record of a dead run, as an attacker (or a stray script) would write it. */
const plantRecord = (repoDir: string, options: PlantOptions, runId = RUN): string => {
  const dir = path.join(repoDir, '.hydra', 'runs', runId);
  mkdirSync(path.join(dir, 'agents'), { recursive: true });
  const agents = options.worktrees.map((worktree, index) => {
    const agent = ['claude', 'codex', 'cursor'][index]!;
    return {
      agent,
      branch: options.branch?.(agent) ?? `hydra/${runId}/${agent}`,
      worktree,
      version: '1.0.0',
      capabilities: null,
      command: [agent],
    };
  });
  writeFileSync(
    path.join(dir, 'meta.json'),
    JSON.stringify({
      runId,
      prompt: 'innocent',
      promptSha256: 'x',
      repoRoot: repoDir,
      baseRef: git(repoDir, ['rev-parse', 'HEAD']),
      baseBranch: 'main',
      startedAt: options.startedAt ?? Date.now() - 60_000,
      pid: deadPid(),
      hydraVersion: '0.1.0',
      config: null,
      agents,
    }),
  );
  if (options.pgid !== undefined) {
    writeFileSync(
      path.join(dir, 'agents', 'claude.pid'),
      JSON.stringify({
        agent: 'claude',
        pid: options.pgid,
        pgid: options.pgid,
        startTime: null,
        worktree: options.worktrees[0],
      }),
    );
  }
  return dir;
};

const clean = (args: string[] = [], cwd = repo) => hydra(['clean', ...args], { cwd, env: sandbox.env });

/** Lets a SIGKILL land before asserting that a process is still alive. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 150));

describe('a run record committed to a cloned repository', () => {
  it('is foreign: hydra clean deletes nothing, signals nothing, and leaves the committed files alone', async () => {
    const precious = victimDir();
    const victim = victimProcess({}, precious);
    const origin = await createRepo(sandbox.dir, { name: 'origin' });
    plantRecord(origin, { worktrees: [precious, '/nonexistent'], pgid: victim.pid! });
    git(origin, ['add', '-f', '.hydra']);
    git(origin, ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'add records']);
    const clone = path.join(sandbox.dir, 'clone');
    git(sandbox.dir, ['clone', '-q', origin, clone]);
    const before = captureUserState(clone);

    const dry = await clean(['--dry-run'], clone);
    const result = await clean([], clone);
    await settle();

    expect(dry.stdout).toContain(`kept ${RUN}: its record is committed to the repository`);
    expect(dry.stdout).not.toContain(precious);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(`kept ${RUN}: its record is committed to the repository`);
    expect(readFileSync(path.join(precious, 'thesis.txt'), 'utf8')).toBe('years of work\n');
    expect(alive(victim.pid!)).toBe(true);
    expectUserStateUnchanged(clone, before);
    expect(git(clone, ['status', '--porcelain'])).toBe('');
    const runs = await hydra(['runs', '--json'], { cwd: clone, env: sandbox.env });
    expect(JSON.parse(runs.stdout)).toMatchObject({ runs: [{ runId: RUN, state: 'foreign' }] });
  });
});

describe('a planted (untracked) run record', () => {
  it('naming a directory of the victim: hydra clean refuses it and deletes nothing', async () => {
    const precious = victimDir();

    plantRecord(repo, { worktrees: [precious] });
    const result = await clean();

    expect(result.exitCode, result.stderr).toBe(0);
    expect(readFileSync(path.join(precious, 'thesis.txt'), 'utf8')).toBe('years of work\n');
    expect(result.stdout).toContain(`refused, not hydra's to touch (1):`);
    expect(result.stdout).toContain(`${precious} (run ${RUN}): outside hydra's worktree directory`);
    expect(result.stdout).not.toMatch(/removed worktrees/);
  });

  it("naming one of the user's own git worktrees: it stays, with its uncommitted work", async () => {
    const mine = path.join(sandbox.dir, 'my-feature');
    git(repo, ['worktree', 'add', '-q', '-b', 'feature', mine]);
    writeFileSync(path.join(mine, 'draft.txt'), 'uncommitted\n');

    plantRecord(repo, { worktrees: [mine] });
    const result = await clean();

    expect(result.exitCode, result.stderr).toBe(0);
    expect(readFileSync(path.join(mine, 'draft.txt'), 'utf8')).toBe('uncommitted\n');
    expect(git(repo, ['worktree', 'list'])).toContain(mine);
    expect(result.stdout).toContain(`${mine} (run ${RUN}): outside hydra's worktree directory`);
  });

  it('with a /nonexistent worktree and a foreign process group: no process is signalled', async () => {
    const victim = victimProcess();

    plantRecord(repo, { worktrees: [path.join(sandbox.dir, 'gone'), '/nonexistent'], pgid: victim.pid! });
    const dry = await clean(['--dry-run']);
    const result = await clean();
    await settle();

    expect(result.exitCode, result.stderr).toBe(0);
    expect(alive(victim.pid!)).toBe(true);
    expect(result.stdout).not.toMatch(/stopped left-over agent processes/);
    expect(dry.stdout).toContain(`would refuse, not hydra's to touch (3):`);
    expect(dry.stdout).toContain(`/nonexistent (run ${RUN}): outside hydra's worktree directory`);
    expect(dry.stdout).toContain(
      `process group ${victim.pid} (agents/claude.pid) (run ${RUN}): process ${victim.pid} does not carry run ${RUN}'s marker`,
    );
  });

  it('with a worktree path that leads out through a symbolic link: the target stays', async () => {
    const precious = victimDir('outside/precious');
    const area = runArea(repo);
    mkdirSync(area, { recursive: true });
    symlinkSync(path.join(sandbox.dir, 'outside'), path.join(area, 'claude'));
    const recorded = path.join(area, 'claude', 'precious');

    plantRecord(repo, { worktrees: [recorded] });
    const result = await clean();

    expect(result.exitCode, result.stderr).toBe(0);
    expect(readFileSync(path.join(precious, 'thesis.txt'), 'utf8')).toBe('years of work\n');
    expect(result.stdout).toContain(`${recorded} (run ${RUN}): leads through a symbolic link to ${precious}`);
    // hydra's own directory for the run (holding only the link) is gone; the link's target is not.
    expect(existsSync(area)).toBe(false);
  });

  it('with a `..` worktree path: refused, the directory stays', async () => {
    const precious = victimDir();
    const recorded = `${runArea(repo)}/../../../precious`;
    expect(path.resolve(recorded)).toBe(precious);

    plantRecord(repo, { worktrees: [recorded] });
    const result = await clean();

    expect(result.exitCode, result.stderr).toBe(0);
    expect(readFileSync(path.join(precious, 'thesis.txt'), 'utf8')).toBe('years of work\n');
    expect(result.stdout).toContain(`${recorded} (run ${RUN}): not an absolute path without \`..\``);
  });

  it('--dry-run lists what it would refuse apart from what it would remove, and why', async () => {
    const precious = victimDir();
    plantRecord(repo, { worktrees: [precious] });

    const dry = await clean(['--dry-run']);

    expect(dry.stdout.split('\n')).toEqual([
      'would remove run records (1):',
      `  ${path.join(realpathSync(repo), '.hydra', 'runs', RUN)}`,
      "would refuse, not hydra's to touch (1):",
      `  ${precious} (run ${RUN}): outside hydra's worktree directory for this run (${runArea(repo)})`,
      'dry run: nothing was changed; run hydra clean to do it',
      '',
    ]);
    expect(existsSync(path.join(repo, '.hydra', 'runs', RUN))).toBe(true);
  });

  it("signals a process with the run's marker only when it started after the run", async () => {
    const before = victimProcess({ HYDRA_RUN_ID: RUN });
    plantRecord(repo, { worktrees: [], startedAt: Date.now() + 3_600_000 });

    const result = await clean();
    await settle();

    expect(result.exitCode, result.stderr).toBe(0);
    expect(alive(before.pid!)).toBe(true);

    const after = victimProcess({ HYDRA_RUN_ID: RUN });
    await eventually(() => alive(after.pid!), 2000, 'the marked process to start');
    plantRecord(repo, { worktrees: [], startedAt: Date.now() - 60_000 });
    const second = await clean();
    expect(second.stdout).toContain('stopped left-over agent processes');
    await eventually(() => !alive(after.pid!), 5000, 'the marked process to be killed');
  });
});

describe('a real run raced with another worktree root', () => {
  it('is not cleaned from the wrong root: its worktree, branch and record stay until clean runs with the right one', async () => {
    await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
    const raced = await hydra(['race', '--json', '--keep-worktrees', '--agents', 'claude', 'Add hello.txt'], {
      cwd: repo,
      env: sandbox.env,
      timeoutMs: 60_000,
    });
    expect(raced.exitCode, raced.stderr).toBe(0);
    const runId = String(parseNdjson(raced.stdout)[0]?.runId);
    const worktree = path.join(runArea(repo, runId), 'claude');
    expect(existsSync(worktree)).toBe(true);
    const otherRoot = path.join(sandbox.dir, 'other-root');
    mkdirSync(otherRoot);

    const wrong = await hydra(['clean'], {
      cwd: repo,
      env: { ...sandbox.env, HYDRA_WORKTREE_ROOT: otherRoot },
    });

    expect(wrong.exitCode, wrong.stderr).toBe(0);
    expect(wrong.stdout).toContain(
      `${worktree} (run ${runId}): a worktree outside hydra's worktree directory`,
    );
    expect(wrong.stdout).toContain(`kept ${runId}: its record is kept`);
    expect(existsSync(worktree)).toBe(true);
    expect(hydraBranches(repo)).toEqual([`hydra/${runId}/claude`]);

    const right = await clean();

    expect(right.exitCode, right.stderr).toBe(0);
    expect(existsSync(worktree)).toBe(false);
    expect(hydraBranches(repo)).toEqual([]);
    expect(existsSync(path.join(repo, '.hydra'))).toBe(false);
  });
});

describe('records that point elsewhere (siblings)', () => {
  it('hydra merge refuses a record whose branch is not hydra/<run>/<agent>, and deletes no branch', async () => {
    git(repo, ['branch', 'dev']);
    git(repo, ['switch', '-q', '-c', `hydra/${RUN}/claude`]);
    writeFileSync(path.join(repo, 'hello.txt'), 'hi\n');
    git(repo, ['add', '-A']);
    git(repo, ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'result']);
    git(repo, ['switch', '-q', 'main']);
    const recordDir = plantRecord(repo, {
      worktrees: [path.join(runArea(repo), 'claude')],
      branch: () => 'dev',
    });
    writeFileSync(
      path.join(recordDir, 'summary.json'),
      JSON.stringify({
        runId: RUN,
        prompt: 'innocent',
        baseRef: null,
        baseBranch: 'main',
        startedAt: 0,
        endedAt: 1,
        error: null,
        agents: [
          {
            agent: 'claude',
            status: 'completed',
            exitCode: 0,
            durationMs: 1,
            usage: {
              inputTokens: null,
              outputTokens: null,
              cacheReadTokens: null,
              cacheWriteTokens: null,
              turns: null,
              costUsd: null,
              costSource: 'unknown',
            },
            diff: { filesChanged: 1, insertions: 1, deletions: 0 },
            branch: 'dev',
            worktree: null,
          },
        ],
      }),
    );
    const before = captureUserState(repo);

    const result = await hydra(['merge', RUN, 'claude'], { cwd: repo, env: sandbox.env });

    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain(
      `The record of run ${RUN} is damaged: meta.json: agents[0].branch: "dev"`,
    );
    expect(git(repo, ['branch', '--list', 'dev'])).toContain('dev');
    expectUserStateUnchanged(repo, before);
  });

  it('a record whose run id does not match its directory is damaged, and clean removes only the record', async () => {
    const precious = victimDir();
    const dir = plantRecord(repo, { worktrees: [precious] });
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ ...meta, runId: '20261101-101010-ffff' }));

    const runs = await hydra(['runs', '--json'], { cwd: repo, env: sandbox.env });
    const result = await clean();

    expect(JSON.parse(runs.stdout)).toMatchObject({
      runs: [
        {
          runId: RUN,
          state: 'damaged',
          problem: expect.stringContaining('runId: says 20261101-101010-ffff'),
        },
      ],
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync(path.join(precious, 'thesis.txt'), 'utf8')).toBe('years of work\n');
  });

  it('a record directory that is a symbolic link: clean removes the link, never its target', async () => {
    const precious = victimDir();
    mkdirSync(path.join(repo, '.hydra', 'runs'), { recursive: true });
    symlinkSync(precious, path.join(repo, '.hydra', 'runs', RUN));

    const show = await hydra(['show', RUN], { cwd: repo, env: sandbox.env });
    const result = await clean();

    expect(show.exitCode).not.toBe(0);
    expect(show.stderr).toContain('is damaged: the record is a symbolic link');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(existsSync(path.join(repo, '.hydra', 'runs', RUN))).toBe(false);
    expect(readFileSync(path.join(precious, 'thesis.txt'), 'utf8')).toBe('years of work\n');
  });

  it('a committed .hydra that is a symbolic link does not redirect where a race writes its records', async () => {
    await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
    const elsewhere = path.join(sandbox.dir, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, path.join(repo, '.hydra'));

    const result = await hydra(['race', '--json', '--agents', 'claude', 'Add hello.txt'], {
      cwd: repo,
      env: sandbox.env,
      timeoutMs: 60_000,
    });

    expect(result.exitCode).not.toBe(0);
    expect(result.stdout + result.stderr).toContain(
      'is a symbolic link, so hydra will not write its run records there',
    );
    expect(spawnSync('find', [elsewhere, '-mindepth', '1']).stdout.toString()).toBe('');
    expect(hydraBranches(repo)).toEqual([]);
  });
});

describe('record and cache permissions', () => {
  it('a race writes its records and the probe cache owner-only (0600 files, 0700 directories)', async () => {
    await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
    const result = await hydra(['race', '--json', '--agents', 'claude', 'Add hello.txt'], {
      cwd: repo,
      env: sandbox.env,
      timeoutMs: 60_000,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const runId = String(parseNdjson(result.stdout)[0]?.runId);
    const mode = (file: string): string => (statSync(file).mode & 0o777).toString(8);

    const records = path.join(repo, '.hydra', 'runs', runId);
    expect(mode(path.join(repo, '.hydra'))).toBe('700');
    expect(mode(path.join(repo, '.hydra', 'runs'))).toBe('700');
    expect(mode(records)).toBe('700');
    for (const name of ['meta.json', 'events.jsonl', 'summary.json'])
      expect(mode(path.join(records, name)), name).toBe('600');
    const cache = path.join(repo, '.cache', 'hydra');
    expect(mode(cache)).toBe('700');
    expect(mode(path.join(cache, 'adapter-capabilities.json'))).toBe('600');
  });
});
