/**
 * Runs a worktree's setup commands (`[setup] run`, or `.cursor/worktrees.json`) before its agent or
 * checks start: each one `sh -c`, in order, supervised like a check (spawnSupervised: its own process
 * group or PID namespace, registered with the race, nothing it starts outlives it), within
 * `timeoutMs` (SIGTERM, SIGKILL after the grace), in the agent's sandbox when it has one. The output
 * (stdout and stderr together) is redacted and kept, bounded, in the run record (`setup-<owner>.log`).
 * The first command that fails ends the setup. Never throws.
 */
import { appendFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { commandEnvironment, passedVariables, runLimited } from '../process/index.js';
import { knownSecrets, redactSecrets } from '../records/index.js';
import { pinCheckout, runGit, runPinned, splitZ } from '../git/index.js';
import type { SetupPlan } from './plan.js';
import type { SetupPlace } from './run-place.js';
import { worktreeEnv } from './env.js';
import { containerStarter } from '../container/index.js';

/** Output kept per command in the log file: the last 256 KB. */
const LOG_BYTES_PER_COMMAND = 256 * 1024;
/** The tail an error shows. */
const TAIL_CHARS = 2 * 1024;

export type SetupStatus = 'ok' | 'failed' | 'timed_out' | 'error' | 'cancelled';

export interface SetupOutcome {
  status: SetupStatus;
  /** The source of the commands. */
  source: SetupPlan['source'];
  durationMs: number;
  /** The last command's exit code (the failing one's), null when it did not exit by itself. */
  exitCode: number | null;
  /** The command that failed, or null. */
  failedCommand: string | null;
  /** The output's last lines (redacted), for the error. */
  tail: string;
  /** The log file (under the run record). */
  logFile: string;
  /** Top-level ignored paths the setup made (node_modules...): what a warm pool keeps. */
  produced: string[];
}

/**
 * The environment setup commands get: the same as the checks (plain output), plus
 * `ROOT_WORKTREE_PATH` for commands from `.cursor/worktrees.json`. The one place setup's env is built.
 */
const setupEnv = (plan: SetupPlan, place: SetupPlace): Record<string, string> => ({
  ...passedVariables(place.environment),
  NO_COLOR: '1',
  FORCE_COLOR: '0',
  ...(plan.source === 'cursor' ? { ROOT_WORKTREE_PATH: place.repoRoot } : {}),
  ...(place.identity === undefined
    ? {}
    : worktreeEnv({ runId: place.runId, worktree: place.cwd, ...place.identity })),
});

const environment = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

/** One command, `sh -c`, stderr with stdout. */
async function runOne(
  command: string,
  plan: SetupPlan,
  place: SetupPlace,
): Promise<{ exitCode: number | null; timedOut: boolean; spawnError: string | null; output: string }> {
  const {
    exit,
    timedOut,
    output: text,
  } = await runLimited(
    {
      file: 'sh',
      args: ['-c', `exec 2>&1\n${command}`],
      cwd: place.cwd,
      env: setupEnv(plan, place),
      // hydra's environment without its credentials, unless the place runs only trusted content.
      inherit: commandEnvironment(place.environment),
      runId: place.runId,
      agent: place.owner,
      stderrTailBytes: 16 * 1024,
      graceMs: place.graceMs,
      sandbox: place.sandbox ?? null,
      ...(place.shares === undefined || place.shares.length === 0 ? {} : { shares: place.shares }),
    },
    place.processes,
    {
      timeoutMs: plan.timeoutMs,
      graceMs: place.graceMs,
      outputBytes: LOG_BYTES_PER_COMMAND,
      ...(place.signal === undefined ? {} : { signal: place.signal }),
    },
    containerStarter(place.container),
  );
  return { exitCode: exit.exitCode, timedOut, spawnError: exit.spawnError ?? null, output: text };
}

/** The top-level entries of a directory. */
const entriesOf = async (dir: string): Promise<Set<string>> =>
  new Set(await readdir(dir).catch(() => [] as string[]));

/** Of `names` (top-level entries of `cwd`), the ones git ignores. */
async function ignoredOf(repoRoot: string, cwd: string, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const args = ['check-ignore', '-z', '--stdin'];
  const options = { input: names.join('\0'), okExitCodes: [1] };
  // A worktree or checkout of hydra's is asked through its entry in the repository, never through
  // the `.git` its setup could have rewritten (pinned.ts); any other place as it is.
  const pinned = await pinCheckout(repoRoot, cwd).catch(() => null);
  const checked = await (
    pinned === null ? runGit(cwd, args, options) : runPinned(pinned.pinned, args, options)
  ).catch(() => null);
  return checked === null ? [] : splitZ(checked.stdout).sort();
}

const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

/** Runs every command of `plan` in `place.cwd`, in order, until one fails. */
export async function runSetup(plan: SetupPlan, place: SetupPlace): Promise<SetupOutcome> {
  const started = Date.now();
  const secrets = [...(place.secrets ?? []), ...knownSecrets(environment())];
  const before = await entriesOf(place.cwd);
  await mkdir(path.dirname(plan.logFile), { recursive: true }).catch(() => undefined);
  await writeFile(plan.logFile, '').catch(() => undefined);
  let last: Awaited<ReturnType<typeof runOne>> | null = null;
  let failed: string | null = null;
  for (const command of plan.commands) {
    if (aborted(place.signal)) break;
    const result = await runOne(command, plan, place);
    last = result;
    const text = redactSecrets(
      result.spawnError === null ? result.output : `could not start sh: ${result.spawnError}`,
      secrets,
    );
    const ending = result.timedOut
      ? `timed out after ${Math.round(plan.timeoutMs / 1000)}s`
      : `exit code ${result.exitCode ?? 'none'}`;
    await appendFile(plan.logFile, `$ ${command}\n${text}${text === '' ? '' : '\n'}[${ending}]\n`).catch(
      () => undefined,
    );
    if (result.timedOut || result.spawnError !== null || result.exitCode !== 0) {
      failed = command;
      break;
    }
  }
  const durationMs = Date.now() - started;
  const status: SetupStatus = aborted(place.signal)
    ? 'cancelled'
    : last?.timedOut === true
      ? 'timed_out'
      : last?.spawnError !== null && last !== null
        ? 'error'
        : failed !== null
          ? 'failed'
          : 'ok';
  const after = await entriesOf(place.cwd);
  const produced =
    status === 'ok'
      ? await ignoredOf(
          place.repoRoot,
          place.cwd,
          [...after].filter((name) => !before.has(name)),
        )
      : [];
  const output = redactSecrets(last?.output ?? '', secrets);
  return {
    status,
    source: plan.source,
    durationMs,
    exitCode: last?.exitCode ?? null,
    failedCommand: status === 'ok' ? null : failed,
    tail: output.length <= TAIL_CHARS ? output : output.slice(-TAIL_CHARS),
    logFile: plan.logFile,
    produced,
  };
}
