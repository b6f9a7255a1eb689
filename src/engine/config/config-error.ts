import { HydraError } from '../../core/hydra-error.js';

/**
 * A problem with hydra.toml or with a flag that carries config (exit code 2): one line per
 * problem, each naming the file or flag, the key and what is allowed.
 */
export class ConfigError extends HydraError {
  override readonly name = 'ConfigError';
  override readonly kind = 'InvalidConfig' as const;

  constructor(options: { problems: readonly string[]; message?: string; hint?: string; cause?: unknown }) {
    const { problems, message, ...rest } = options;
    super({ kind: 'InvalidConfig', message: message ?? problems.join('\n'), problems, ...rest });
  }
}
