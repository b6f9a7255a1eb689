/**
 * The tests' temp directories: `createSandbox` is a place to run the `hydra` binary (bin/ first on
 * PATH, its own HOME, XDG dirs, worktree root and TMPDIR, nothing from the real HOME), `makeSandbox`
 * a repository for the engine called in-process with a bin dir, worktree root and cache dir beside it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { portableEnv, portableRun } from './portable.js';
import { copyRepo } from './repo.js';

export interface Sandbox {
  dir: string;
  bin: string;
  home: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** A temp dir with bin/, home/, xdg config and cache dirs and a worktree root; nothing from the real HOME. */
export function createSandbox(): Sandbox {
  const dir = mkdtempSync(path.join(tmpdir(), 'hydra-cli-test-'));
  const bin = path.join(dir, 'bin');
  const home = path.join(dir, 'home');
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: home,
    XDG_CONFIG_HOME: path.join(dir, 'xdg-config'),
    XDG_CACHE_HOME: path.join(dir, 'xdg-cache'),
    // The index of repositories raced in (`hydra stats --all`).
    XDG_DATA_HOME: path.join(dir, 'xdg-data'),
    HYDRA_WORKTREE_ROOT: path.join(dir, 'worktrees'),
    // The suite races its fakes unsandboxed, as written (vitest.config.ts); test/system/sandbox/ races them in it.
    HYDRA_SANDBOX: process.env.HYDRA_SANDBOX ?? 'off',
    // The demo at the tests' pace (vitest.config.ts).
    ...(process.env.HYDRA_DEMO_DELAY_MS === undefined
      ? {}
      : { HYDRA_DEMO_DELAY_MS: process.env.HYDRA_DEMO_DELAY_MS }),
    TMPDIR: path.join(dir, 'tmp'),
    LANG: 'C.UTF-8',
    TERM: 'dumb',
  };
  for (const sub of ['bin', 'home', 'xdg-config', 'xdg-cache', 'xdg-data', 'worktrees', 'tmp']) {
    mkdirSync(path.join(dir, sub), { recursive: true });
  }
  // HYDRA_PORTABLE=1 npx vitest run …: the suite runs on the code paths of macOS (portable.ts).
  return {
    dir,
    bin,
    home,
    env: portableRun() ? portableEnv(env) : env,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A CLI suites' repository (one commit of README.md on `main`, unless `commit: false`) in `parent`. */
export async function createRepo(
  parent: string,
  options: { commit?: boolean; name?: string } = {},
): Promise<string> {
  return copyRepo('cli', path.join(parent, options.name ?? 'repo'), options);
}

export interface EngineSandbox {
  dir: string;
  repo: string;
  bin: string;
  worktreeRoot: string;
  cacheDir: string;
  cleanup(): void;
}

/** A temp dir with a repository holding one commit on `main`, a bin dir and a worktree root. */
export function makeSandbox(options: { commit?: boolean } = {}): EngineSandbox {
  const dir = mkdtempSync(path.join(tmpdir(), 'hydra-engine-'));
  const repo = copyRepo('engine', path.join(dir, 'repo'), options);
  return {
    dir,
    repo,
    bin: path.join(dir, 'bin'),
    worktreeRoot: path.join(dir, 'worktrees'),
    cacheDir: path.join(dir, 'cache'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
