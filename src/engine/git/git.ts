/**
 * Running git. Worktree and branch management goes through simple-git; commands whose exit code
 * carries meaning (merge-tree, merge-base --is-ancestor) or that need a custom environment go
 * through `runGit` (execa, argument arrays, never a shell).
 */
import { execa } from 'execa';
import { simpleGit } from 'simple-git';
import type { SimpleGit, SimpleGitOptions } from 'simple-git';

/** hydra's own identity for the commits it makes on its branches (works with no git identity). */
export const HYDRA_IDENTITY: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'hydra',
  GIT_AUTHOR_EMAIL: 'hydra@localhost',
  GIT_COMMITTER_NAME: 'hydra',
  GIT_COMMITTER_EMAIL: 'hydra@localhost',
};

/** Stable, non-interactive, English output; never opens an editor or asks for a password. */
const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_EDITOR: 'true',
  GIT_MERGE_AUTOEDIT: 'no',
  LC_ALL: 'C',
};

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  constructor(
    readonly args: readonly string[],
    readonly result: GitResult,
  ) {
    super(
      `git ${args.join(' ')} failed (exit ${result.exitCode}): ${result.stderr.trim() || result.stdout.trim()}`,
    );
  }
}

export interface RunGitOptions {
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (e.g. 1 for merge-tree conflicts). */
  okExitCodes?: number[];
  input?: string;
}

export async function runGit(
  cwd: string,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<GitResult> {
  const subprocess = await execa('git', args, {
    cwd,
    env: { ...GIT_ENV, ...options.env },
    extendEnv: true,
    reject: false,
    stripFinalNewline: false,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    maxBuffer: 256 * 1024 * 1024,
  });
  const result: GitResult = {
    stdout: typeof subprocess.stdout === 'string' ? subprocess.stdout : '',
    stderr: typeof subprocess.stderr === 'string' ? subprocess.stderr : '',
    exitCode: subprocess.exitCode ?? -1,
  };
  if (subprocess.exitCode === undefined && subprocess.code === 'ENOENT') {
    throw new GitCommandError(args, { ...result, stderr: 'git is not installed or not on PATH' });
  }
  const ok = [0, ...(options.okExitCodes ?? [])];
  if (!ok.includes(result.exitCode)) throw new GitCommandError(args, result);
  return result;
}

/** stdout of a git command, trimmed. */
export const gitLine = async (
  cwd: string,
  args: readonly string[],
  env?: Record<string, string>,
): Promise<string> => (await runGit(cwd, args, env === undefined ? {} : { env })).stdout.trim();

/** A simple-git instance for a directory, non-interactive, English. */
export const gitAt = (cwd: string): SimpleGit =>
  simpleGit({ baseDir: cwd, maxConcurrentProcesses: 4, unsafe: TRUSTED_ENVIRONMENT }).env({
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
  });

/**
 * simple-git refuses to run when the environment sets an editor, pager, ssh command and the like,
 * a guard against untrusted input. hydra's arguments are its own and the environment is the
 * user's, so a user with GIT_EDITOR or GIT_SSH_COMMAND set must not be refused.
 */
const TRUSTED_ENVIRONMENT: SimpleGitOptions['unsafe'] = {
  allowUnsafeAlias: true,
  allowUnsafeAskPass: true,
  allowUnsafeConfigEnvCount: true,
  allowUnsafeConfigPaths: true,
  allowUnsafeCredentialHelper: true,
  allowUnsafeDiffExternal: true,
  allowUnsafeDiffTextConv: true,
  allowUnsafeEditor: true,
  allowUnsafeFilter: true,
  allowUnsafeFsMonitor: true,
  allowUnsafeGitProxy: true,
  allowUnsafeGpgProgram: true,
  allowUnsafeHooksPath: true,
  allowUnsafeMergeDriver: true,
  allowUnsafePack: true,
  allowUnsafePager: true,
  allowUnsafeProtocolOverride: true,
  allowUnsafeSshCommand: true,
  allowUnsafeTemplateDir: true,
} as SimpleGitOptions['unsafe'];

/** Splits NUL-separated git output. */
/**
 * A commit subject from a prompt: its first line, at most 60 characters, with control characters
 * (a NUL cannot go into a git argument or message at all) turned into spaces.
 */
export const commitSubject = (prompt: string): string => {
  // eslint-disable-next-line no-control-regex
  const firstLine = (prompt.split('\n')[0] ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return firstLine.length > 60 ? `${firstLine.slice(0, 57)}...` : firstLine;
};

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
