/**
 * Hydra's one error shape. Everything hydra throws on purpose is a HydraError: a `kind` from the
 * taxonomy, a message, a hint saying what to do, the exit code the CLI ends with, and the `cause`.
 * Subclasses add what their layer knows (AdapterError: the adapter, the command and its stderr;
 * EngineError: the files involved; ConfigError: one line per problem). Every printer (the CLI,
 * the dashboard, the headless notes) reads an error through `describeError`, so none drops a hint.
 * It lives in src/core, below every layer, because every layer may import it.
 */
import type { ErrorInfo, ErrorKind } from './events.js';

/** Exit codes, as documented in docs/commands.md. */
export const EXIT = {
  ok: 0,
  /** The race or the command failed (no agent completed, merge refused, unknown run...). */
  failed: 1,
  /** Bad flags, arguments or config. */
  usage: 2,
  /** Interrupted by Ctrl-C (SIGINT) after a clean cancel. */
  interrupted: 130,
} as const;

/** Usage and config problems end with 2, everything else with 1. */
const exitCodeOf = (kind: ErrorKind): number => (kind === 'InvalidConfig' ? EXIT.usage : EXIT.failed);

export interface HydraErrorOptions {
  kind: ErrorKind;
  message: string;
  /** What the user can do about it, as one sentence; '' when the message already says it. */
  hint?: string;
  /** The CLI's exit code when this error ends a command; by default from the kind. */
  exitCode?: number;
  /** Several problems found at once, one line each (the message joins them). */
  problems?: readonly string[];
  cause?: unknown;
}

export class HydraError extends Error {
  override readonly name: string = 'HydraError';
  readonly kind: ErrorKind;
  readonly hint: string;
  readonly exitCode: number;
  /** What to print, one line each: the problems when there are several, else the message. */
  readonly problems: readonly string[];

  constructor(options: HydraErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = options.kind;
    this.hint = options.hint ?? '';
    this.exitCode = options.exitCode ?? exitCodeOf(options.kind);
    this.problems =
      options.problems !== undefined && options.problems.length > 0 ? options.problems : [options.message];
  }

  /** The serializable part, as `failed` events, snapshots and summaries carry it. */
  toInfo(): ErrorInfo {
    return { kind: this.kind, message: this.message, hint: this.hint };
  }
}

const isHydraError = (value: unknown): value is HydraError => value instanceof HydraError;

/** What every printer shows of an error. */
export interface ErrorDescription {
  message: string;
  /** '' when there is nothing to add. */
  hint: string;
  exitCode: number;
  /** The lines to print before the hint (a config error lists every problem; else the message). */
  problems: readonly string[];
}

const isErrorInfo = (value: unknown): value is ErrorInfo =>
  value !== null &&
  typeof value === 'object' &&
  typeof (value as ErrorInfo).kind === 'string' &&
  typeof (value as ErrorInfo).message === 'string' &&
  typeof (value as ErrorInfo).hint === 'string';

/**
 * Reads anything thrown (or an ErrorInfo from a summary) the same way for every printer: a
 * HydraError says everything; anything else is an unexpected failure with its message and no hint.
 */
export const describeError = (error: unknown): ErrorDescription => {
  if (isHydraError(error)) {
    return { message: error.message, hint: error.hint, exitCode: error.exitCode, problems: error.problems };
  }
  if (isErrorInfo(error)) {
    const { kind, message, hint } = error;
    return { message, hint, exitCode: exitCodeOf(kind), problems: [message] };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message, hint: '', exitCode: EXIT.failed, problems: [message] };
};

/** One line for narrow places (the dashboard's status line): the message, then the hint. */
export const errorText = (error: unknown): string => {
  const { message, hint } = describeError(error);
  return hint === '' ? message : `${message} ${hint}`;
};

/**
 * Turns anything thrown into an ErrorInfo for snapshots and summaries; an error that is not a
 * HydraError counts as a failed agent run, with `fallbackHint`.
 */
export const toErrorInfo = (error: unknown, fallbackHint = 'See the message above.'): ErrorInfo => {
  if (isHydraError(error)) return error.toInfo();
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'AgentFailed', message, hint: fallbackHint };
};
