/**
 * The tests' helper stack (test/support/) keeps its promises: a repository copied from the template
 * is the one the git commands make (all but the commit's time, and so its id), and a hydra command
 * run in-process answers as the spawned binary does, its failures included. Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hydraInProcess, spawnHydra, spawnReason } from '../../support/hydra.js';
import { CLI_IDENTITY, runGit } from '../../support/git.js';
import type { Sandbox } from '../../support/sandbox.js';
import { createRepo, createSandbox } from '../../support/sandbox.js';
import { MAIN } from '../../support/cli-helpers.js';

let sandbox: Sandbox;

beforeEach(() => {
  sandbox = createSandbox();
});

afterEach(() => sandbox.cleanup());

/**
 * Every entry of `dir` but .git/index (its times differ): path, permission bits, type and size, a
 * line each, sorted (what GNU's `find -printf '%P %m %y %s'` prints, which macOS's find cannot).
 */
const listing = (dir: string): string =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((entry) => entry !== path.join('.git', 'index'))
    .map((entry) => {
      const stat = lstatSync(path.join(dir, entry));
      const type = stat.isSymbolicLink() ? 'l' : stat.isDirectory() ? 'd' : 'f';
      return `${entry} ${(stat.mode & 0o7777).toString(8)} ${type} ${type === 'd' ? 0 : stat.size}`;
    })
    .sort()
    .join('\n');

/** What a test could see of a repository, with the commit's id and time taken out. */
const described = (repo: string): { files: string } & Record<string, string> => {
  const id = runGit(repo, ['rev-parse', 'HEAD']).trim();
  const text = (file: string, args: string[]): string =>
    execFileSync(file, args, { cwd: repo, encoding: 'utf8' })
      .split(id)
      .join('<commit>')
      .split(`${id.slice(0, 2)}/${id.slice(2)}`)
      .join('<commit object>')
      .replace(/> \d+ [-+]\d{4}/g, '> <time>');
  return {
    files: listing(repo),
    config: text('git', ['config', '--list', '--local']),
    head: text('git', ['cat-file', '-p', 'HEAD']),
    branch: text('git', ['symbolic-ref', 'HEAD']),
    index: text('git', ['ls-files', '-s']),
    status: text('git', ['status', '--porcelain=v1', '--untracked-files=all']),
    reflog: text('cat', ['.git/logs/HEAD']),
  };
};

describe('a repository from the template', () => {
  it('is the repository the git commands make, but for the commit time', async () => {
    const made = path.join(sandbox.dir, 'made');
    mkdirSync(made);
    runGit(made, ['init', '--quiet', '--initial-branch=main'], CLI_IDENTITY);
    writeFileSync(path.join(made, 'README.md'), '# test repo\n');
    runGit(made, ['add', '-A'], CLI_IDENTITY);
    runGit(
      made,
      ['-c', 'commit.gpgsign=false', '-c', 'maintenance.auto=false', 'commit', '--quiet', '-m', 'first'],
      CLI_IDENTITY,
    );
    const copy = await createRepo(sandbox.dir, { name: 'copy' });
    const [a, b] = [described(copy), described(made)];
    // The commit object's directory sorts by its id: compare the lists as sets of lines.
    expect({ ...a, files: a.files.split('\n').sort() }).toEqual({ ...b, files: b.files.split('\n').sort() });
  });

  it('is made where the directory already has files, with them in its commit', async () => {
    const repo = path.join(sandbox.dir, 'repo');
    mkdirSync(repo);
    writeFileSync(path.join(repo, 'extra.txt'), 'extra\n');
    await createRepo(sandbox.dir);
    expect(runGit(repo, ['ls-files']).split('\n').filter(Boolean).sort()).toEqual(['README.md', 'extra.txt']);
  });
});

describe('hydra in-process', () => {
  it('answers as the spawned binary does: output, exit code and failures', async () => {
    expect(existsSync(MAIN), 'run `npm run build` first').toBe(true);
    const repo = await createRepo(sandbox.dir);
    for (const args of [
      ['--version'],
      ['runs'],
      ['runs', '--json'],
      ['show', 'no-such-run'],
      ['raec'],
      ['doctor', '--json', '--nope'],
    ]) {
      const options = { cwd: repo, env: sandbox.env };
      expect(spawnReason(args, options), args.join(' ')).toBeUndefined();
      expect(await hydraInProcess(args, options), args.join(' ')).toEqual(await spawnHydra(args, options));
    }
  });

  it('leaves the environment, working directory and signal handlers as it found them', async () => {
    const repo = await createRepo(sandbox.dir);
    const env = { ...process.env };
    const cwd = process.cwd();
    const listeners = process.listenerCount('SIGINT') + process.listenerCount('exit');
    await hydraInProcess(['runs'], { cwd: repo, env: sandbox.env });
    expect(process.env).toEqual(env);
    expect(process.cwd()).toBe(cwd);
    expect(process.listenerCount('SIGINT') + process.listenerCount('exit')).toBe(listeners);
  });

  it('spawns what is about the process, or not the same in-process', () => {
    const options = { cwd: sandbox.dir, env: sandbox.env };
    expect(spawnReason(['runs'], { ...options, spawn: true })).toBe('asked');
    expect(spawnReason(['runs'], { ...options, input: 'y\n' })).toBe('stdin');
    expect(spawnReason(['race', 'x'], options)).toBe('starts a race');
    expect(spawnReason(['race', 'x'], { ...options, spawn: false })).toBeUndefined();
    expect(spawnReason(['runs'], { ...options, env: { ...sandbox.env, HYDRA_SANDBOX: 'auto' } })).toBe(
      'sandboxed',
    );
  });
});
