import { HydraError } from '../core/hydra-error.js';
import type { HydraErrorOptions } from '../core/hydra-error.js';

export interface AdapterErrorOptions extends HydraErrorOptions {
  adapterId: string;
  hint: string;
  /** The command tried, as an argument array (file first). */
  command?: readonly string[];
  /** The last part of the process's stderr, when there was one. */
  stderrExcerpt?: string;
}

/**
 * Everything that goes wrong with an agent CLI: besides the kind, message and hint every
 * HydraError has, it says which adapter, what was tried and what the CLI said.
 */
export class AdapterError extends HydraError {
  override readonly name = 'AdapterError';
  readonly adapterId: string;
  readonly command: readonly string[];
  readonly stderrExcerpt: string;

  constructor(options: AdapterErrorOptions) {
    super(options);
    this.adapterId = options.adapterId;
    this.command = options.command ?? [];
    this.stderrExcerpt = options.stderrExcerpt ?? '';
  }
}

/** Keeps the last `maxChars` characters of a text, on a line boundary where possible. */
export const tail = (text: string, maxChars = 2000): string => {
  if (text.length <= maxChars) return text;
  const cut = text.slice(text.length - maxChars);
  const newline = cut.indexOf('\n');
  return newline >= 0 && newline < cut.length - 1 ? cut.slice(newline + 1) : cut;
};
