/** `hydra doctor` through the real entry point, with fake agent CLIs on PATH. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, git, hydra, installFakes } from '../../support/cli-helpers.js';
import { withDoctorWarnings } from '../../../src/cli/commands/doctor.js';
import type { AgentProbeReport } from '../../../src/engine/index.js';
import { portableEnv } from '../../support/portable.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

interface DoctorOutput {
  git: {
    version: string | null;
    isRepo: boolean;
    root: string | null;
    branch: string | null;
    detached: boolean;
    hasCommits: boolean;
    dirtyFiles: number;
    problems: Array<{ kind: string; message: string; hint: string }>;
  };
  adapters: Array<{
    id: string;
    tier: string;
    status: string;
    binary: string | null;
    version: string | null;
    capabilities: unknown;
    command: string[] | null;
    warnings: string[];
    error: { kind: string; message: string; hint: string } | null;
  }>;
  sandbox: { mode: string; available: boolean };
}

const doctorJson = async (cwd = repo, extra: string[] = []) => {
  const result = await hydra(['doctor', '--json', ...extra], { cwd, env: sandbox.env });
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  expect(lines, result.stderr).toHaveLength(1);
  return { result, report: JSON.parse(lines[0] ?? '') as DoctorOutput };
};

describe('hydra doctor --json', () => {
  it('prints one object in the documented shape and exits 0 with a tier-1 agent ready', async () => {
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude' },
      codex: { agent: 'codex' },
      'cursor-agent': { agent: 'cursor' },
      gemini: { agent: 'gemini' },
    });
    const { result, report } = await doctorJson();
    expect(result.exitCode).toBe(0);
    expect(Object.keys(report).sort()).toEqual([
      'adapters',
      'autoCheck',
      'config',
      'git',
      'processes',
      'sandbox',
      'setup',
      'share',
    ]);
    expect(report.git).toMatchObject({
      isRepo: true,
      branch: 'main',
      detached: false,
      hasCommits: true,
      dirtyFiles: 0,
    });
    expect(report.git.version).toMatch(/^\d+\.\d+/);
    expect(report.adapters.map((adapter) => adapter.id)).toEqual([
      'claude',
      'codex',
      'cursor',
      'gemini',
      'qwen',
      'opencode',
    ]);
    for (const adapter of report.adapters) {
      expect(Object.keys(adapter).sort()).toEqual([
        'binary',
        'capabilities',
        'command',
        'error',
        'id',
        'status',
        'tier',
        'version',
        'warnings',
      ]);
    }
    const [claude, codex, cursor, gemini] = report.adapters;
    expect(claude).toMatchObject({
      tier: 'tier1',
      status: 'ready',
      binary: path.join(sandbox.bin, 'claude'),
      error: null,
    });
    expect(claude?.command?.[0]).toBe(path.join(sandbox.bin, 'claude'));
    expect(claude?.command).toContain('stream-json');
    // The very command a race here runs: unsandboxed (the suite's HYDRA_SANDBOX=off), Claude asks
    // before running commands.
    expect(report.sandbox.available).toBe(false);
    expect(claude?.command).toContain('acceptEdits');
    expect(codex).toMatchObject({ tier: 'tier1', status: 'ready' });
    expect(codex?.command).toContain('--json');
    expect(cursor).toMatchObject({ tier: 'experimental', status: 'needs-opt-in' });
    // Tier 1: probed without the opt-in.
    expect(gemini?.tier).toBe('tier1');
    expect(gemini?.status).not.toBe('needs-opt-in');
    // The probe cache it wrote does not show up in the user's git status.
    expect(git(repo, ['status', '--porcelain'])).toBe('');
    // Sandboxed (.ci/run installs bubblewrap), a race's agents run in their no-approval mode: so
    // does the command shown.
    sandbox.env['HYDRA_SANDBOX'] = 'auto';
    const sandboxed = (await doctorJson()).report;
    expect(sandboxed.sandbox.available, JSON.stringify(sandboxed.sandbox)).toBe(true);
    const inside = sandboxed.adapters.find((adapter) => adapter.id === 'claude');
    expect(inside?.command).toContain('bypassPermissions');
    expect(inside?.command).not.toContain('acceptEdits');
  });

  it('reports a missing binary with an install hint, and exits 1 when no tier-1 agent is ready', async () => {
    const { result, report } = await doctorJson();
    expect(result.exitCode).toBe(1);
    const claude = report.adapters.find((adapter) => adapter.id === 'claude');
    expect(claude).toMatchObject({ status: 'missing', binary: null, command: null });
    expect(claude?.error?.kind).toBe('BinaryMissing');
    expect(claude?.error?.hint).toContain('npm install -g @anthropic-ai/claude-code');
  });

  it('reports an adapter whose help lacks the JSON output flag as unsupported', async () => {
    const help = path.join(sandbox.dir, 'old-claude-help.txt');
    writeFileSync(
      help,
      'Usage: claude [options] [prompt]\n\nOptions:\n  -p, --print   Print response and exit\n  -h, --help    Display help\n',
    );
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', helpFile: help, version: '0.2.0 (Claude Code)' },
    });
    const { result, report } = await doctorJson();
    expect(result.exitCode).toBe(1);
    const claude = report.adapters.find((adapter) => adapter.id === 'claude');
    expect(claude?.status).toBe('unsupported');
    expect(claude?.error?.kind).toMatch(/UnsupportedFlag|UnsupportedVersion/);
    expect(claude?.error?.message).toContain('--output-format');
    expect(claude?.error?.hint).not.toBe('');
  });

  it('says disabled for an agent disabled in hydra.toml, and ready for cursor when opted in', async () => {
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude' },
      codex: { agent: 'codex' },
      'cursor-agent': { agent: 'cursor' },
    });
    writeFileSync(
      path.join(repo, 'hydra.toml'),
      '[race]\nallow_experimental_adapters = true\n[agents.codex]\nenabled = false\n',
    );
    // The opt-in widens what runs: a repository's file gives it once trusted (issue 21, case 12).
    expect((await hydra(['trust'], { cwd: repo, env: sandbox.env })).exitCode).toBe(0);
    const { report } = await doctorJson();
    expect(report.adapters.find((adapter) => adapter.id === 'codex')?.status).toBe('disabled');
    const cursor = report.adapters.find((adapter) => adapter.id === 'cursor');
    expect(cursor?.status).toBe('ready');
    expect(cursor?.warnings.join(' ')).toMatch(/inferred/i);
  });

  it('says a binary is ignored because the trusted file changed, not because it was never trusted', async () => {
    await installFakes(sandbox.bin, { codex: { agent: 'codex' } });
    const file = path.join(repo, 'hydra.toml');
    writeFileSync(file, '[agents.claude]\nbinary = "./tools/claude"\n');
    expect((await hydra(['trust'], { cwd: repo, env: sandbox.env })).exitCode).toBe(0);
    writeFileSync(file, '[agents.claude]\nbinary = "./tools/claude-edited"\n');

    const { report } = await doctorJson();

    const hint = report.adapters.find((adapter) => adapter.id === 'claude')?.error?.hint ?? '';
    expect(hint).toContain('changed since you trusted it');
    expect(hint).not.toContain('Install');
  });

  it('describes a directory that is not a git repository', async () => {
    const outside = path.join(sandbox.dir, 'not-a-repo');
    mkdirSync(outside);
    await installFakes(sandbox.bin, { claude: { agent: 'claude' } });
    const { report } = await doctorJson(outside);
    expect(report.git.isRepo).toBe(false);
    expect(report.git.problems.length).toBeGreaterThan(0);
  });

  it('describes a detached HEAD and uncommitted files', async () => {
    writeFileSync(path.join(repo, 'notes.txt'), 'wip\n');
    git(repo, ['checkout', '--quiet', '--detach']);
    const { report } = await doctorJson();
    expect(report.git.detached).toBe(true);
    expect(report.git.dirtyFiles).toBe(1);
  });
});

describe("hydra doctor's last line agrees with what it found", () => {
  it('does not say ready to race outside a repository, and says what to do instead', async () => {
    await installFakes(sandbox.bin, { codex: { agent: 'codex' } });
    const outside = path.join(sandbox.dir, 'plain');
    mkdirSync(outside);
    const result = await hydra(['doctor'], { cwd: outside, env: sandbox.env });
    const last = result.stdout.trimEnd().split('\n').slice(-2);
    expect(result.stdout).not.toContain('ready to race');
    expect(last[0]).toContain('agents ready (codex), but hydra cannot race here');
    expect(last[0]).toContain('not inside a git repository');
    expect(last[1]).toContain('git init');
  });

  it("names hydra.toml's race.agents by their names, and which of them cannot race", async () => {
    await installFakes(sandbox.bin, { codex: { agent: 'codex' } });
    writeFileSync(
      path.join(repo, 'hydra.toml'),
      '[race]\nagents = ["opus", "sonnet", "codex"]\n[agents.opus]\nadapter = "claude"\nmodel = "opus"\n' +
        '[agents.sonnet]\nadapter = "claude"\nmodel = "sonnet"\n',
    );
    expect((await hydra(['trust'], { cwd: repo, env: sandbox.env })).exitCode).toBe(0);

    const codexOnly = await hydra(['doctor'], { cwd: repo, env: sandbox.env });
    await installFakes(sandbox.bin, { claude: { agent: 'claude' }, codex: { agent: 'codex' } });
    const both = await hydra(['doctor'], { cwd: repo, env: sandbox.env });

    expect(codexOnly.stdout).toContain(
      'ready to race: codex (race.agents); not ready: opus (Claude Code missing), sonnet (Claude Code missing)',
    );
    expect(codexOnly.stdout).toContain('hydra race --agents codex "<prompt>"');
    expect(both.stdout).toContain('ready to race: opus, sonnet, codex (race.agents)');
  });

  it('says ready to race on a detached HEAD (only the merge needs a branch)', async () => {
    await installFakes(sandbox.bin, { codex: { agent: 'codex' } });
    git(repo, ['checkout', '--quiet', '--detach']);
    const result = await hydra(['doctor'], { cwd: repo, env: sandbox.env });
    expect(result.stdout).toContain('ready to race: codex');
    expect(result.stdout).toContain('a result can only be merged into a branch');
  });

  it('says upgrade, not install, for an agent whose version is not supported', async () => {
    const help = path.join(sandbox.dir, 'old-claude-help.txt');
    writeFileSync(
      help,
      'Usage: claude [options] [prompt]\n\nOptions:\n  -p, --print   Print response and exit\n',
    );
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', helpFile: help, version: '0.2.0 (Claude Code)' },
    });
    const result = await hydra(['doctor'], { cwd: repo, env: sandbox.env });
    expect(result.stdout).toMatch(/claude\s+unsupported/);
    const verdict = result.stdout.trimEnd().split('\n').slice(-3).join('\n');
    expect(verdict).toContain('upgrade Claude Code (found 0.2.0');
    expect(verdict).not.toContain('install Claude Code');
    expect(verdict).toContain('install Codex');
  });
});

describe('hydra doctor (text)', () => {
  it('shows each agent with status, binary, command and a recovery hint for every problem', async () => {
    await installFakes(sandbox.bin, { codex: { agent: 'codex' } });
    const result = await hydra(['doctor'], { cwd: repo, env: sandbox.env });
    expect(result.exitCode).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/codex\s+ready\s+tier 1/);
    expect(out).toContain(`binary    ${path.join(sandbox.bin, 'codex')}`);
    expect(out).toMatch(/command {3}\S*codex exec .*--json/);
    expect(out).toMatch(/claude\s+missing\s+tier 1/);
    expect(out).toContain('npm install -g @anthropic-ai/claude-code');
    expect(out).toMatch(/cursor\s+needs-opt-in\s+experimental/);
    expect(out).toContain('--allow-experimental-adapters');
    expect(out).toContain('ready to race: codex');
    expect(out).not.toContain('\u001b[');
  });

  it("says which containment keeps each agent's process tree together, and why a fallback is used", async () => {
    await installFakes(sandbox.bin, { codex: { agent: 'codex' } });
    // This kind of machine (and CI) has util-linux `unshare`.
    const contained = await hydra(['doctor'], { cwd: repo, env: sandbox.env });
    expect(contained.stdout).toMatch(
      /processes\n {2}containment: PID namespace per agent \(unshare .*--pid --fork --kill-child --mount-proc --propagation slave\)/,
    );

    const fallback = await hydra(['doctor', '--json'], {
      cwd: repo,
      env: { ...sandbox.env, HYDRA_CONTAINMENT: 'group' },
    });
    expect((JSON.parse(fallback.stdout) as { processes: unknown }).processes).toEqual({
      containment: 'process-group',
      description: expect.stringContaining('fallback: HYDRA_CONTAINMENT=group is set') as unknown,
      table: 'proc',
      watchdog: true,
      summary: expect.stringContaining('the run marker is read in /proc') as unknown,
    });
  });

  it("says, on macOS's code paths, that the marker is read with ps and the watchdog guards the groups, and what is missing", async () => {
    await installFakes(sandbox.bin, { codex: { agent: 'codex' } });
    const portable = await hydra(['doctor'], { cwd: repo, env: portableEnv(sandbox.env) });
    expect(portable.stdout).toMatch(
      /processes\n {2}containment: process group \+ run marker \(fallback: HYDRA_PORTABLE=1 is set: the code paths of macOS\).*the run marker is read with ps.*its watchdog stops the run's marked processes and the process groups it recorded/,
    );

    const unguarded = await hydra(['doctor', '--json'], {
      cwd: repo,
      env: { ...portableEnv(sandbox.env), HYDRA_WATCHDOG: '0' },
    });
    const processes = (
      JSON.parse(unguarded.stdout) as { processes: { table: string; watchdog: boolean; summary: string } }
    ).processes;
    expect(processes).toMatchObject({ table: 'ps', watchdog: false });
    expect(processes.summary).toContain(
      'missing: the watchdog (HYDRA_WATCHDOG=0 is set), so a hydra killed outright leaves its agents running until `hydra clean`',
    );
  });
});

describe('the running-as-root warning', () => {
  const report = (status: AgentProbeReport['status']): AgentProbeReport => ({
    agent: 'claude',
    adapterId: 'claude',
    displayName: 'Claude Code',
    tier: 'tier1',
    status,
    binary: status === 'missing' ? null : '/usr/bin/claude',
    version: null,
    capabilities: null,
    command: null,
    warnings: [],
    error: null,
    cached: false,
  });

  it('is given for an installed Claude Code when hydra runs as root and the race would be --unsafe', () => {
    expect(withDoctorWarnings(report('ready'), { isRoot: true, unsafe: true }).warnings.join(' ')).toContain(
      'running as root',
    );
  });

  it('is not given as root when the race would not use bypass mode', () => {
    expect(withDoctorWarnings(report('ready'), { isRoot: true, unsafe: false }).warnings).toEqual([]);
  });

  it('is only given for the adapters that declare it', () => {
    const codex: AgentProbeReport = { ...report('ready'), adapterId: 'codex', displayName: 'Codex' };
    expect(withDoctorWarnings(codex, { isRoot: true, unsafe: true }).warnings).toEqual([]);
  });

  it('is not given when Claude Code is missing, or hydra is not root', () => {
    expect(withDoctorWarnings(report('missing'), { isRoot: true, unsafe: true }).warnings).toEqual([]);
    expect(withDoctorWarnings(report('ready'), { isRoot: false, unsafe: true }).warnings).toEqual([]);
  });
});
