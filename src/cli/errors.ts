/** Exit codes, as documented in the README. */
export const EXIT = {
  ok: 0,
  /** The race or the command failed (no agent completed, merge refused, unknown run...). */
  failed: 1,
  /** Bad flags, arguments or config. */
  usage: 2,
  /** Interrupted by Ctrl-C (SIGINT) after a clean cancel. */
  interrupted: 130,
} as const;

/** Bad command-line usage: exit code 2, message and a hint (usually "see hydra <cmd> --help"). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly hint: string;

  constructor(message: string, hint = '') {
    super(message);
    this.hint = hint;
  }
}

/** A command that ran and failed for a reason the user can fix: exit code 1. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
  readonly hint: string;
  readonly exitCode: number;

  constructor(message: string, hint = '', exitCode: number = EXIT.failed) {
    super(message);
    this.hint = hint;
    this.exitCode = exitCode;
  }
}
