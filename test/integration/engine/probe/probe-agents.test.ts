/**
 * probeAgents and the real probe runner, on real executables in temp directories that print the
 * recorded help texts: discovery on PATH, statuses, the capability cache and its invalidation.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AdapterId, ProbeRunner } from '../../../../src/adapters/types.js';
import { resolveCommand } from '../../../../src/engine/probe/binaries.js';
import { CAPABILITY_CACHE_FILE } from '../../../../src/engine/probe/cache.js';
import { probeAgents } from '../../../../src/engine/probe/probe.js';
import { realProbeRunner } from '../../../../src/engine/probe/runner.js';
import type { AgentPlan } from '../../../../src/engine/index.js';
import { FIXTURES_DIR, helpVersions } from '../../../support/adapter-fixtures.js';
import { alive } from '../../../support/processes.js';

let root: string;
let binDir: string;
let cacheDir: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'hydra-probe-'));
  binDir = join(root, 'bin');
  cacheDir = join(root, 'cache');
  await mkdir(binDir);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const plan = (adapterId: AdapterId, overrides: Partial<AgentPlan> = {}): AgentPlan => ({
  adapterId,
  extraArgs: [],
  env: {},
  idleTimeoutMs: 60_000,
  ...overrides,
});

/** An executable that answers `--version`, `--help` and `exec --help` from one recorded version. */
const installRecordedCli = async (
  name: string,
  agent: string,
  version: string,
  dir: string = binDir,
): Promise<string> => {
  const help = join(FIXTURES_DIR, agent, 'help', version);
  const script = [
    '#!/bin/sh',
    `d='${help}'`,
    'case "$*" in',
    '  "--version") cat "$d/version.txt" ;;',
    '  "--help") cat "$d/help.txt" ;;',
    '  "exec --help") cat "$d/exec-help.txt" ;;',
    '  *) echo "unexpected arguments: $*" >&2; exit 2 ;;',
    'esac',
    '',
  ].join('\n');
  const path = join(dir, name);
  await writeFile(path, script);
  await chmod(path, 0o755);
  return path;
};

const installScript = async (name: string, body: string): Promise<string> => {
  const path = join(binDir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
};

/** PATH with only the temp bin dir plus what /bin/sh and cat need. */
const envWith = (...dirs: string[]): NodeJS.ProcessEnv => ({
  PATH: [...dirs, '/usr/bin', '/bin'].join(delimiter),
});

const countingRunner = (): ProbeRunner & { calls: number } => {
  const runner = async (...args: Parameters<ProbeRunner>) => {
    runner.calls += 1;
    return realProbeRunner(...args);
  };
  runner.calls = 0;
  return runner;
};

/** True once the process is gone (or a zombie nobody has reaped yet); polls for up to 5 s. */
const eventuallyGone = async (pid: number): Promise<boolean> => {
  for (let i = 0; i < 100; i += 1) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
};

const newestClaude = (): string => helpVersions('claude').at(-1)!;
const newestCodex = (): string => helpVersions('codex').at(-1)!;

describe('realProbeRunner', () => {
  it('returns stdout, stderr and the exit code of a real process', async () => {
    const path = await installScript('talk', 'echo out; echo err >&2; exit 3');
    const output = await realProbeRunner(path, [], { timeoutMs: 10_000 });
    expect(output).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false });
    expect(output.spawnError).toBeUndefined();
  });

  it('reports a binary that cannot be started instead of throwing', async () => {
    const output = await realProbeRunner(join(binDir, 'does-not-exist'), ['--version'], {
      timeoutMs: 10_000,
    });
    expect(output.spawnError).toMatch(/ENOENT/);
    expect(output.exitCode).toBeNull();
  });

  it('kills a probe that outlives its time limit', async () => {
    const pidFile = join(root, 'pid');
    const path = await installScript('hang', `echo $$ > '${pidFile}'; exec sleep 30`);
    const output = await realProbeRunner(path, [], { timeoutMs: 300 });
    expect(output.timedOut).toBe(true);
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('kills what a probe left running in the background once it exits', async () => {
    const pidFile = join(root, 'pid');
    const path = await installScript(
      'forks',
      `sleep 30 >/dev/null 2>&1 & echo $! > '${pidFile}'; echo 1.0.0`,
    );
    const output = await realProbeRunner(path, [], { timeoutMs: 10_000 });
    expect(output).toMatchObject({ exitCode: 0, stdout: '1.0.0\n', timedOut: false });
    expect(await eventuallyGone(Number((await readFile(pidFile, 'utf8')).trim()))).toBe(true);
  });

  it('ends a hanging probe at its time limit even when its child holds the output open, killing the child', async () => {
    const pidFile = join(root, 'pid');
    const path = await installScript('hangs', `sleep 60 & echo $! > '${pidFile}'; wait`);
    const output = await realProbeRunner(path, [], { timeoutMs: 300 });
    expect(output.timedOut).toBe(true);
    expect(await eventuallyGone(Number((await readFile(pidFile, 'utf8')).trim()))).toBe(true);
  });

  it('leaves stdin closed, so a CLI waiting for input ends at once', async () => {
    const path = await installScript('reader', 'cat; echo done');
    const output = await realProbeRunner(path, [], { timeoutMs: 10_000 });
    expect(output).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
  });
});

describe('resolveCommand', () => {
  it('finds names on the given PATH only, skipping non-executable files', async () => {
    await writeFile(join(binDir, 'claude'), 'not executable');
    expect(await resolveCommand('claude', envWith(binDir))).toBeNull();
    const path = await installRecordedCli('claude', 'claude', newestClaude());
    expect(await resolveCommand('claude', envWith(binDir))).toBe(path);
    expect(await resolveCommand('claude', { PATH: '' })).toBeNull();
  });
});

describe('probeAgents', () => {
  it('reports ready agents with version, capabilities and the exact sample command', async () => {
    const claude = await installRecordedCli('claude', 'claude', newestClaude());
    const codex = await installRecordedCli('codex', 'codex', newestCodex());
    const reports = await probeAgents([plan('claude', { model: 'sonnet' }), plan('codex')], {
      cacheDir,
      allowExperimental: false,
      env: envWith(binDir),
    });
    expect(reports.map((report) => [report.adapterId, report.status])).toEqual([
      ['claude', 'ready'],
      ['codex', 'ready'],
    ]);
    expect(reports[0]).toMatchObject({
      binary: claude,
      version: newestClaude(),
      cached: false,
      error: null,
      tier: 'tier1',
    });
    expect(reports[0]?.command).toEqual([
      claude,
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'acceptEdits',
      '--model',
      'sonnet',
      '--',
      'Say hello',
    ]);
    expect(reports[1]?.command?.slice(0, 4)).toEqual([codex, 'exec', '--json', '-C']);
  });

  it("runs the CLI with what its agent would get of the environment: its own keys, no other CLI's or token", async () => {
    const seen = join(root, 'env.txt');
    await installRecordedCli('claude-real', 'claude', newestClaude());
    await installScript('claude', `env >> '${seen}'; exec '${join(binDir, 'claude-real')}' "$@"`);
    const [report] = await probeAgents([plan('claude', { env: { MY_SETTING: 'configured' } })], {
      cacheDir,
      allowExperimental: false,
      env: {
        ...envWith(binDir),
        HOME: root,
        ANTHROPIC_API_KEY: 'sk-ant-own',
        CLAUDE_CODE_USE_BEDROCK: '0',
        OPENAI_API_KEY: 'sk-other-cli',
        GH_TOKEN: 'ghp_forge',
        AWS_SECRET_ACCESS_KEY: 'cloud',
      },
    });
    expect(report?.status).toBe('ready');
    const names = new Set(
      (await readFile(seen, 'utf8')).split('\n').map((line) => line.slice(0, line.indexOf('='))),
    );
    for (const name of ['PATH', 'HOME', 'ANTHROPIC_API_KEY', 'CLAUDE_CODE_USE_BEDROCK', 'MY_SETTING'])
      expect(names.has(name), name).toBe(true);
    for (const name of ['OPENAI_API_KEY', 'GH_TOKEN', 'AWS_SECRET_ACCESS_KEY'])
      expect(names.has(name), name).toBe(false);
  });

  it('reports a missing CLI with the command that installs it', async () => {
    const [report] = await probeAgents([plan('codex')], {
      cacheDir,
      allowExperimental: false,
      env: envWith(binDir),
    });
    expect(report).toMatchObject({ status: 'missing', binary: null, command: null });
    expect(report?.error).toMatchObject({
      kind: 'BinaryMissing',
      hint: expect.stringContaining('npm install -g @openai/codex'),
    });
  });

  it('reports an unsupported version with the reason and an upgrade hint', async () => {
    const legacy = helpVersions('codex')[0]!;
    await installRecordedCli('codex', 'codex', legacy);
    const [report] = await probeAgents([plan('codex')], {
      cacheDir,
      allowExperimental: false,
      env: envWith(binDir),
    });
    expect(report).toMatchObject({ status: 'unsupported', error: { kind: 'UnsupportedVersion' } });
    expect(report?.error?.hint).toMatch(/npm install -g @openai\/codex/);
  });

  it('reports disabled and needs-opt-in agents without probing them', async () => {
    await installRecordedCli('claude', 'claude', newestClaude());
    const runner = countingRunner();
    const reports = await probeAgents([plan('claude', { enabled: false }), plan('cursor')], {
      cacheDir,
      allowExperimental: false,
      env: envWith(binDir),
      run: runner,
    });
    expect(reports.map((report) => report.status)).toEqual(['disabled', 'needs-opt-in']);
    expect(reports[0]?.binary).toBe(join(binDir, 'claude'));
    expect(runner.calls).toBe(0);
  });

  it('rejects a placeholder model before anything is launched', async () => {
    await installRecordedCli('claude', 'claude', newestClaude());
    const runner = countingRunner();
    const [report] = await probeAgents([plan('claude', { model: '<model>' })], {
      cacheDir,
      allowExperimental: false,
      env: envWith(binDir),
      run: runner,
    });
    expect(report).toMatchObject({ status: 'unsupported', error: { kind: 'InvalidConfig' } });
    expect(runner.calls).toBe(0);
  });

  it('uses a configured binary path before PATH', async () => {
    const elsewhere = join(root, 'elsewhere');
    await mkdir(elsewhere);
    const configured = await installRecordedCli('my-claude', 'claude', helpVersions('claude')[0]!, elsewhere);
    await installRecordedCli('claude', 'claude', newestClaude());
    const [report] = await probeAgents([plan('claude', { binary: configured })], {
      cacheDir,
      allowExperimental: false,
      env: envWith(binDir),
    });
    expect(report).toMatchObject({ status: 'ready', binary: configured, version: helpVersions('claude')[0] });
  });

  it('does not fall back to PATH when the configured binary does not exist: missing, naming the key', async () => {
    await installRecordedCli('claude', 'claude', newestClaude());
    const gone = join(root, 'gone', 'claude');
    const [report] = await probeAgents([plan('claude', { binary: gone })], {
      cacheDir,
      allowExperimental: false,
      env: envWith(binDir),
    });
    expect(report).toMatchObject({ status: 'missing', binary: null, command: null });
    expect(report?.error?.message).toContain(`agents.claude.binary = "${gone}"`);
    expect(report?.error?.hint).toContain('agents.claude.binary');
  });

  describe('capability cache', () => {
    it('answers from the cache the second time, without running the CLI', async () => {
      await installRecordedCli('claude', 'claude', newestClaude());
      const first = countingRunner();
      const [probed] = await probeAgents([plan('claude')], {
        cacheDir,
        allowExperimental: false,
        env: envWith(binDir),
        run: first,
      });
      expect(first.calls).toBeGreaterThan(0);
      const second = countingRunner();
      const [cached] = await probeAgents([plan('claude')], {
        cacheDir,
        allowExperimental: false,
        env: envWith(binDir),
        run: second,
      });
      expect(second.calls).toBe(0);
      expect(cached).toMatchObject({ status: 'ready', cached: true });
      expect(cached?.capabilities).toEqual(probed?.capabilities);
      const file = JSON.parse(await readFile(join(cacheDir, CAPABILITY_CACHE_FILE), 'utf8')) as {
        entries: Record<string, unknown>;
      };
      expect(Object.keys(file.entries)).toHaveLength(1);
    });

    it('probes again when the binary is upgraded in place (new size or mtime)', async () => {
      const path = await installRecordedCli('claude', 'claude', helpVersions('claude')[0]!);
      await probeAgents([plan('claude')], { cacheDir, allowExperimental: false, env: envWith(binDir) });
      // Same size, new mtime: a touch is enough.
      const later = new Date(Date.now() + 60_000);
      await utimes(path, later, later);
      const touched = countingRunner();
      const [afterTouch] = await probeAgents([plan('claude')], {
        cacheDir,
        allowExperimental: false,
        env: envWith(binDir),
        run: touched,
      });
      expect(touched.calls).toBeGreaterThan(0);
      expect(afterTouch?.cached).toBe(false);
      // An upgrade to another version is seen as such.
      await installRecordedCli('claude', 'claude', newestClaude());
      const [upgraded] = await probeAgents([plan('claude')], {
        cacheDir,
        allowExperimental: false,
        env: envWith(binDir),
      });
      expect(upgraded).toMatchObject({ cached: false, version: newestClaude() });
    });

    it('ignores a corrupt cache file and rewrites it', async () => {
      await installRecordedCli('codex', 'codex', newestCodex());
      await mkdir(cacheDir, { recursive: true });
      await writeFile(join(cacheDir, CAPABILITY_CACHE_FILE), '{"version": 1, "entries": {"codex:/x": ');
      const [report] = await probeAgents([plan('codex')], {
        cacheDir,
        allowExperimental: false,
        env: envWith(binDir),
      });
      expect(report).toMatchObject({ status: 'ready', cached: false });
      const file = JSON.parse(await readFile(join(cacheDir, CAPABILITY_CACHE_FILE), 'utf8')) as {
        version: number;
      };
      expect(file.version).toBe(1);
    });

    it('does not cache a probe that timed out', async () => {
      await installScript('codex', 'sleep 30');
      const hung: ProbeRunner = async () => ({ exitCode: null, stdout: '', stderr: '', timedOut: true });
      const [report] = await probeAgents([plan('codex')], {
        cacheDir,
        allowExperimental: false,
        env: envWith(binDir),
        run: hung,
      });
      expect(report?.error?.kind).toBe('TimedOut');
      await expect(readFile(join(cacheDir, CAPABILITY_CACHE_FILE), 'utf8')).rejects.toThrow();
    });
    it('gives a slow CLI more than a minute to answer (Gemini CLI took 65 s for --version under load)', async () => {
      await installRecordedCli('codex', 'codex', newestCodex());
      const limits: number[] = [];
      const timing: ProbeRunner = async (file, args, options) => {
        limits.push(options.timeoutMs);
        return realProbeRunner(file, args, options);
      };
      const [report] = await probeAgents([plan('codex')], {
        cacheDir,
        allowExperimental: false,
        env: envWith(binDir),
        run: timing,
      });
      expect(report?.status).toBe('ready');
      expect(limits.length).toBeGreaterThan(0);
      for (const limit of limits) expect(limit).toBeGreaterThanOrEqual(80_000);
    });
  });

  describe('cursor discovery', () => {
    const cursorHelp = (vendor: string): string =>
      `Usage: agent [options] [prompt...]\n\n${vendor}\n\nOptions:\n  -p, --print                 Print responses to console\n  --output-format <format>    text | json | stream-json\n  -f, --force                 Force allow commands\n  -m, --model <model>         Model to use\n  -h, --help                  display help for command\n`;

    it('accepts a binary named agent only when its help identifies Cursor', async () => {
      await installScript(
        'agent',
        `case "$1" in --version) echo 1.2.3 ;; --help) printf '%s' '${cursorHelp('Another vendor agent')}' ;; esac`,
      );
      const [other] = await probeAgents([plan('cursor')], {
        cacheDir,
        allowExperimental: true,
        env: envWith(binDir),
      });
      expect(other).toMatchObject({ status: 'unsupported', error: { kind: 'UnsupportedVersion' } });
      await installScript(
        'agent',
        `case "$1" in --version) echo 2025.11.25 ;; --help) printf '%s' '${cursorHelp('Cursor Agent')}' ;; esac`,
      );
      const [cursor] = await probeAgents([plan('cursor')], {
        cacheDir,
        allowExperimental: true,
        env: envWith(binDir),
      });
      expect(cursor).toMatchObject({ status: 'ready', binary: join(binDir, 'agent') });
      expect(cursor?.capabilities?.confidence).toBe('inferred');
      expect(cursor?.warnings.join(' ')).toMatch(/experimental/);
      expect(cursor?.command).toEqual([
        join(binDir, 'agent'),
        '-p',
        '--output-format',
        'stream-json',
        '--force',
        '--',
        'Say hello',
      ]);
    });

    it('prefers cursor-agent over agent', async () => {
      await installScript(
        'agent',
        `case "$1" in --version) echo 1.0.0 ;; --help) printf '%s' '${cursorHelp('Cursor Agent')}' ;; esac`,
      );
      await installScript(
        'cursor-agent',
        `case "$1" in --version) echo 2.0.0 ;; --help) printf '%s' '${cursorHelp('Cursor Agent')}' ;; esac`,
      );
      const [report] = await probeAgents([plan('cursor')], {
        cacheDir,
        allowExperimental: true,
        env: envWith(binDir),
      });
      expect(report).toMatchObject({
        status: 'ready',
        binary: join(binDir, 'cursor-agent'),
        version: '2.0.0',
      });
    });
  });
});
