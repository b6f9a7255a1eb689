/**
 * A throwaway place to race in: a temp git repository, fake agent bins, a worktree root and a
 * streams folder, all under one temp directory that `dispose` removes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installFakeAgents, type FakeScenario } from '../../src/demo/fake-bin.js';
import { PACKAGE_ROOT } from './streams.js';

export interface Workspace {
  root: string;
  repo: string;
  streams: string;
  worktrees: string;
  /** node dist/cli/main.js (this package's, or the build `--hydra` names) */
  hydra: string[];
  /** Installs fake agents into a fresh bin dir and returns it. */
  installBin(name: string, scenarios: Record<string, FakeScenario>): Promise<string>;
  /** The environment for a race: `binDir` first on PATH, worktrees inside the workspace. */
  env(binDir: string): NodeJS.ProcessEnv;
  /** Statuses of the newest run's agents, from its record (proves a measured race really completed). */
  lastRunStatuses(): Record<string, string>;
  dispose(): void;
}

const git = (cwd: string, args: string[]): void => {
  execFileSync('git', ['-c', 'user.name=hydra bench', '-c', 'user.email=bench@hydra.invalid', ...args], {
    cwd,
    stdio: 'ignore',
  });
};

/**
 * The run that started last, by its recorded start time: run ids order by second, and two races
 * in one second by their random part.
 */
const newestRunDir = (repo: string): string => {
  const runs = path.join(repo, '.hydra', 'runs');
  const startedAt = (name: string): number => {
    try {
      return Number(
        (JSON.parse(readFileSync(path.join(runs, name, 'meta.json'), 'utf8')) as { startedAt?: unknown })
          .startedAt,
      );
    } catch {
      return Number.NaN;
    }
  };
  const newest = readdirSync(runs)
    .map((name) => ({ name, at: startedAt(name) }))
    .sort(
      (a, b) =>
        (Number.isNaN(a.at) ? -1 : Number.isNaN(b.at) ? 1 : a.at - b.at) || a.name.localeCompare(b.name),
    )
    .at(-1)?.name;
  if (newest === undefined) throw new Error(`bench: no run record in ${runs}`);
  return path.join(runs, newest);
};

export const createWorkspace = (main = path.join(PACKAGE_ROOT, 'dist', 'cli', 'main.js')): Workspace => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hydra-bench-'));
  const repo = path.join(root, 'repo');
  const streams = path.join(root, 'streams');
  const worktrees = path.join(root, 'worktrees');
  for (const dir of [repo, streams, worktrees]) mkdirSync(dir, { recursive: true });
  git(repo, ['init', '-q', '-b', 'main']);
  writeFileSync(path.join(repo, 'README.md'), '# fixture repo\n');
  git(repo, ['add', 'README.md']);
  git(repo, ['commit', '-q', '-m', 'initial commit']);

  return {
    root,
    repo,
    streams,
    worktrees,
    hydra: [process.execPath, main],
    async installBin(name, scenarios) {
      const binDir = path.join(root, 'bin', name);
      await installFakeAgents(binDir, scenarios);
      return binDir;
    },
    env(binDir) {
      return {
        ...process.env,
        PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`,
        HYDRA_WORKTREE_ROOT: worktrees,
        // Races run unsandboxed unless a suite says otherwise (the sandbox suite gives --sandbox).
        HYDRA_SANDBOX: 'off',
        NO_COLOR: '1',
        CI: 'true',
      };
    },
    lastRunStatuses() {
      const summary = JSON.parse(readFileSync(path.join(newestRunDir(repo), 'summary.json'), 'utf8')) as {
        agents: Array<{ agent: string; status: string }>;
      };
      return Object.fromEntries(summary.agents.map((agent) => [agent.agent, agent.status]));
    },
    dispose() {
      rmSync(root, { recursive: true, force: true });
    },
  };
};
