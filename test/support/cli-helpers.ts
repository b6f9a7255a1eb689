/**
 * Test helpers for the CLI: spawn the real entry point (`node dist/cli/main.js`) with a controlled
 * environment, on temp git repositories, with fake agent CLIs first on PATH.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, execaSync } from 'execa';
import { installFaultAgents } from './fault-bin.js';
import type { FaultScenario } from './fault-bin.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MAIN = path.join(ROOT, 'dist', 'cli', 'main.js');

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
    HYDRA_WORKTREE_ROOT: path.join(dir, 'worktrees'),
    // The suite races its fakes unsandboxed, as written (vitest.config.ts); test/sandbox/ races them in it.
    HYDRA_SANDBOX: process.env.HYDRA_SANDBOX ?? 'off',
    // The demo at the tests' pace (vitest.config.ts).
    ...(process.env.HYDRA_DEMO_DELAY_MS === undefined
      ? {}
      : { HYDRA_DEMO_DELAY_MS: process.env.HYDRA_DEMO_DELAY_MS }),
    TMPDIR: path.join(dir, 'tmp'),
    LANG: 'C.UTF-8',
    TERM: 'dumb',
  };
  for (const sub of ['bin', 'home', 'xdg-config', 'xdg-cache', 'worktrees', 'tmp']) {
    mkdirSync(path.join(dir, sub), { recursive: true });
  }
  return { dir, bin, home, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface HydraResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function hydra(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<HydraResult> {
  const result = await execa(process.execPath, [MAIN, ...args], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    reject: false,
    timeout: options.timeoutMs ?? 60_000,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' }),
    stripFinalNewline: false,
  });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

export function git(cwd: string, args: string[]): string {
  return execaSync('git', args, { cwd, env: GIT_ENV }).stdout;
}

/** A repository with one commit on `main` (unless `commit: false`). */
export async function createRepo(
  parent: string,
  options: { commit?: boolean; name?: string } = {},
): Promise<string> {
  const repo = path.join(parent, options.name ?? 'repo');
  await mkdir(repo, { recursive: true });
  git(repo, ['init', '--quiet', '--initial-branch=main']);
  if (options.commit !== false) {
    writeFileSync(path.join(repo, 'README.md'), '# test repo\n');
    git(repo, ['add', '-A']);
    // A test repository needs none of git's upkeep (one git process less a repository).
    git(repo, [
      '-c',
      'commit.gpgsign=false',
      '-c',
      'maintenance.auto=false',
      'commit',
      '--quiet',
      '-m',
      'first',
    ]);
  }
  return repo;
}

export async function installFakes(bin: string, scenarios: Record<string, FaultScenario>): Promise<void> {
  await installFaultAgents(bin, scenarios);
}

/** Parses NDJSON: every non-empty line must be a JSON object (throws otherwise). */
export function parseNdjson(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const value = JSON.parse(line) as unknown;
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new Error(`not an object: ${line}`);
      return value as Record<string, unknown>;
    });
}
