/**
 * Issue 23: what setup commands cost a race's start, and what the warm pool saves, as ratios within
 * one run. An npm project with a `file:` dependency (so `npm ci --offline` installs it with no
 * network), one fake agent that ends at once (the race is mostly its start and its end), and:
 *
 * - no setup, pool of 1 (the baseline);
 * - `[setup] run = "npm ci --offline"`, pool of 1, lockfile unchanged: the pooled worktree keeps
 *   node_modules and setup is skipped (`setup: warm`); target: within ~10% of the baseline;
 * - the same setup with no pool: `npm ci` in every new worktree.
 *
 * Each configuration has its own worktree root (so its own pool), and each is raced once untimed
 * first (the pool fills, the probe cache and the page cache warm up).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fakeBinaryName } from '../../src/demo/fake-bin.js';
import { expectExit, measureCommand } from '../lib/measure.js';
import { median, ratio } from '../lib/stats.js';
import { createWorkspace } from '../lib/workspace.js';
import type { Workspace } from '../lib/workspace.js';

export interface SetupRow {
  what: string;
  ms: number;
  ratio: number;
  /** How each measured race's agent was set up (from its summary): `warm`, `ran`, `none`. */
  setup: string;
}

export interface SetupResult {
  repeats: number;
  rows: SetupRow[];
}

const git = (cwd: string, args: string[]): void => {
  execFileSync('git', ['-c', 'user.name=hydra bench', '-c', 'user.email=bench@hydra.invalid', ...args], {
    cwd,
    stdio: 'ignore',
  });
};

/** The workspace's repository made an npm project with a `file:` dependency and a lockfile. */
const npmProject = (repo: string): void => {
  mkdirSync(path.join(repo, 'vendor', 'adder'), { recursive: true });
  writeFileSync(
    path.join(repo, 'vendor', 'adder', 'package.json'),
    '{ "name": "adder", "version": "1.0.0", "main": "index.js" }\n',
  );
  writeFileSync(path.join(repo, 'vendor', 'adder', 'index.js'), 'module.exports = (a, b) => a + b;\n');
  writeFileSync(
    path.join(repo, 'package.json'),
    `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: { adder: 'file:vendor/adder' } })}\n`,
  );
  writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n');
  execFileSync('npm', ['install', '--package-lock-only', '--offline', '--no-audit', '--no-fund'], {
    cwd: repo,
    stdio: 'ignore',
  });
  git(repo, ['add', '.']);
  git(repo, ['commit', '-q', '-m', 'npm project']);
};

interface Config {
  what: string;
  toml: string;
}

const CONFIGS: Config[] = [
  { what: 'no setup, pool of 1 (baseline)', toml: '[race]\nworktree_pool = 1\n' },
  {
    what: 'npm ci --offline, pool of 1, lockfile unchanged (warm)',
    toml: '[race]\nworktree_pool = 1\n[setup]\nrun = "npm ci --offline"\n',
  },
  { what: 'npm ci --offline in every new worktree (no pool)', toml: '[setup]\nrun = "npm ci --offline"\n' },
];

const setupOf = (ws: Workspace): string => {
  const runs = path.join(ws.repo, '.hydra', 'runs');
  const newest = execFileSync('ls', ['-t', runs], { encoding: 'utf8' }).split('\n')[0] ?? '';
  const summary = JSON.parse(readFileSync(path.join(runs, newest, 'summary.json'), 'utf8')) as {
    agents: Array<{ setup?: { warm: boolean } | null }>;
  };
  const setup = summary.agents[0]?.setup;
  return setup === undefined || setup === null ? 'none' : setup.warm ? 'warm' : 'ran';
};

export async function benchSetup(repeats: number): Promise<SetupResult> {
  const ws = createWorkspace();
  try {
    npmProject(ws.repo);
    const bin = await ws.installBin('setup-quick', {
      [fakeBinaryName('claude')]: { agent: 'claude', delayMs: 0 },
    });
    const race = async (config: Config, index: number): Promise<{ ms: number; setup: string }> => {
      const file = path.join(ws.root, `setup-${index}.toml`);
      writeFileSync(file, config.toml);
      const env = { ...ws.env(bin), HYDRA_WORKTREE_ROOT: path.join(ws.worktrees, `setup-${index}`) };
      const sample = await measureCommand(
        [...ws.hydra, 'race', '--json', '--config', file, '--agents', 'claude', 'bench prompt'],
        { cwd: ws.repo, env, timeoutMs: 600_000 },
      );
      const ms = expectExit(sample, 0, `hydra race (${config.what})`).wallMs;
      return { ms, setup: setupOf(ws) };
    };
    for (const [index, config] of CONFIGS.entries()) await race(config, index);
    const times: number[][] = CONFIGS.map(() => []);
    const setups: Array<Set<string>> = CONFIGS.map(() => new Set());
    // Alternating, so a shared machine's drift hits every configuration alike.
    for (let round = 0; round < repeats; round += 1)
      for (const [index, config] of CONFIGS.entries()) {
        const { ms, setup } = await race(config, index);
        times[index]?.push(ms);
        setups[index]?.add(setup);
      }
    const base = median(times[0] ?? []);
    return {
      repeats,
      rows: CONFIGS.map((config, index) => {
        const ms = median(times[index] ?? []);
        return {
          what: config.what,
          ms,
          ratio: ratio(ms, base),
          setup: [...(setups[index] ?? [])].join(', '),
        };
      }),
    };
  } finally {
    ws.dispose();
  }
}

export const setupTable = (
  result: SetupResult,
): { title: string; head: string[]; rows: Array<Array<string | number>> } => ({
  title: `10. Setup commands and the warm pool: hydra race, one agent that ends at once (wall ms, median of ${result.repeats})`,
  head: ['what', 'ms', 'ratio', 'setup'],
  rows: result.rows.map((row) => [row.what, row.ms, `${Math.round(row.ratio * 100) / 100}x`, row.setup]),
});
