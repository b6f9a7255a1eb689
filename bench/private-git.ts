/**
 * What an agent's private repository costs (src/engine/git/private-git.ts), against what hydra
 * already pays per agent, `git worktree add`: in a repository of `--files` files (default 2000),
 * each round makes a worktree, then times the private repository made before the agent starts, and
 * its bringing back after, once with no commit of the agent's (no fetch) and once with one (a
 * fetch). Prints medians and the ratio to `git worktree add` in the same run.
 *
 *   npx esbuild bench/private-git.ts --bundle --platform=node --format=esm --loader:.sh=text \
 *     --outfile=.cache/bench/private-git.mjs && node .cache/bench/private-git.mjs [--files N] [--repeats N]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  bringBackPrivateGit,
  createWorktree,
  preparePrivateGit,
  removeWorktrees,
  snapshotRefs,
} from '../src/engine/git/index.js';
import { median, round } from './lib/stats.js';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
};

const files = arg('--files', 2000);
const repeats = arg('--repeats', 7);

const dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-bench-private-git-'));
const repo = path.join(dir, 'repo');
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8' });

mkdirSync(repo);
git(repo, 'init', '-q', '-b', 'main');
for (let index = 0; index < files; index += 1) {
  const sub = path.join(repo, `d${index % 50}`);
  mkdirSync(sub, { recursive: true });
  writeFileSync(path.join(sub, `f${index}.txt`), `file ${index}\n`.repeat(20));
}
git(repo, 'add', '.');
git(repo, 'commit', '-q', '-m', 'base');

const samples = {
  add: [] as number[],
  prepare: [] as number[],
  backNone: [] as number[],
  backOne: [] as number[],
};
const time = async (work: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};

for (let round_ = 0; round_ <= repeats; round_ += 1) {
  for (const commits of [false, true]) {
    const runDir = path.join(dir, 'worktrees', `run-${round_}-${commits ? 'c' : 'n'}`);
    const worktree = path.join(runDir, 'agent');
    const branch = `hydra/bench-${round_}-${commits ? 'c' : 'n'}/agent`;
    const add = await time(() => createWorktree(repo, worktree, branch, 'HEAD'));
    const refs = await snapshotRefs(repo, `bench-${round_}`);
    const prepare = await time(() => preparePrivateGit({ root: repo, worktree, branch, refs: refs.refs }));
    if (commits) {
      writeFileSync(path.join(worktree, 'agent.txt'), 'agent\n');
      git(worktree, 'add', 'agent.txt');
      git(worktree, 'commit', '-q', '-m', 'agent');
    }
    const back = await time(() => bringBackPrivateGit({ root: repo, worktree, branch }));
    // The first round warms the file cache and is not counted.
    if (round_ > 0) {
      samples.add.push(add);
      samples.prepare.push(prepare);
      (commits ? samples.backOne : samples.backNone).push(back);
    }
    await removeWorktrees(repo, [{ dir: worktree, area: runDir }]);
  }
}
rmSync(dir, { recursive: true, force: true });

const add = median(samples.add);
const rows = [
  ['git worktree add (today, per agent)', add],
  ['private repository made (before the agent)', median(samples.prepare)],
  ['brought back, no commit of the agent (no fetch)', median(samples.backNone)],
  ['brought back, one commit of the agent (fetch)', median(samples.backOne)],
] as const;
console.log(`${files} files, ${repeats} repeats (medians)`);
for (const [name, ms] of rows)
  console.log(`${name.padEnd(50)} ${String(round(ms, 1)).padStart(7)} ms  ${round(ms / add, 2)}x`);
const none = median(samples.prepare) + median(samples.backNone);
const one = median(samples.prepare) + median(samples.backOne);
console.log(
  `added per agent: ${round(none, 1)} ms (${round(none / add, 2)}x worktree add) without commits, ${round(one, 1)} ms (${round(one / add, 2)}x) with one`,
);
