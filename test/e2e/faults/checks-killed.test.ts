/**
 * Checks when hydra itself is killed: a check (on the baseline and in a completed result) that would
 * run for minutes ends with hydra's watchdog, or with `hydra clean` when there is no watchdog; the
 * baseline worktree is found and removed like the agents' (it lies in the run's directory). Both
 * ways: Linux's /proc and PID namespaces, and macOS's code paths (HYDRA_PORTABLE=1: ps, process
 * groups; test/support/portable.ts).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventually, liveProcesses } from '../../support/engine-helpers.js';
import { createRepo, createSandbox, hydra, installFakes } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { extraWorktrees, hydraBranches } from '../../support/fault-invariants.js';
import { WAYS } from '../../support/portable.js';
import { backgroundRace } from '../../support/fault-race.js';

/** A sleep duration nothing else on the machine uses: the check's name on the command line. */
const uniqueSleep = (): string => `2000.${process.pid}${Math.floor(Math.random() * 1e6)}`;

/** Live `sleep <token>` processes (hydra's own command line holds the token too: not counted). */
// In a PID namespace the init runs the check by its path on PATH (/usr/bin/sleep).
const running = (token: string): number[] =>
  liveProcesses((cmdline) => /^(\S*\/)?sleep\0/.test(cmdline) && cmdline.endsWith(`\0${token}\0`));

const leftovers: string[] = [];
let sandbox: Sandbox;
let repo: string;

afterEach(() => sandbox.cleanup());
afterAll(() => {
  for (const token of leftovers)
    for (const pid of running(token)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
});

/** `hydra race --json --check "sleep <token>"`; returns once the check runs on the base and in the result. */
const raceWithSlowCheck = async (
  token: string,
  env: NodeJS.ProcessEnv,
  way: (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv,
) => {
  sandbox = createSandbox();
  sandbox.env = way(sandbox.env);
  repo = await createRepo(sandbox.dir);
  await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 5 } });
  const child = backgroundRace(repo, { ...sandbox.env, ...env }, [
    '--agents',
    'claude',
    '--check',
    `sleep ${token}`,
    'Add hello.txt',
  ]);
  await eventually(
    () => running(token).length >= 2,
    20_000,
    'the check to run on the base and in the result',
  );
  // In an object: the subprocess is a promise, which an async function would wait for.
  return { child };
};

describe.each(WAYS)('checks when hydra is killed ($way)', ({ env: way }) => {
  it('end with the watchdog after kill -9 of hydra', async () => {
    const token = uniqueSleep();
    leftovers.push(token);
    const { child } = await raceWithSlowCheck(token, {}, way);

    child.kill('SIGKILL');
    await child;

    await eventually(() => running(token).length === 0, 15_000, 'the watchdog to end the checks');
  }, 60_000);

  it('end with `hydra clean` after kill -9 of hydra without a watchdog, baseline worktree and all', async () => {
    const token = uniqueSleep();
    leftovers.push(token);
    const { child } = await raceWithSlowCheck(token, { HYDRA_WATCHDOG: '0' }, way);
    expect(extraWorktrees(repo).some((dir) => dir.endsWith('/.baseline'))).toBe(true);

    child.kill('SIGKILL');
    await child;
    expect(running(token).length).toBeGreaterThan(0);

    const cleaned = await hydra(['clean'], { cwd: repo, env: sandbox.env });

    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    await eventually(() => running(token).length === 0, 5_000, 'the clean-up to end the checks');
    expect(extraWorktrees(repo)).toEqual([]);
    expect(hydraBranches(repo)).toEqual([]);
  }, 60_000);
});
