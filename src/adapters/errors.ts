import type { ErrorInfo, ErrorKind } from './events.js';

export interface AdapterErrorOptions {
  kind: ErrorKind;
  adapterId: string;
  message: string;
  hint: string;
  /** The command tried, as an argument array (file first). */
  command?: readonly string[];
  /** The last part of the process's stderr, when there was one. */
  stderrExcerpt?: string;
  cause?: unknown;
}

/**
 * The one error class for everything that goes wrong with an agent CLI: its `kind` comes from the
 * taxonomy, and it always says which adapter, what was tried, what the CLI said, and what to do.
 */
export class AdapterError extends Error {
  override readonly name = 'AdapterError';
  readonly kind: ErrorKind;
  readonly adapterId: string;
  readonly hint: string;
  readonly command: readonly string[];
  readonly stderrExcerpt: string;

  constructor(options: AdapterErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = options.kind;
    this.adapterId = options.adapterId;
    this.hint = options.hint;
    this.command = options.command ?? [];
    this.stderrExcerpt = options.stderrExcerpt ?? '';
  }

  toInfo(): ErrorInfo {
    return { kind: this.kind, message: this.message, hint: this.hint };
  }
}

export const isAdapterError = (value: unknown): value is AdapterError => value instanceof AdapterError;

/** Keeps the last `maxChars` characters of a text, on a line boundary where possible. */
export const tail = (text: string, maxChars = 2000): string => {
  if (text.length <= maxChars) return text;
  const cut = text.slice(text.length - maxChars);
  const newline = cut.indexOf('\n');
  return newline >= 0 && newline < cut.length - 1 ? cut.slice(newline + 1) : cut;
};
