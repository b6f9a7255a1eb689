/**
 * The engine suites' helpers, over the one stack in test/support/: a repository copied from a
 * template with a bin dir and worktree root beside it, `git(cwd, ...args)`, the tests' fault agent
 * as fake agent CLIs (.cache/test-bin/fault-agent.js, which vitest's global setup builds),
 * `eventually`, and process-table checks.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AdapterId } from '../../src/adapters/types.js';
import { fakeBinaryName } from '../../src/demo/fake-bin.js';
import { installFaultAgentsFor } from './fault-bin.js';
import type { FaultScenario } from './fault-bin.js';
import { gitArgs } from './git.js';
import type { EngineSandbox } from './sandbox.js';
import type { AgentPlan, RaceHandle, RaceOptions, RaceSnapshot } from '../../src/engine/index.js';

export { makeSandbox } from './sandbox.js';
export { eventually } from './wait.js';
export { alive, liveProcesses, processesOfRun } from './processes.js';
export type Sandbox = EngineSandbox;

/** `git(cwd, 'log', '--oneline')`: git's output as written. */
export const git = gitArgs;

export async function installAgents(
  sandbox: Sandbox,
  scenarios: Partial<Record<AdapterId, Omit<FaultScenario, 'agent'>>>,
): Promise<void> {
  await installFaultAgentsFor(sandbox.bin, scenarios);
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

/** Process ids in a process group that can still run, from `ps` (zombies are dead: left out). */
export const groupMembers = (pgid: number): number[] =>
  execFileSync('ps', ['-A', '-o', 'pid=,pgid=,stat='], { encoding: 'utf8' })
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

/** Every file under `dir` with its content (a state directory, a home), to compare before and after. */
export const fileContents = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, name.name);
      if (name.isDirectory()) walk(full);
      else out[path.relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
};
