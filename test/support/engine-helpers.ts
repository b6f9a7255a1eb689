/**
 * Test support for the engine: real temp git repositories, fake agent CLIs (the tests' fault
 * agent, .cache/test-bin/fault-agent.js, which vitest's global setup builds), and process-table checks.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AdapterId } from '../../src/adapters/types.js';
import { fakeBinaryName } from '../../src/demo/fake-bin.js';
import { installFaultAgents } from './fault-bin.js';
import type { FaultScenario } from './fault-bin.js';
import type { AgentPlan, RaceHandle, RaceOptions, RaceSnapshot } from '../../src/engine/types.js';

export interface Sandbox {
  dir: string;
  repo: string;
  bin: string;
  worktreeRoot: string;
  cacheDir: string;
  cleanup(): void;
}

export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** A temp dir with a repository holding one commit on `main`, a bin dir and a worktree root. */
export function makeSandbox(options: { commit?: boolean } = {}): Sandbox {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-engine-'));
  const repo = path.join(dir, 'repo');
  execFileSync('mkdir', ['-p', repo]);
  git(repo, 'init', '-q', '-b', 'main');
  if (options.commit !== false) {
    writeFileSync(path.join(repo, 'README.md'), '# test repo\n');
    writeFileSync(path.join(repo, 'app.txt'), 'line 1\nline 2\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
  }
  return {
    dir,
    repo,
    bin: path.join(dir, 'bin'),
    worktreeRoot: path.join(dir, 'worktrees'),
    cacheDir: path.join(dir, 'cache'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export async function installAgents(
  sandbox: Sandbox,
  scenarios: Partial<Record<AdapterId, Omit<FaultScenario, 'agent'>>>,
): Promise<void> {
  const byBinary: Record<string, FaultScenario> = {};
  for (const [agent, scenario] of Object.entries(scenarios)) {
    if (scenario !== undefined) byBinary[fakeBinaryName(agent)] = { agent, delayMs: 10, ...scenario };
  }
  await installFaultAgents(sandbox.bin, byBinary);
}

export const plan = (sandbox: Sandbox, agent: AdapterId, extra: Partial<AgentPlan> = {}): AgentPlan => ({
  adapterId: agent,
  binary: path.join(sandbox.bin, fakeBinaryName(agent)),
  extraArgs: [],
  env: {},
  idleTimeoutMs: 20_000,
  ...extra,
});

export const raceOptions = (
  sandbox: Sandbox,
  agents: AgentPlan[],
  extra: Partial<RaceOptions> = {},
): RaceOptions => ({
  repoPath: sandbox.repo,
  prompt: 'Create hello.txt',
  agents,
  allowExperimental: true,
  timeoutMs: 0,
  unsafe: false,
  keepWorktrees: false,
  prices: {},
  worktreeRoot: sandbox.worktreeRoot,
  cacheDir: sandbox.cacheDir,
  killGraceMs: 300,
  ...extra,
});

/** Resolves with the first snapshot that matches. */
export const waitForSnapshot = (
  handle: RaceHandle,
  predicate: (snapshot: RaceSnapshot) => boolean,
  timeoutMs = 20_000,
): Promise<RaceSnapshot> =>
  new Promise((resolve, reject) => {
    if (predicate(handle.getSnapshot())) {
      resolve(handle.getSnapshot());
      return;
    }
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`timed out waiting for a snapshot; last phase ${handle.getSnapshot().phase}`));
    }, timeoutMs);
    const unsubscribe = handle.subscribe((snapshot) => {
      if (!predicate(snapshot)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(snapshot);
    });
  });

export const agentStatus = (snapshot: RaceSnapshot, agent: AdapterId): string | undefined =>
  snapshot.agents.find((item) => item.agent === agent)?.status;

/** Every process whose environment carries this run's marker (agents and anything they started). */
export const processesOfRun = (runId: string): number[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`HYDRA_RUN_ID=${runId}`);
      } catch {
        return false;
      }
    })
    .map(Number);

/** Process ids in a process group that can still run, from `ps` (zombies are dead: left out). */
export const groupMembers = (pgid: number): number[] =>
  execFileSync('ps', ['-eo', 'pid=,pgid=,stat='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, stat]) => Number(group) === pgid && stat !== undefined && !stat.startsWith('Z'))
    .map(([pid]) => Number(pid));

export const pidRecords = (
  repo: string,
  runId: string,
): Array<{ agent: AdapterId; pid: number; pgid: number }> => {
  const dir = path.join(repo, '.hydra', 'runs', runId, 'agents');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.pid'))
    .map(
      (name) =>
        JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as {
          agent: AdapterId;
          pid: number;
          pgid: number;
        },
    );
};

export const alive = (pid: number): boolean =>
  existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');

/** Polls until a condition holds (bounded). */
export async function eventually(
  check: () => boolean,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** HEAD, index and working tree state of a repository, for before/after comparisons. */
export const repoState = (
  repo: string,
): { head: string; branch: string; status: string; index: string; files: Record<string, string> } => {
  const files: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git' || entry.name === '.hydra' || entry.name === '.cache') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(repo, full)] = readFileSync(full).toString('base64');
    }
  };
  walk(repo);
  return {
    head: git(repo, 'rev-parse', 'HEAD').trim(),
    branch: git(repo, 'symbolic-ref', '--short', 'HEAD').trim(),
    status: git(repo, 'status', '--porcelain=v1', '--untracked-files=all'),
    index: git(repo, 'ls-files', '-s'),
    files,
  };
};

/** Live processes (zombies left out) whose command line, argv joined by NUL, passes `matches`. */
export const liveProcesses = (matches: (cmdline: string) => boolean): number[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
        return matches(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(Number);
