/**
 * Issue 10, case 8: a configured binary is the binary. One that does not exist is a configuration
 * error (exit 2) naming the key and the path, never a silent fallback to another CLI on PATH; a
 * relative path resolves from the config file's directory, not from where hydra runs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRepo, createSandbox, hydra, installFakes, parseNdjson } from '../../support/cli-helpers.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { sh, writeScript } from '../../support/security-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
  extraWorktrees,
  hydraBranches,
} from '../../support/fault-invariants.js';

let sandbox: Sandbox;
let repo: string;
let configDir: string;
let marker: string;

beforeEach(async () => {
  sandbox = createSandbox();
  // A Claude on PATH that a fallback would pick: it must never run here.
  await installFakes(sandbox.bin, { claude: { agent: 'claude', delayMs: 2 } });
  await installFakes(path.join(sandbox.dir, 'vendor'), { claude: { agent: 'claude', delayMs: 2 } });
  repo = await createRepo(sandbox.dir);
  configDir = path.join(sandbox.dir, 'conf');
  mkdirSync(path.join(configDir, 'tools'), { recursive: true });
  marker = path.join(sandbox.dir, 'wrapper-ran.log');
  writeScript(
    path.join(configDir, 'tools', 'claude-wrapper'),
    `echo "$*" >> ${sh(marker)}\nexec ${sh(path.join(sandbox.dir, 'vendor', 'claude'))} "$@"`,
  );
});

afterEach(() => sandbox.cleanup());

const writeConfig = (binary: string): string => {
  const file = path.join(configDir, 'hydra.toml');
  writeFileSync(file, `[race]\nagents = ["claude"]\n[agents.claude]\nbinary = ${JSON.stringify(binary)}\n`);
  return file;
};

describe('a configured binary', () => {
  it("resolves a relative path from the config file's directory, not the working directory", async () => {
    const config = writeConfig('./tools/claude-wrapper');
    const result = await hydra(['race', '--json', '--config', config, 'Add a hello.txt file'], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    // The wrapper ran the race (not only the probe).
    expect(readFileSync(marker, 'utf8')).toContain('--output-format');
    const runId = (parseNdjson(result.stdout)[0] as { runId: string }).runId;
    expectNoProcessOfRun(runId);
  });

  it('that does not exist is a config error (exit 2) naming the key and the path; nothing starts', async () => {
    const config = writeConfig('./tools/claude-gone');
    const before = captureUserState(repo);
    const result = await hydra(['race', '--json', '--config', config, 'Add a hello.txt file'], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('agents.claude.binary');
    expect(result.stderr).toContain(path.join(configDir, 'tools', 'claude-gone'));
    expect(result.stderr).toContain('remove the key');
    expect(result.stdout).toBe('');
    expect(existsSync(marker)).toBe(false);
    expectUserStateUnchanged(repo, before);
    expect(extraWorktrees(repo)).toEqual([]);
    expect(hydraBranches(repo)).toEqual([]);
    expect(existsSync(path.join(repo, '.hydra', 'runs'))).toBe(false);
    expectRecordsReadable(repo);
  });

  it('named without a path and not on PATH is a config error too', async () => {
    const config = writeConfig('claude-nightly');
    const result = await hydra(['race', '--json', '--config', config, 'x'], { cwd: repo, env: sandbox.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('agents.claude.binary: "claude-nightly" is not on PATH');
  });

  it('doctor reports a missing configured binary as missing, naming the key, without using PATH', async () => {
    const config = writeConfig('./tools/claude-gone');
    const result = await hydra(['doctor', '--json', '--config', config], { cwd: repo, env: sandbox.env });
    const report = JSON.parse(result.stdout) as {
      adapters: Array<{
        id: string;
        status: string;
        binary: string | null;
        error: { message: string } | null;
      }>;
    };
    const claude = report.adapters.find((adapter) => adapter.id === 'claude');
    expect(claude).toMatchObject({ status: 'missing', binary: null });
    expect(claude?.error?.message).toContain(
      `agents.claude.binary = "${path.join(configDir, 'tools', 'claude-gone')}"`,
    );
  });
});
