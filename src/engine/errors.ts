import { HydraError } from '../core/hydra-error.js';
import type { HydraErrorOptions } from '../core/hydra-error.js';

export { toErrorInfo } from '../core/hydra-error.js';

/**
 * A refusal or failure of the engine itself (repository problems, merge refusals, missing runs):
 * a HydraError that also names the files involved.
 */
export class EngineError extends HydraError {
  override readonly name = 'EngineError';
  /** Files involved (conflicts, overlapping uncommitted changes), when any. */
  readonly files: string[];

  constructor(options: HydraErrorOptions & { files?: string[] }) {
    const { files, ...rest } = options;
    super(rest);
    this.files = files ?? [];
  }
}

/** Lists at most `max` items, then says how many more. */
export const listSome = (items: readonly string[], max = 10): string => {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
};
