/**
 * Running git: argument arrays (startChild), never a shell. Every git command hydra runs has a
 * time limit and can be cancelled; it runs as the leader of its own process group, so a time limit,
 * a cancel or hydra's own exit ends git together with whatever it started (hooks, filters, their
 * children). A non-zero exit is a failure unless the caller says it is an answer (merge-tree's 1).
 */
import type { ErrorKind } from '../../core/events.js';
import { HydraError } from '../../core/hydra-error.js';
import { signalGroup, startChild } from '../process/index.js';
import type { ProcessRegistry } from '../process/index.js';

/** hydra's own identity for the commits it makes on its branches (works with no git identity). */
export const HYDRA_IDENTITY: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'hydra',
  GIT_AUTHOR_EMAIL: 'hydra@localhost',
  GIT_COMMITTER_NAME: 'hydra',
  GIT_COMMITTER_EMAIL: 'hydra@localhost',
};

/**
 * For git commands on hydra's own worktrees and branches: the user's hooks do not run. These
 * checkouts and commits are hydra's bookkeeping, not the user's; a hook would run once per agent,
 * unsupervised, in a directory it was not written for (and a failing post-checkout hook does not
 * even undo the checkout). Filters (LFS, eol) still apply: they decide what the files contain.
 */
export const NO_HOOKS: readonly string[] = ['-c', 'core.hooksPath=/dev/null'];

/**
 * What every git command hydra runs ignores, whatever the repository's config says: hydra never
 * needs an fsmonitor, a hook or a pager, and an agent can write any of them into the shared config
 * (they would then run as hydra, outside the agent's containment). The config values an agent
 * added that hydra cannot switch off for every command (filters, drivers, signing programs) are
 * overridden on the commands that touch agents' work (git-dir.ts, hardeningArgs).
 */
const STATIC_HARDENING: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
];

/**
 * git's own upkeep after a command (`git maintenance run --auto`, or `gc --auto` before git 2.29),
 * which commit, cherry-pick and fetch start: hydra's commits on its temporary worktrees and branches
 * do not start it (a git process per agent's commit, ~10 ms of CPU each, more when the repository's
 * config asks for a commit-graph or a gc). The repository's upkeep stays the user's git's, on the
 * user's own commands.
 */
const NO_AUTO_MAINTENANCE: readonly string[] = ['maintenance.auto=false', 'gc.auto=0'];

/**
 * The switches as `-c` would give them (git reads them from GIT_CONFIG_PARAMETERS, in every git
 * version), after any the caller's environment already has; the commands stay as written.
 */
const hardenedParameters = (inherited: string | undefined): string =>
  [inherited, ...[...STATIC_HARDENING, ...NO_AUTO_MAINTENANCE].map((item) => `'${item}'`)]
    .filter((part) => part !== undefined && part !== '')
    .join(' ');

/** Stable, non-interactive, English output; never opens an editor or asks for a password. */
const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_EDITOR: 'true',
  GIT_MERGE_AUTOEDIT: 'no',
  LC_ALL: 'C',
};

/** The time limit of one git command when the caller gives none: HYDRA_GIT_TIMEOUT_MS, else 5 minutes. */
const gitTimeoutMs = (env: NodeJS.ProcessEnv = process.env): number => {
  const value = Number(env.HYDRA_GIT_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : 5 * 60_000;
};

/** After the SIGTERM of a time limit or cancel, SIGKILL follows this much later. */
const GIT_KILL_GRACE_MS = 2000;

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * How a git command ended when it did not succeed: it ran and exited non-zero (`failed`, kind
 * `GitFailed`), could not start (`not-started`, kind `SpawnFailed`), ran out of time or was stopped.
 */
export type GitFailure = 'failed' | 'not-started' | 'timed-out' | 'interrupted';

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;

const excerpt = (text: string, max = 600): string => {
  const trimmed = text.trim();
  return trimmed.length > max ? `...${trimmed.slice(-max)}` : trimmed;
};

/** The command as the user would type it (without hydra's hook switch). */
const shown = (args: readonly string[]): string => args.filter((arg) => !NO_HOOKS.includes(arg)).join(' ');

/** What to do about a git failure, from what git said. */
const hintFor = (args: readonly string[], cwd: string, stderr: string): string => {
  const lock = /Unable to create '([^']+\.lock)': File exists/.exec(stderr);
  if (lock !== null)
    return `Another git process is using the repository, or one crashed: if no git command is running, remove ${lock[1]} and try again.`;
  if (/No space left on device|Out of diskspace|ENOSPC/i.test(stderr))
    return 'The disk is full: free some space, then try again.';
  return `Run \`git ${shown(args)}\` in ${cwd} to see the problem (hydra runs it without your hooks; filters and config still apply), fix it, then try again.`;
};

interface GitErrorContext {
  step?: string;
  cwd?: string;
  timeoutMs?: number;
}

/** The kind, message and hint of a git command that did not succeed. */
const describeGitFailure = (
  args: readonly string[],
  result: GitResult,
  failure: GitFailure,
  context: GitErrorContext,
): { kind: ErrorKind; message: string; hint: string } => {
  const step = context.step ?? `git ${shown(args)}`;
  const said = excerpt(result.stderr) || excerpt(result.stdout);
  const cwd = context.cwd ?? 'the repository';
  switch (failure) {
    case 'timed-out':
      return {
        kind: 'TimedOut',
        message: `${step} did not finish within ${seconds(context.timeoutMs ?? 0)} and was stopped${said === '' ? '.' : `: ${said}`}`,
        hint: `Something git ran did not finish (a filter such as git-lfs, or a lock held by another process): run \`git ${shown(args)}\` in ${cwd} to see it. HYDRA_GIT_TIMEOUT_MS sets the time limit (now ${context.timeoutMs ?? gitTimeoutMs()} ms).`,
      };
    case 'interrupted':
      return {
        kind: 'Interrupted',
        message: `${step} was interrupted.`,
        hint: 'It was cancelled; nothing is left half-made (`hydra clean` removes anything a crash left).',
      };
    case 'failed':
    case 'not-started':
      return {
        kind: failure === 'failed' ? 'GitFailed' : 'SpawnFailed',
        message: `${step} failed (exit ${result.exitCode})${said === '' ? '.' : `: ${said}`}`,
        hint: hintFor(args, cwd, result.stderr),
      };
  }
};

export interface GitCommandErrorOptions extends GitErrorContext {
  args: readonly string[];
  result: GitResult;
  /** By default `failed`: git ran and exited non-zero. */
  failure?: GitFailure;
  cause?: unknown;
}

/**
 * A git command that failed, could not start, timed out or was interrupted; says which step and
 * what to do. Its kind, message and hint come from what happened (describeGitFailure).
 */
export class GitCommandError extends HydraError {
  override readonly name = 'GitCommandError';
  readonly args: readonly string[];
  readonly result: GitResult;
  readonly failure: GitFailure;
  /** What hydra was doing, e.g. "git worktree add for claude". */
  readonly step: string;
  constructor(options: GitCommandErrorOptions) {
    const { args, result, failure = 'failed', cause, ...context } = options;
    super({ ...describeGitFailure(args, result, failure, context), cause });
    this.args = args;
    this.result = result;
    this.failure = failure;
    this.step = context.step ?? `git ${shown(args)}`;
  }
}

export interface RunGitOptions {
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (e.g. 1 for merge-tree conflicts). */
  okExitCodes?: number[];
  input?: string;
  /** Ends git (its whole process group) when aborted: the command then fails as interrupted. */
  signal?: AbortSignal;
  /** Time limit in milliseconds (default: gitTimeoutMs()). */
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL when stopping git (default 2 s). */
  graceMs?: number;
  /** What hydra was doing, named in the error: "git worktree add for claude". */
  step?: string;
  /**
   * Where git's process group is registered (a race's): killed with the agents' if hydra exits or
   * is interrupted twice. Given one, git runs in its own process group, so a time limit or a cancel
   * ends whatever it started too; without one, git stays in hydra's group and Ctrl-C in the
   * terminal reaches it as it reaches hydra.
   */
  processes?: ProcessRegistry;
  /** The run id its group is registered under. */
  owner?: string;
  /**
   * Its own process group, out of reach of Ctrl-C in the terminal and of hydra's signal handling,
   * for the few commands that must not be cut off half-way (the merge's update of the user's
   * working tree): only the time limit stops it.
   */
  uninterruptible?: boolean;
}

/** Stops a git process group: SIGTERM now, SIGKILL after the grace. Returns the pending SIGKILL. */
const stopGroup = (pgid: number, graceMs: number): NodeJS.Timeout => {
  signalGroup(pgid, 'SIGTERM');
  return setTimeout(() => signalGroup(pgid, 'SIGKILL'), graceMs);
};

export async function runGit(
  cwd: string,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<GitResult> {
  const timeoutMs = options.timeoutMs ?? gitTimeoutMs();
  const graceMs = options.graceMs ?? GIT_KILL_GRACE_MS;
  const context = { cwd, timeoutMs, ...(options.step === undefined ? {} : { step: options.step }) };
  if (options.signal?.aborted === true)
    throw new GitCommandError({
      args,
      result: { stdout: '', stderr: '', exitCode: -1 },
      failure: 'interrupted',
      ...context,
    });
  const detached = options.processes !== undefined || options.uninterruptible === true;
  const env = { ...process.env, ...GIT_ENV, ...options.env };
  const child = startChild('git', args, {
    cwd,
    env: { ...env, GIT_CONFIG_PARAMETERS: hardenedParameters(env['GIT_CONFIG_PARAMETERS']) },
    detached,
    stdin: options.input === undefined ? 'ignore' : { input: options.input },
  });
  const subprocess = child.process;
  // In its own group, git's process id is the group's; in hydra's, only git itself is signalled.
  const pgid = detached ? child.pid : undefined;
  const registry = options.uninterruptible === true ? undefined : options.processes;
  if (pgid !== undefined) registry?.registerGroup(pgid, { runId: options.owner ?? 'git' });
  let failure: GitFailure | null = null;
  let forceKill: NodeJS.Timeout | undefined;
  let giveUp: NodeJS.Timeout | undefined;
  let abandon: (value: null) => void = () => undefined;
  // A process that left the group may still hold the pipes: after a stop, wait for them only so long.
  const abandoned = new Promise<null>((resolve) => {
    abandon = resolve;
  });
  const stop = (why: GitFailure): void => {
    if (failure !== null) return;
    failure = why;
    if (pgid !== undefined) forceKill = stopGroup(pgid, graceMs);
    else {
      subprocess.kill('SIGTERM');
      forceKill = setTimeout(() => subprocess.kill('SIGKILL'), graceMs);
    }
    giveUp = setTimeout(() => {
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
      abandon(null);
    }, graceMs + 1000);
  };
  const limit = setTimeout(() => stop('timed-out'), Math.min(timeoutMs, 2 ** 31 - 1));
  const onAbort = (): void => stop('interrupted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // Once git itself exits, whatever it left in its group (a hook's child holding the pipes) goes too.
  subprocess.once('exit', () => {
    if (pgid !== undefined) signalGroup(pgid, 'SIGKILL');
  });
  const done = await Promise.race([child.result, abandoned]).finally(() => {
    clearTimeout(limit);
    clearTimeout(forceKill);
    clearTimeout(giveUp);
    options.signal?.removeEventListener('abort', onAbort);
    if (pgid !== undefined) {
      signalGroup(pgid, 'SIGKILL');
      registry?.unregisterGroup(pgid);
    }
  });
  const result: GitResult = {
    stdout: done?.stdout ?? '',
    stderr: done?.stderr ?? '',
    exitCode: done?.exitCode ?? -1,
  };
  if (failure !== null) throw new GitCommandError({ args, result, failure, ...context });
  if (done?.spawnError !== undefined && done.spawnError !== null) {
    const why = done.spawnError.code === 'ENOENT' ? 'git is not installed or not on PATH' : result.stderr;
    throw new GitCommandError({
      args,
      result: { ...result, stderr: why },
      failure: 'not-started',
      ...context,
    });
  }
  const ok = [0, ...(options.okExitCodes ?? [])];
  if (!ok.includes(result.exitCode)) throw new GitCommandError({ args, result, ...context });
  return result;
}

/** stdout of a git command, trimmed. */
export const gitLine = async (
  cwd: string,
  args: readonly string[],
  env?: Record<string, string>,
): Promise<string> => (await runGit(cwd, args, env === undefined ? {} : { env })).stdout.trim();

/**
 * A commit subject from a prompt: its first line, at most 60 characters, with control characters
 * (a NUL cannot go into a git argument or message at all) turned into spaces.
 */
export const commitSubject = (prompt: string): string => {
  // eslint-disable-next-line no-control-regex
  const firstLine = (prompt.split('\n')[0] ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return firstLine.length > 60 ? `${firstLine.slice(0, 57)}...` : firstLine;
};

/** Splits NUL-separated git output. */
export const splitZ = (text: string): string[] => text.split('\0').filter((part) => part.length > 0);

/** `git --version` → "2.39.5", or null when git is missing. */
export async function gitVersion(): Promise<string | null> {
  try {
    const line = await gitLine(process.cwd(), ['--version']);
    return /(\d+\.\d+(?:\.\d+)?)/.exec(line)?.[1] ?? null;
  } catch {
    return null;
  }
}

export const versionAtLeast = (version: string | null, major: number, minor: number): boolean => {
  if (version === null) return false;
  const [maj = 0, min = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return maj > major || (maj === major && min >= minor);
};
