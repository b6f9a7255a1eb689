/**
 * `[race] check_pass_env` (issue 35): the credentials of the user's environment the checks get.
 * Parsed into the race's options, refused with the key's message for a value that names no
 * variable, and ignored in a repository's file until it is trusted (an executing key).
 */
import { describe, expect, it } from 'vitest';
import { buildRaceOptions } from '../../../../src/engine/config/index.js';
import { parseConfigText } from '../../../../src/engine/config/parse.js';
import { withoutExecutingKeys } from '../../../../src/engine/config/trust-filter.js';

const base = { repoPath: '/tmp/repo', prompt: 'p' };
const parse = (text: string) => parseConfigText(text, 'hydra.toml');

describe('[race] check_pass_env', () => {
  it('gives the race the names and families it lists; none without it', () => {
    const config = parse('[race]\ncheck_pass_env = ["NPM_TOKEN", "AWS_*"]\n');
    expect(buildRaceOptions(config, {}, base).checkPassEnv).toEqual(['NPM_TOKEN', 'AWS_*']);
    expect(buildRaceOptions(parse(''), {}, base).checkPassEnv).toBeUndefined();
  });

  it.each([
    ['"NPM_TOKEN"', 'a string, not a list'],
    ['["NPM TOKEN"]', 'a space'],
    ['["*"]', 'every variable'],
    ['["$AWS_PROFILE"]', 'a shell reference'],
    ['["A*B"]', 'a star inside'],
    ['[1]', 'a number'],
  ])('refuses %s (%s), naming the key and an example', (value) => {
    expect(() => parse(`[race]\ncheck_pass_env = ${value}\n`)).toThrow(
      /race\.check_pass_env(\[0\])? must be (a list of the environment variables|the name of an environment variable) .*check_pass_env = \["AWS_PROFILE", "NPM_TOKEN"/,
    );
  });

  it("is ignored in a repository's file until it is trusted", () => {
    const filtered = withoutExecutingKeys(parse('[race]\ncheck_pass_env = ["AWS_SECRET_ACCESS_KEY"]\n'));
    expect(filtered.ignored).toEqual(['race.check_pass_env']);
    expect(filtered.config.race?.check_pass_env).toBeUndefined();
  });
});
