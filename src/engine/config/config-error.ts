/** A problem with hydra.toml or with a flag that carries config (exit code 2). Dependency-free. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly kind = 'InvalidConfig' as const;
  /** One line per problem. */
  readonly problems: string[];

  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.problems = problems;
  }
}
