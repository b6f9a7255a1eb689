/**
 * Runs one command and measures it: wall time (from this process), CPU time of the command and
 * every descendant it waited for (the kernel's cutime + cstime of a wrapping shell, read from
 * /proc), and, when the probe preload is on, each Node process's own CPU and peak RSS.
 *
 * Only Linux has /proc; the bench says so and stops elsewhere.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/** What the probe preload writes for every Node process it ran in (see probe-preload.ts). */
export interface NodeProcessReport {
  pid: number;
  /** process.argv[1]: the script the process ran. */
  script: string;
  maxRssKb: number;
  cpuMs: number;
  /** When the process started (epoch ms, sub-millisecond). */
  startedAt: number;
  /** When it exited (epoch ms). */
  endedAt?: number;
}

export interface ProcessSample {
  /** When the command was started (epoch ms, the same clock as NodeProcessReport.startedAt). */
  startedAt: number;
  wallMs: number;
  /** CPU of the command and its waited-for descendants (user + system), 10 ms resolution. */
  cpuMs: number;
  exitCode: number;
  stderrTail: string;
  /** Per Node process, when the command ran with `probeDir`. */
  nodeProcesses: NodeProcessReport[];
}

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Turns the probe preload on: every Node process writes a report into this (emptied) directory. */
  probeDir?: string;
  /** Kill the command after this long (the bench must not hang). */
  timeoutMs?: number;
}

/**
 * The wrapping shell runs the command with stdout to /dev/null, then prints its exit code and its
 * own /proc stat line, whose cutime/cstime hold the CPU of every child it (and they) reaped.
 */
const WRAPPER =
  '"$@" </dev/null >/dev/null; code=$?; read -r stat </proc/$$/stat; printf "%s %s\\n" "$code" "$stat"';

const STDERR_TAIL_BYTES = 32_000;

let clockTicks: number | null = null;

/** The kernel's clock ticks per second (USER_HZ), in which /proc reports CPU times. */
const ticksPerSecond = (): number => {
  if (clockTicks === null) {
    try {
      const value = Number.parseInt(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }), 10);
      clockTicks = Number.isFinite(value) && value > 0 ? value : 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
};

export const assertLinux = (): void => {
  if (!existsSync('/proc/self/stat')) {
    throw new Error('bench: this benchmark reads CPU times from /proc and runs on Linux only');
  }
};

export const probePreload = (): string =>
  path.join(path.dirname(fileURLToPath(import.meta.url)), 'probe-preload.js');

/** Parses `<exit code> <pid> (<comm>) <state> ...`: returns the exit code and children's CPU in ms. */
const parseWrapperLine = (line: string): { exitCode: number; cpuMs: number } => {
  const code = Number.parseInt(line, 10);
  const afterComm = line
    .slice(line.lastIndexOf(')') + 2)
    .trim()
    .split(/\s+/);
  // Fields after "(comm)": state is field 3 of stat(5), so field N sits at index N - 3.
  const cutime = Number(afterComm[16 - 3]);
  const cstime = Number(afterComm[17 - 3]);
  if (!Number.isFinite(code) || !Number.isFinite(cutime) || !Number.isFinite(cstime)) {
    throw new Error(`bench: cannot read the wrapper's /proc stat line: ${line.slice(0, 200)}`);
  }
  return { exitCode: code, cpuMs: ((cutime + cstime) * 1000) / ticksPerSecond() };
};

export const readProbeReports = (dir: string): NodeProcessReport[] =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as NodeProcessReport);

export async function measureCommand(argv: string[], options: RunOptions): Promise<ProcessSample> {
  const env: NodeJS.ProcessEnv = { ...options.env };
  if (options.probeDir !== undefined) {
    rmSync(options.probeDir, { recursive: true, force: true });
    mkdirSync(options.probeDir, { recursive: true });
    env.HYDRA_BENCH_PROBE_DIR = options.probeDir;
    env.NODE_OPTIONS = [env.NODE_OPTIONS, `--import=${probePreload()}`].filter(Boolean).join(' ');
  }
  const startedAt = performance.timeOrigin + performance.now();
  const started = process.hrtime.bigint();
  const child = spawn('/bin/sh', ['-c', WRAPPER, 'bench', ...argv], {
    cwd: options.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_BYTES);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const shellCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  }).finally(() => clearTimeout(timer));
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (shellCode !== 0) {
    throw new Error(
      `bench: \`${argv.join(' ')}\` was killed or its wrapper failed (code ${String(shellCode)}); stderr: ${stderr}`,
    );
  }
  const { exitCode, cpuMs } = parseWrapperLine(stdout.trim());
  const nodeProcesses = options.probeDir === undefined ? [] : readProbeReports(options.probeDir);
  return { startedAt, wallMs, cpuMs, exitCode, stderrTail: stderr, nodeProcesses };
}

/** Throws with the command's stderr when it did not exit as expected. */
export const expectExit = (sample: ProcessSample, expected: number, what: string): ProcessSample => {
  if (sample.exitCode !== expected) {
    throw new Error(
      `bench: ${what} exited ${sample.exitCode}, expected ${expected}; stderr:\n${sample.stderrTail}`,
    );
  }
  return sample;
};
