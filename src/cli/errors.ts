import type { ErrorKind } from '../core/events.js';
import { describeError, EXIT, HydraError } from '../core/hydra-error.js';
import type { HydraErrorOptions } from '../core/hydra-error.js';
import type { CliContext } from './context.js';
import { sanitize } from '../ui/index.js';

export { EXIT };

/**
 * What a command returns when its terminal went away (128 + SIGHUP): the entry then ends the
 * process by SIGHUP, as a hangup ends a program, instead of exiting normally (Node's normal exit
 * resets the terminal's modes, and aborts when the terminal is gone).
 */
export const TERMINAL_LOST = 129;

/** What a CLI error is made of: HydraError's options, its kind and exit code given by default. */
type CliErrorOptions = Omit<HydraErrorOptions, 'kind' | 'problems'> & { kind?: ErrorKind };

/**
 * Bad command-line usage: exit code 2 and kind `InvalidConfig`. The message says what is wrong;
 * "see `hydra <cmd> --help`" belongs in the hint (a test checks no message says it).
 */
export class UsageError extends HydraError {
  override readonly name = 'UsageError';

  constructor(options: CliErrorOptions) {
    super({ kind: 'InvalidConfig', exitCode: EXIT.usage, ...options });
  }
}

/**
 * The hint of a usage error: what to do (when there is more to say), then where the command's
 * options are listed: `see hydra race --help` (`hydra --help` for the empty command).
 */
export const seeHelp = (command: string, hint = ''): string => {
  const see = `see ${command === '' ? 'hydra --help' : `hydra ${command} --help`}`;
  return hint === '' ? see : `${hint}; ${see}`;
};

/** A command refused for a reason the user can fix (no repository, unknown run): exit code 1. */
export class CommandError extends HydraError {
  override readonly name = 'CommandError';

  constructor(options: CliErrorOptions) {
    super({ kind: 'Refused', exitCode: EXIT.failed, ...options });
  }
}

/**
 * Prints an error (or a summary's ErrorInfo) on stderr the one way hydra does: `hydra: <message>`
 * (a line per problem), then its hint. Returns the exit code it calls for.
 */
export function noteError(ctx: CliContext, error: unknown): number {
  const { err } = ctx;
  const label = err.red(err.bold('hydra:'));
  const described = describeError(error);
  // Messages can quote an agent's stderr, a CLI's output or a value from a repository's hydra.toml.
  for (const line of described.problems) ctx.note(`${label} ${sanitize(line)}`);
  noteHint(ctx, described.hint);
  return described.exitCode;
}

/** The hint line under a message (nothing when there is no hint). */
export function noteHint(ctx: CliContext, hint: string): void {
  if (hint !== '') ctx.note(ctx.err.dim(`  hint: ${sanitize(hint)}`));
}
