/**
 * The tests' one `git`: runs git synchronously in `cwd` with a committer identity, the rest of the
 * environment inherited, and returns its stdout (throws, with git's stderr, when git fails). Both
 * spellings the suites grew up with are thin wrappers over it: `gitArgs(cwd, ...args)` returns the
 * output as git wrote it, `gitLines(cwd, args[])` without its final newline.
 */
import { execFileSync } from 'node:child_process';

export interface GitIdentity {
  name: string;
  email: string;
}

/** The identity of the CLI suites' commits (test/support/cli-helpers.ts). */
export const CLI_IDENTITY: GitIdentity = { name: 'test', email: 'test@example.invalid' };
/** The identity of the engine suites' commits (test/support/engine-helpers.ts). */
export const ENGINE_IDENTITY: GitIdentity = { name: 'Test', email: 't@example.com' };

export const identityEnv = (identity: GitIdentity): Record<string, string> => ({
  GIT_AUTHOR_NAME: identity.name,
  GIT_AUTHOR_EMAIL: identity.email,
  GIT_COMMITTER_NAME: identity.name,
  GIT_COMMITTER_EMAIL: identity.email,
});

/** git's stdout, as written. */
export function runGit(
  cwd: string,
  args: readonly string[],
  identity: GitIdentity = ENGINE_IDENTITY,
): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...identityEnv(identity) },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** `git(cwd, 'log', '--oneline')`: the output as git wrote it (the engine suites' spelling). */
export const gitArgs = (cwd: string, ...args: string[]): string => runGit(cwd, args, ENGINE_IDENTITY);

/** `git(cwd, ['log', '--oneline'])`: the output without its final newline (the CLI suites' spelling). */
export const gitLines = (cwd: string, args: readonly string[]): string =>
  stripFinalNewline(runGit(cwd, args, CLI_IDENTITY));

const stripFinalNewline = (text: string): string =>
  text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
