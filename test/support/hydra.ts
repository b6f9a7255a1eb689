/**
 * `hydra(args, {cwd, env})`: one hydra command, in this test worker or as the built binary.
 *
 * In-process (the default) it is `runCli` (src/cli/run.ts, from source: what the binary bundles),
 * with stream objects that collect stdout and stderr, stdin at end of file (as the binary's `stdin:
 * 'ignore'`), and for the call's duration what a new process would have: `process.env` is exactly
 * the given env (hydra reads it there as well as from its context: git's, the agents' and the
 * probes' environments, the config's paths), the working directory is `cwd`, and the module graph
 * of src/ is a fresh one (`vi.resetModules`), so no cache of a module (the probe runner's registry,
 * the containment and sandbox checks, the secrets learned, the repositories' config read once per
 * process) outlives the command. When it returns, the `exit` listeners it added run, as
 * `process.exit` runs them (a lock's release), and the signal listeners it left are removed.
 * Measured (10 alternating): `hydra runs` 133 ms spawned, 41 ms in-process at load ~4 (658 and
 * 173 ms at load ~20); `hydra doctor --json` 181 and 69 ms (869 and 305 ms).
 *
 * Spawned (`node dist/cli/main.js`, as before) where the process is the point or in-process is not
 * the same: `{spawn: true}` (signals, kill -9, exit codes of a killed process, the binary's flush),
 * `input` (stdin), a command that starts a race (RACE_COMMANDS, unless `{spawn: false}`),
 * `NODE_OPTIONS` in the env (node applies it as a process starts), a sandboxed race
 * (`HYDRA_SANDBOX` not `off`: the sandbox library keeps proxies and state for the life of its
 * process), `HYDRA_TRACE` (written to the process's own stderr), a second call while one runs in
 * this worker (the environment and working directory are the process's: one at a time), and every
 * call when the test run has `HYDRA_TEST_SPAWN=1`.
 */
import { execa } from 'execa';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MAIN = path.join(ROOT, 'dist', 'cli', 'main.js');

export interface HydraResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface HydraOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to hydra's stdin (then the command is spawned). */
  input?: string;
  timeoutMs?: number;
  /**
   * true: the built binary as a process of its own (a test about the process); false: a race command
   * in-process (one that makes no run record). Default: see spawnReason.
   */
  spawn?: boolean;
}

export async function hydra(args: string[], options: HydraOptions): Promise<HydraResult> {
  return spawnReason(args, options) === undefined ? hydraInProcess(args, options) : spawnHydra(args, options);
}

/**
 * The commands that start a race. Its run record names the process that ran it as the run's owner
 * (meta.json's pid and start time), and a run whose owner lives is in use (`hydra clean` and `hydra
 * merge` leave it alone, `hydra runs` says running): in-process, the owner would be this worker,
 * alive after the command. `spawn: false` runs one in-process where no record is made (a refused
 * configuration).
 */
const RACE_COMMANDS: ReadonlySet<string> = new Set(['race', 'continue', 'rerun', 'demo']);

/** Why this call is spawned (undefined: it runs in-process). */
export function spawnReason(args: readonly string[], options: HydraOptions): string | undefined {
  if (options.spawn === true) return 'asked';
  if (options.input !== undefined) return 'stdin';
  if (options.spawn !== false && RACE_COMMANDS.has(args[0] ?? '')) return 'starts a race';
  // Node's options (a module hook, say) apply to a node process as it starts.
  if (options.env['NODE_OPTIONS'] !== undefined) return 'NODE_OPTIONS';
  if (running) return 'another hydra runs in-process';
  if (process.env['HYDRA_TEST_SPAWN'] === '1') return 'HYDRA_TEST_SPAWN=1';
  if ((options.env['HYDRA_SANDBOX'] ?? 'off') !== 'off') return 'sandboxed';
  if (options.env['HYDRA_TRACE'] !== undefined) return 'HYDRA_TRACE';
  return undefined;
}

/** `node dist/cli/main.js <args>` with exactly the given environment. */
export async function spawnHydra(args: string[], options: HydraOptions): Promise<HydraResult> {
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

/** The signals a command may answer (race-session, the tree guard, the process registry). */
const SIGNALS = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGQUIT',
  'SIGTSTP',
  'SIGCONT',
  'SIGWINCH',
  'SIGPIPE',
  'SIGUSR1',
  'SIGUSR2',
] as const;
type ProcessEvent = 'exit' | (typeof SIGNALS)[number];
type Listener = (...values: unknown[]) => void;
const listenersOf = (event: ProcessEvent): Listener[] =>
  process.listeners(event as NodeJS.Signals) as unknown as Listener[];

let running = false;

/** runCli in this worker, as a process of its own would run it (see above). */
export async function hydraInProcess(args: string[], options: HydraOptions): Promise<HydraResult> {
  if (running) throw new Error('hydra in-process: another command is running in this worker');
  running = true;
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  const events: ProcessEvent[] = ['exit', ...SIGNALS];
  const before = new Map(events.map((event) => [event, new Set(listenersOf(event))]));
  const added = (event: ProcessEvent): Listener[] =>
    listenersOf(event).filter((listener) => !before.get(event)?.has(listener));
  const stdout = new Collector();
  const stderr = new Collector();
  let settled = false;
  try {
    replaceEnv(options.env);
    process.chdir(options.cwd);
    vi.resetModules();
    const { runCli } = await import('../../src/cli/run.js');
    const { TERMINAL_LOST } = await import('../../src/cli/errors.js');
    const code = await withTimeout(
      runCli(args, {
        cwd: options.cwd,
        // The binary's context holds process.env itself, which is now exactly the given env.
        env: process.env,
        stdin: Readable.from([]) as unknown as NodeJS.ReadStream,
        stdout: stdout as unknown as NodeJS.WriteStream,
        stderr: stderr as unknown as NodeJS.WriteStream,
      }),
      options.timeoutMs ?? 60_000,
      args,
    );
    settled = true;
    // What process.exit(code) runs: the `exit` listeners the command added (a lock's release).
    for (const listener of added('exit')) listener(code);
    if (code === TERMINAL_LOST)
      throw new Error(
        `hydra ${args.join(' ')}: the binary ends by SIGHUP here (terminal lost): run it with {spawn: true}`,
      );
    return { exitCode: code, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    for (const event of events)
      for (const listener of added(event))
        process.removeListener(event as NodeJS.Signals, listener as NodeJS.SignalsListener);
    process.chdir(savedCwd);
    replaceEnv(savedEnv);
    // A command that did not finish in time may still run: later calls in this worker spawn.
    running = !settled;
  }
}

/** Makes process.env hold exactly `env` (in place: modules keep a reference to process.env). */
function replaceEnv(env: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, args: readonly string[]): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`hydra ${args.join(' ')} (in-process) did not finish in ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A stdout or stderr that keeps what is written (not a terminal, as a pipe is not). */
class Collector extends Writable {
  private readonly chunks: Buffer[] = [];

  override _write(
    chunk: Buffer | string,
    encoding: BufferEncoding,
    done: (error?: Error | null) => void,
  ): void {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk);
    done();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
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
