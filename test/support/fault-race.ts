/**
 * A fault as a user meets it: the real `hydra race --json` (node dist/cli/main.js) on a temp
 * repository that holds uncommitted work (a modified file, a staged file, an untracked file and a
 * stash entry), with fake agent CLIs that misbehave first on PATH. After the race, every fault
 * test checks the same invariants (expectFaultSurvived): each agent ended with a status and, if it
 * failed, a typed error with a hint; no process of the race alive; records readable; the user's
 * state byte for byte as before; and `hydra clean` leaves no worktree, branch or record behind.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';
import { fakeBinaryName } from '../../src/demo/fake-bin.js';
import type { FaultScenario } from './fault-bin.js';
import type { AdapterId } from '../../src/adapters/types.js';
import { createRepo, createSandbox, git, hydra, installFakes, MAIN, parseNdjson } from './cli-helpers.js';
import type { Sandbox } from './cli-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
  extraWorktrees,
  hydraBranches,
} from './fault-invariants.js';
import type { UserState } from './fault-invariants.js';
import { eventually, processesOfRun } from './engine-helpers.js';

export interface FaultSandbox extends Sandbox {
  repo: string;
}

/** A sandbox whose repository has uncommitted work of every kind a race must not touch. */
export async function faultSandbox(): Promise<FaultSandbox> {
  const sandbox = createSandbox();
  const repo = await createRepo(sandbox.dir);
  writeFileSync(path.join(repo, 'stashed.txt'), 'stashed work\n');
  git(repo, ['add', 'stashed.txt']);
  git(repo, ['stash', 'push', '--quiet', '-m', 'my stash']);
  writeFileSync(path.join(repo, 'README.md'), '# test repo\n\nmy uncommitted edit\n');
  writeFileSync(path.join(repo, 'staged.txt'), 'staged, not committed\n');
  git(repo, ['add', 'staged.txt']);
  writeFileSync(path.join(repo, 'notes.txt'), 'my untracked notes\n');
  return { ...sandbox, repo };
}

export interface SummaryAgent {
  agent: AdapterId;
  status: string;
  exitCode: number | null;
  diff: { filesChanged: number } | null;
  error?: { kind: string; message: string; hint: string };
}

export interface FaultRace {
  exitCode: number;
  stderr: string;
  /** Every NDJSON line of stdout (parsing fails the test if one is not a JSON object). */
  lines: Array<Record<string, unknown>>;
  runId: string;
  agents: SummaryAgent[];
  before: UserState;
  wallMs: number;
  /** The hydra process's peak resident memory (VmHWM), in kB, as last read while it ran. */
  peakRssKb: number;
  /** The most processes seen at once working in the race's worktrees (agents and their children). */
  peakAgentProcesses: number;
}

/**
 * Processes whose working directory is inside `dir` (a figure of the report: /proc's, so 0 where
 * there is none, as peakRss is null there).
 */
const processesIn = (dir: string): number =>
  (existsSync('/proc/self/cwd') ? readdirSync('/proc') : []).filter((name) => {
    if (!/^\d+$/.test(name)) return false;
    try {
      return readlinkSync(`/proc/${name}/cwd`).startsWith(`${dir}${path.sep}`);
    } catch {
      return false;
    }
  }).length;

const peakRss = (pid: number | undefined): number | null => {
  if (pid === undefined) return null;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Number(match[1]);
  } catch {
    return null;
  }
};

/** Installs the misbehaving agents (keyed by adapter id) and races them headless. */
export async function raceFault(
  sandbox: FaultSandbox,
  scenarios: Partial<Record<AdapterId, Omit<FaultScenario, 'agent'>>>,
  args: string[] = [],
  timeoutMs = 90_000,
): Promise<FaultRace> {
  const agents = Object.keys(scenarios);
  await installFakes(
    sandbox.bin,
    Object.fromEntries(
      agents.map((agent) => [fakeBinaryName(agent), { agent, delayMs: 5, ...scenarios[agent] }]),
    ),
  );
  const before = captureUserState(sandbox.repo);
  const started = Date.now();
  const child = execa(
    process.execPath,
    [
      MAIN,
      'race',
      '--json',
      '--allow-experimental-adapters',
      '--agents',
      agents.join(','),
      ...args,
      'Create hello.txt',
    ],
    {
      cwd: sandbox.repo,
      env: sandbox.env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: timeoutMs,
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  let peakRssKb = 0;
  let peakAgentProcesses = 0;
  const worktrees = sandbox.env.HYDRA_WORKTREE_ROOT ?? '';
  const poll = setInterval(() => {
    peakRssKb = Math.max(peakRssKb, peakRss(child.pid) ?? 0);
  }, 20);
  const count = setInterval(() => {
    peakAgentProcesses = Math.max(peakAgentProcesses, processesIn(worktrees));
  }, 100);
  const result = await child;
  clearInterval(poll);
  clearInterval(count);
  const stdout = String(result.stdout);
  const lines = parseNdjson(stdout);
  const summary = lines.find((line) => line.type === 'summary') as
    { runId: string; agents: SummaryAgent[] } | undefined;
  const race = lines.find((line) => line.type === 'race') as { runId: string } | undefined;
  return {
    exitCode: result.exitCode ?? -1,
    stderr: String(result.stderr),
    lines,
    runId: summary?.runId ?? race?.runId ?? '',
    agents: summary?.agents ?? [],
    before,
    wallMs: Date.now() - started,
    peakRssKb,
    peakAgentProcesses,
  };
}

const SETTLED = ['completed', 'failed', 'timed_out', 'cancelled'];
const ERROR_KINDS = [
  'BinaryMissing',
  'AuthMissing',
  'UnsupportedVersion',
  'UnsupportedFlag',
  'InvalidConfig',
  'Refused',
  'SpawnFailed',
  'GitFailed',
  'StreamParseError',
  'TimedOut',
  'Interrupted',
  'AgentFailed',
];

/** Every agent settled; one that did not complete carries a typed error with a message and a hint. */
export const expectAgentsSettled = (race: FaultRace, expected: readonly AdapterId[]): void => {
  const explain = `${race.stderr}\n${JSON.stringify(race.agents, null, 2)}`;
  expect(race.runId, explain).not.toBe('');
  expect(race.agents.map((agent) => agent.agent).sort(), explain).toEqual([...expected].sort());
  for (const agent of race.agents) {
    expect(SETTLED, explain).toContain(agent.status);
    if (agent.status === 'completed') continue;
    expect(ERROR_KINDS, explain).toContain(agent.error?.kind);
    expect(agent.error?.message.length ?? 0, explain).toBeGreaterThan(0);
    expect(agent.error?.hint.length ?? 0, explain).toBeGreaterThan(0);
  }
};

/**
 * The invariants after any fault: no process of the race, readable records, the user's state as it
 * was, and `hydra clean` removes every worktree, branch and record the race left.
 */
export async function expectFaultSurvived(sandbox: FaultSandbox, race: FaultRace): Promise<void> {
  expectNoProcessOfRun(race.runId);
  expectRecordsReadable(sandbox.repo);
  expectUserStateUnchanged(sandbox.repo, race.before);

  const clean = await hydra(['clean'], { cwd: sandbox.repo, env: sandbox.env });
  expect(clean.exitCode, clean.stderr).toBe(0);
  expect(extraWorktrees(sandbox.repo)).toEqual([]);
  expect(hydraBranches(sandbox.repo)).toEqual([]);
  const runs = await hydra(['runs', '--json'], { cwd: sandbox.repo, env: sandbox.env });
  expect(runs.exitCode, runs.stderr).toBe(0);
  expect((JSON.parse(runs.stdout) as { runs: unknown[] }).runs).toEqual([]);
  expectNoProcessOfRun(race.runId);
  expectUserStateUnchanged(sandbox.repo, race.before);
}

/** What a background race waits for: this many processes of its run alive, within this time. */
export interface AgentsRunning {
  processes: number;
  withinMs: number;
  what: string;
  /** The race's environment (default: the sandbox's). */
  env?: NodeJS.ProcessEnv;
}

/** The real `hydra race --json <args>` in the background, for a test that kills it (60 s at most). */
export const backgroundRace = (repo: string, env: NodeJS.ProcessEnv, args: readonly string[]) =>
  execa(process.execPath, [MAIN, 'race', '--json', ...args], {
    cwd: repo,
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
  });

/**
 * The real `hydra race --json <args>` in the background, whose agents are running (the run id is
 * on its first NDJSON line), for a test that then signals or kills it.
 */
export async function raceWithAgentsRunning(
  sandbox: Sandbox,
  repo: string,
  args: readonly string[],
  timeoutMs: number,
  running: AgentsRunning,
) {
  const child = execa(process.execPath, [MAIN, 'race', '--json', ...args], {
    cwd: repo,
    env: running.env ?? sandbox.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: timeoutMs,
    // Only the signal under test: no SIGKILL from execa while hydra cleans up.
    forceKillAfterDelay: false,
  });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  let runId: string | null = null;
  await eventually(
    () => {
      const first = stdout.split('\n')[0];
      if (first === undefined || first === '' || !stdout.includes('\n')) return false;
      runId = String(parseNdjson(first)[0]?.runId);
      return processesOfRun(runId).length >= running.processes;
    },
    running.withinMs,
    running.what,
  );
  return { child, runId: runId as unknown as string };
}
