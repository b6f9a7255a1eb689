/**
 * Issue 23: how long until every agent runs, in a repository whose dependencies are a 50,000-file
 * `node_modules`, with `[setup] share = ["node_modules"]` against `npm ci` in each worktree and
 * against a bare worktree (no dependencies), in one run.
 *
 * The project: `packages` local packages of `filesPerPackage` files each (nested folders of small
 * files), vendored as npm tarballs (`file:vendor/pkg-NNN.tgz`) so `npm ci --offline` installs them
 * with no registry: it unpacks every file into each worktree, as it would from the registry's
 * cache. The user's checkout has them installed (its `npm install`, not timed). Each measure makes
 * `agents` worktrees at once the way a race does (hydra's createWorktree), readies each, and starts
 * one process in each under hydra's supervision (spawnSupervised: the agent's namespace, where the
 * overlay is mounted), which checks the last package's last file is there; the time is until the
 * last of them ran.
 *
 * - bare: `git worktree add` and the process (`true`: there are no dependencies);
 * - share (overlay): the same, the process with the share mounted in its namespace;
 * - share (copy): the fallback where there is no namespace (`cp -a --reflink=auto` per worktree);
 * - npm ci: `npm ci --offline` in each worktree, then the process.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createWorktree, deleteBranches, removeWorktrees } from '../../src/engine/git/index.js';
import { createProcessRegistry, spawnSupervised } from '../../src/engine/process/index.js';
import {
  describeShareSupport,
  shareSupport,
  sharedDirs,
  worktreeShares,
} from '../../src/engine/setup/index.js';
import type { ShareMount } from '../../src/engine/setup/index.js';
import { median, ratio } from '../lib/stats.js';

export interface SharePlan {
  agents: number;
  packages: number;
  filesPerPackage: number;
  repeats: number;
}

export interface ShareRow {
  what: string;
  ms: number;
  /** Over the bare worktree's time. */
  addedMs: number;
  ratioToBare: number;
}

export interface ShareResult {
  agents: number;
  files: number;
  repeats: number;
  mechanism: string;
  rows: ShareRow[];
}

const git = (cwd: string, args: string[]): void => {
  execFileSync('git', ['-c', 'user.name=hydra bench', '-c', 'user.email=bench@hydra.invalid', ...args], {
    cwd,
    stdio: 'ignore',
  });
};

const run = (file: string, args: string[], cwd: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} ${args.join(' ')}: ${stderr.slice(-2000)}`)),
    );
  });

const countFiles = (dir: string): number => {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    count += entry.isDirectory() ? countFiles(path.join(dir, entry.name)) : 1;
  return count;
};

const name = (index: number): string => `pkg-${String(index).padStart(3, '0')}`;

/** The project, its vendored tarballs, its lockfile committed, its node_modules installed (ignored). */
async function makeProject(repo: string, plan: SharePlan): Promise<number> {
  const staging = mkdtempSync(path.join(os.tmpdir(), 'hydra-bench-packages-'));
  mkdirSync(path.join(repo, 'vendor'));
  const dependencies: Record<string, string> = {};
  for (let index = 0; index < plan.packages; index += 1) {
    const root = path.join(staging, name(index), 'package');
    writeFileSync(
      path.join((mkdirSync(root, { recursive: true }), root), 'package.json'),
      JSON.stringify({ name: name(index), version: '1.0.0', main: 'lib/d0/f0.js' }),
    );
    // Nested folders of small files, as packages ship them: 10 per level, two levels.
    for (let file = 1; file < plan.filesPerPackage; file += 1) {
      const dir = path.join(root, 'lib', `d${file % 10}`, `e${Math.floor(file / 10) % 10}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `f${file}.js`), `module.exports = ${file};\n`);
    }
    execFileSync('tar', [
      'czf',
      path.join(repo, 'vendor', `${name(index)}.tgz`),
      '-C',
      path.dirname(root),
      'package',
    ]);
    dependencies[name(index)] = `file:vendor/${name(index)}.tgz`;
  }
  rmSync(staging, { recursive: true, force: true });
  writeFileSync(
    path.join(repo, 'package.json'),
    JSON.stringify({ name: 'bench-project', version: '1.0.0', private: true, dependencies }, null, 2),
  );
  writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n');
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], repo);
  git(repo, ['add', '.']);
  git(repo, ['commit', '-q', '-m', 'bench project']);
  return countFiles(path.join(repo, 'node_modules'));
}

/** The file the process checks: the last package's last file. */
const lastFile = (plan: SharePlan): string => {
  const file = plan.filesPerPackage - 1;
  return `node_modules/${name(plan.packages - 1)}/lib/d${file % 10}/e${Math.floor(file / 10) % 10}/f${file}.js`;
};

type Variant = 'bare' | 'overlay' | 'copy' | 'npm ci';

/** `agents` worktrees made, readied and running one process each: ms until the last one ran. */
async function measure(
  repo: string,
  worktrees: string,
  plan: SharePlan,
  variant: Variant,
  attempt: number,
): Promise<number> {
  const processes = createProcessRegistry();
  const shared = sharedDirs(repo, ['node_modules']).dirs;
  const dirs = Array.from({ length: plan.agents }, (_, index) =>
    path.join(worktrees, `${variant.replace(' ', '-')}-${attempt}`, `agent-${index}`),
  );
  const branches = dirs.map((dir) => `bench/${path.basename(path.dirname(dir))}/${path.basename(dir)}`);
  const started = performance.now();
  await Promise.all(
    dirs.map(async (dir, index) => {
      await createWorktree(repo, dir, branches[index] ?? '', 'HEAD');
      if (variant === 'npm ci')
        await run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], dir);
      const shares: ShareMount[] =
        variant === 'overlay'
          ? worktreeShares(shared, dir)
          : variant === 'copy'
            ? worktreeShares(shared, dir).map((mount) => ({ ...mount, how: 'copy' }))
            : [];
      const check = variant === 'bare' ? 'true' : `test -f ${lastFile(plan)}`;
      const exit = await spawnSupervised(
        {
          file: '/bin/sh',
          args: ['-c', check],
          cwd: dir,
          env: {},
          runId: 'bench',
          agent: `agent-${index}`,
          shares,
        },
        { onSpawn: () => undefined, onLine: () => undefined, onOversizeLine: () => undefined },
        processes,
      ).exited;
      if (exit.exitCode !== 0)
        throw new Error(`bench share: ${variant} in ${dir} did not see its dependencies`);
    }),
  );
  const ms = performance.now() - started;
  await removeWorktrees(
    repo,
    dirs.map((dir) => ({ dir, area: path.dirname(dir) })),
  );
  await deleteBranches(repo, branches);
  return ms;
}

export async function benchShare(plan: SharePlan): Promise<ShareResult> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hydra-bench-share-'));
  try {
    const repo = path.join(root, 'repo');
    const worktrees = path.join(root, 'worktrees');
    mkdirSync(repo);
    git(repo, ['init', '-q', '-b', 'main']);
    const files = await makeProject(repo, plan);
    const variants: Variant[] = ['bare', 'overlay', 'copy', 'npm ci'];
    const times = new Map<Variant, number[]>(variants.map((variant) => [variant, []]));
    // One untimed pass warms the page cache and npm's; then the variants alternate.
    for (let attempt = 0; attempt <= plan.repeats; attempt += 1)
      for (const variant of variants) {
        const ms = await measure(repo, worktrees, plan, variant, attempt);
        if (attempt > 0) times.get(variant)?.push(ms);
      }
    const bare = median(times.get('bare') ?? []);
    const label: Record<Variant, string> = {
      bare: 'bare git worktree add (no dependencies)',
      overlay: 'share = ["node_modules"], overlay',
      copy: 'share = ["node_modules"], copy fallback (cp -a --reflink=auto)',
      'npm ci': 'npm ci --offline in each worktree',
    };
    return {
      agents: plan.agents,
      files,
      repeats: plan.repeats,
      mechanism: describeShareSupport(shareSupport()),
      rows: variants.map((variant) => {
        const ms = median(times.get(variant) ?? []);
        return { what: label[variant], ms, addedMs: ms - bare, ratioToBare: ratio(ms, bare) };
      }),
    };
  } finally {
    execFileSync('chmod', ['-R', 'u+rwx', root]);
    rmSync(root, { recursive: true, force: true });
  }
}

export const shareTable = (
  result: ShareResult,
): { title: string; head: string[]; rows: Array<Array<string | number>> } => ({
  title: `10. [setup] share: until every agent runs, ${result.agents} agents, node_modules of ${result.files} files (ms, median of ${result.repeats}; here: ${result.mechanism})`,
  head: ['what', 'ms', 'added ms', 'vs bare'],
  rows: result.rows.map((row) => [
    row.what,
    Math.round(row.ms),
    Math.round(row.addedMs),
    `${Math.round(row.ratioToBare * 100) / 100}x`,
  ]),
});
