/**
 * Issue 10.3: git hooks and what git runs while hydra makes its worktrees, through the real `hydra`
 * entry. hydra's own checkouts run without the user's hooks (a failing, silent or hanging
 * post-checkout hook changes nothing); what git still runs (a filter) is under a time limit and
 * cancellable: a failure names the git step with a hint, a hang ends on SIGINT/SIGTERM or at the
 * time limit, and a hydra killed outright leaves a run that `hydra runs` shows and `hydra clean`
 * removes.
 */
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa, execaSync } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
import { eventually } from '../../support/engine-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
  extraWorktrees,
  hydraBranches,
} from '../../support/fault-invariants.js';
import type { UserState } from '../../support/fault-invariants.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
});

afterEach(() => {
  // Never leave a hung filter behind, whatever a failing test did.
  for (const pid of hungFilters()) process.kill(pid, 'SIGKILL');
  sandbox.cleanup();
});

/** A `sleep` with a duration no other test uses: the hung hook's or filter's child. */
const HANG = 'sleep 617';
const hungFilters = (): number[] =>
  execaSync('ps', ['-eo', 'pid=,args='])
    .stdout.split('\n')
    .filter((line) => line.includes(HANG))
    .map((line) => Number(line.trim().split(/\s+/)[0]));

const writeHook = (name: string, body: string): string => {
  const file = path.join(repo, '.git', 'hooks', name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
};

/** A checked-in file that goes through a smudge filter on every checkout (like git-lfs). */
const useFilter = (command: string): void => {
  writeFileSync(path.join(repo, '.gitattributes'), '*.bin filter=probe\n');
  writeFileSync(path.join(repo, 'data.bin'), 'payload\n');
  git(repo, ['add', '-A']);
  git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'filtered file']);
  git(repo, ['config', 'filter.probe.smudge', command]);
  git(repo, ['config', 'filter.probe.clean', 'cat']);
  git(repo, ['config', 'filter.probe.required', 'true']);
};

const race = (env: NodeJS.ProcessEnv = sandbox.env) =>
  hydra(['race', '--json', '--agents', 'claude', 'Add a hello.txt file'], {
    cwd: repo,
    env,
    timeoutMs: 60_000,
  });

type Summary = {
  runId: string;
  agents: Array<{ agent: string; status: string; error?: { kind: string; message: string; hint: string } }>;
  error?: { kind: string; message: string; hint: string };
};
const summaryOf = (stdout: string): Summary => parseNdjson(stdout).at(-1) as unknown as Summary;

/** Nothing of the run is left: no worktree, no hydra branch, no record, no process. */
const expectNothingLeft = (runId: string, before: UserState): void => {
  expectUserStateUnchanged(repo, before);
  expect(extraWorktrees(repo)).toEqual([]);
  expect(hydraBranches(repo)).toEqual([]);
  expect(existsSync(path.join(repo, '.hydra', 'runs', runId))).toBe(false);
  expect(hungFilters()).toEqual([]);
  expectNoProcessOfRun(runId);
  expectRecordsReadable(repo);
};

describe("hydra's worktrees are made without the user's hooks", () => {
  const cases: Array<[string, string]> = [
    ['fails with stderr', 'echo "post-checkout: refusing" >&2\nexit 1'],
    ['exits 1 silently', 'exit 1'],
    ['hangs and ignores SIGTERM', `trap '' TERM\n${HANG}`],
  ];
  it.each(cases)('a post-checkout hook that %s does not run, and the race completes', async (_name, body) => {
    const marker = path.join(sandbox.dir, 'hook-ran');
    writeHook('post-checkout', `touch '${marker}'\n${body}`);
    const before = captureUserState(repo);

    const result = await race();

    expect(result.exitCode, result.stderr).toBe(0);
    const summary = summaryOf(result.stdout);
    expect(summary.agents[0]).toMatchObject({ agent: 'claude', status: 'completed' });
    expect(existsSync(marker)).toBe(false);
    expectUserStateUnchanged(repo, before);
    expect(extraWorktrees(repo)).toEqual([]);
    // The completed agent's branch is kept for `hydra merge`; `hydra clean` removes it.
    expect(hydraBranches(repo)).toEqual([`hydra/${summary.runId}/claude`]);
    const clean = await hydra(['clean'], { cwd: repo, env: sandbox.env });
    expect(clean.exitCode, clean.stderr).toBe(0);
    expectNothingLeft(summary.runId, before);
  });
});

describe('what git runs while making a worktree', () => {
  it('a failing filter: the race fails naming the git step, with a hint, and leaves nothing', async () => {
    useFilter('sh -c \'echo "filter: cannot fetch payload" >&2; exit 3\'');
    const before = captureUserState(repo);

    const result = await race();

    expect(result.exitCode).toBe(1);
    const summary = summaryOf(result.stdout);
    expect(summary.error?.message).toMatch(
      /^git worktree add for claude failed \(exit \d+\): .*cannot fetch payload/s,
    );
    expect(summary.error?.hint).toMatch(/Run `git worktree add .*` in .*repo to see the problem/);
    expect(summary.agents[0]).toMatchObject({ status: 'failed', error: { kind: 'GitFailed' } });
    // Not blamed on the agents.
    expect(result.stderr).not.toMatch(/no agent could run/);
    expect(result.stderr).toMatch(/git worktree add for claude failed/);
    expectNothingLeft(summary.runId, before);
  });

  it('a hung filter is stopped at the time limit: the step is named, nothing is left', async () => {
    useFilter(`sh -c "trap '' TERM; ${HANG}"`);
    const before = captureUserState(repo);
    const started = Date.now();

    const result = await race({ ...sandbox.env, HYDRA_GIT_TIMEOUT_MS: '1500' });

    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.exitCode).toBe(1);
    const summary = summaryOf(result.stdout);
    expect(summary.error).toMatchObject({
      kind: 'TimedOut',
      message: expect.stringMatching(/^git worktree add for claude did not finish within 1\.5 s/),
      hint: expect.stringMatching(/HYDRA_GIT_TIMEOUT_MS/),
    });
    expectNothingLeft(summary.runId, before);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'a hung filter that ignores SIGTERM: %s to hydra ends the race promptly and leaves nothing',
    async (signal) => {
      useFilter(`sh -c "trap '' TERM; ${HANG}"`);
      const before = captureUserState(repo);
      const child = execa(process.execPath, [MAIN, 'race', '--json', '--agents', 'claude', 'Add hello'], {
        cwd: repo,
        env: sandbox.env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 60_000,
      });
      await eventually(() => hungFilters().length > 0, 20_000, 'the filter to hang');

      const signalled = Date.now();
      child.kill(signal);
      const result = await child;

      // hydra's kill grace is 5 s; git gets SIGTERM, then SIGKILL with the filter's whole group.
      expect(Date.now() - signalled).toBeLessThan(8_000);
      expect(result.exitCode).toBe(130);
      const summary = summaryOf(String(result.stdout));
      expect(summary.agents[0]).toMatchObject({ status: 'cancelled' });
      expectNothingLeft(summary.runId, before);
    },
  );

  it('hydra killed outright while git hangs: the watchdog ends the filter, `hydra runs` shows the run and `hydra clean` removes it', async () => {
    useFilter(`sh -c "trap '' TERM; ${HANG}"`);
    const before = captureUserState(repo);
    const child = execa(process.execPath, [MAIN, 'race', '--json', '--agents', 'claude', 'Add hello'], {
      cwd: repo,
      env: sandbox.env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 60_000,
    });
    await eventually(() => hungFilters().length > 0, 20_000, 'the filter to hang');
    const runId = readdirSync(path.join(repo, '.hydra', 'runs'))[0]!;

    child.kill('SIGKILL');
    await child;
    await eventually(() => hungFilters().length === 0, 15_000, 'the watchdog to end the filter');

    const runs = await hydra(['runs'], { cwd: repo, env: sandbox.env });
    expect(runs.stdout).toContain(runId);
    expect(runs.stdout).toMatch(/dead/);
    const clean = await hydra(['clean'], { cwd: repo, env: sandbox.env });
    expect(clean.exitCode, clean.stderr).toBe(0);
    expectNothingLeft(runId, before);
  });
});
