/**
 * Fault 10.6: the terminal goes away during a dashboard race (the terminal emulator is closed, the
 * tmux session dies). hydra must treat it like Ctrl-C: stop every agent, clean up, write the run's
 * summary (cancelled, not "dead") and exit. Siblings: headless mode whose stdout reader goes away
 * (`| head -1`, EPIPE) and whose stderr is closed.
 *
 * Real terminals (tmux) and the real `hydra race` (dist/cli/main.js) with fake agents that hang.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listRuns } from '../../../src/engine/index.js';
import { installFaultAgents } from '../../support/fault-bin.js';
import { alive, eventually, git, processesOfRun } from '../../support/engine-helpers.js';
import { MAIN } from '../../support/cli-helpers.js';
import {
  captureUserState,
  expectRecordsReadable,
  expectUserStateUnchanged,
  extraWorktrees,
  hydraBranches,
} from '../../support/fault-invariants.js';
import type { UserState } from '../../support/fault-invariants.js';

interface Box {
  dir: string;
  repo: string;
  bin: string;
  socket: string;
  env: Record<string, string>;
  before: UserState;
}

let box: Box;

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

const tmux = (args: string[]) =>
  execa('tmux', ['-L', box.socket, '-f', '/dev/null', ...args], { stdin: 'ignore', reject: false });

/** Processes started from this test's directory (fake agents, hydra itself). */
const processesOfBox = async (): Promise<string[]> => {
  const { stdout } = await execa('ps', ['-eo', 'pid=,args='], { stdin: 'ignore' });
  return stdout.split('\n').filter((line) => line.includes(box.dir));
};

/** The hydra of the race, from its run record (null before the record exists). */
const hydraPid = (): number | null => {
  const runs = path.join(box.repo, '.hydra', 'runs');
  if (!existsSync(runs)) return null;
  const [runId] = readdirSync(runs);
  if (runId === undefined) return null;
  try {
    return (JSON.parse(readFileSync(path.join(runs, runId, 'meta.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return null; // not written yet
  }
};

const hydraAlive = (): boolean => {
  const pid = hydraPid();
  return pid !== null && alive(pid);
};

const fakeAgents = async (): Promise<string[]> =>
  (await processesOfBox()).filter((line) => line.includes('fault-agent.js'));

beforeEach(async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hydra-fault-terminal-'));
  const repo = path.join(dir, 'repo');
  const bin = path.join(dir, 'bin');
  await execa('mkdir', ['-p', repo, bin, path.join(dir, 'home'), path.join(dir, 'worktrees')]);
  git(repo, 'init', '-q', '-b', 'main');
  await writeFile(path.join(repo, 'README.md'), '# fault\n');
  git(repo, 'add', 'README.md');
  git(repo, 'commit', '-q', '-m', 'first');
  await writeFile(path.join(repo, 'notes.txt'), 'uncommitted work must survive\n');
  await installFaultAgents(bin, {
    claude: { agent: 'claude', delayMs: 20, hangAfterLines: 2 },
    codex: { agent: 'codex', delayMs: 20, hangAfterLines: 2 },
  });
  const env = {
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: path.join(dir, 'home'),
    XDG_CONFIG_HOME: path.join(dir, 'home', '.config'),
    HYDRA_WORKTREE_ROOT: path.join(dir, 'worktrees'),
    // The suite races its fakes unsandboxed, as written (vitest.config.ts); test/system/sandbox/ races them in it.
    HYDRA_SANDBOX: process.env.HYDRA_SANDBOX ?? 'off',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    GIT_AUTHOR_NAME: 'fault',
    GIT_AUTHOR_EMAIL: 'fault@hydra.invalid',
    GIT_COMMITTER_NAME: 'fault',
    GIT_COMMITTER_EMAIL: 'fault@hydra.invalid',
  };
  box = {
    dir,
    repo,
    bin,
    socket: `hydra-fault-${process.pid}-${Date.now()}`,
    env,
    before: captureUserState(repo),
  };
});

afterEach(async () => {
  await tmux(['kill-server']);
  for (const line of await processesOfBox()) {
    try {
      process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
    } catch {
      // gone
    }
  }
  await execa('git', ['worktree', 'prune'], { cwd: box.repo, reject: false, stdin: 'ignore' });
  await rm(box.dir, { recursive: true, force: true });
});

/** Starts the dashboard race in a tmux session and waits until both agents run. */
const startDashboardRace = async (flags: string[] = []): Promise<void> => {
  const assignments = Object.entries(box.env)
    .map(([key, value]) => `${key}=${shellQuote(value)}`)
    .join(' ');
  const command = `env -u CI ${assignments} ${shellQuote(process.execPath)} ${shellQuote(MAIN)} race ${flags.join(' ')} ${shellQuote('Add a greeting')}`;
  await tmux(['new-session', '-d', '-x', '160', '-y', '45', '-s', 'race', '-c', box.repo, command]);
  await eventually(() => hydraPid() !== null, 20_000, 'the run record');
  const deadline = Date.now() + 20_000;
  while ((await fakeAgents()).length < 2 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect((await fakeAgents()).length).toBeGreaterThanOrEqual(2);
};

/** Waits for hydra to be gone, then checks everything a cancel must leave. */
const expectCancelledAndClean = async (): Promise<void> => {
  await eventually(() => !hydraAlive(), 20_000, 'hydra to exit');
  expect(await fakeAgents()).toEqual([]);
  const runs = await listRuns(box.repo);
  expect(runs).toHaveLength(1);
  const run = runs[0]!;
  expect(processesOfRun(run.runId)).toEqual([]);
  expect(run.state).toBe('finished');
  expect(run.agents.map((agent) => agent.status)).toEqual(['cancelled', 'cancelled']);
  expect(extraWorktrees(box.repo)).toEqual([]);
  expect(hydraBranches(box.repo)).toEqual([]);
  expectUserStateUnchanged(box.repo, box.before);
  expectRecordsReadable(box.repo);
};

describe('the terminal goes away during a dashboard race', () => {
  it('tmux kill-session: the race is cancelled and cleaned up, not left dead', async () => {
    await startDashboardRace();

    await tmux(['kill-session', '-t', 'race']);

    await expectCancelledAndClean();
  });

  it('a headless race on that terminal (--json): the same', async () => {
    await startDashboardRace(['--json']);

    await tmux(['kill-session', '-t', 'race']);

    await expectCancelledAndClean();
  });

  it('tmux kill-server: the same', async () => {
    await startDashboardRace();

    await tmux(['kill-server']);

    await expectCancelledAndClean();
  });
});

describe('headless output that goes away', () => {
  const headless = (pipeline: string) =>
    execa('sh', ['-c', pipeline], {
      cwd: box.repo,
      env: box.env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 60_000,
    });

  it('stdout piped into `head -1` (EPIPE), stderr closed: cancelled and cleaned up', async () => {
    const race = `${shellQuote(process.execPath)} ${shellQuote(MAIN)} race --json ${shellQuote('Add a greeting')}`;

    const result = await headless(`${race} 2>&- | head -1`);

    expect(result.stdout.split('\n')).toHaveLength(1);
    await expectCancelledAndClean();
  });
});
