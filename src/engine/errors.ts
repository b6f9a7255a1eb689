import type { ErrorInfo, ErrorKind } from '../adapters/events.js';

/**
 * A refusal or failure of the engine itself (repository problems, merge refusals, missing runs).
 * `info` is what a UI shows: what is wrong and how to fix it.
 */
export class EngineError extends Error {
  override readonly name = 'EngineError';
  readonly info: ErrorInfo;
  /** Files involved (conflicts, overlapping uncommitted changes), when any. */
  readonly files: string[];

  constructor(
    kind: ErrorKind,
    message: string,
    hint: string,
    options: { files?: string[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.info = { kind, message, hint };
    this.files = options.files ?? [];
  }
}

export const isEngineError = (value: unknown): value is EngineError => value instanceof EngineError;

/** Turns anything thrown into an ErrorInfo for snapshots and summaries. */
export const toErrorInfo = (error: unknown, fallbackHint = 'See the message above.'): ErrorInfo => {
  if (isEngineError(error)) return error.info;
  if (
    error !== null &&
    typeof error === 'object' &&
    'toInfo' in error &&
    typeof error.toInfo === 'function'
  ) {
    return (error as { toInfo(): ErrorInfo }).toInfo();
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'AgentFailed', message, hint: fallbackHint };
};

/** Lists at most `max` items, then says how many more. */
export const listSome = (items: readonly string[], max = 10): string => {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
};
