/**
 * `[container]`, `runner` and `--runner` in the config: parsed, resolved into each agent's plan and
 * the race's container settings, refused without an image, and ignored in a file not trusted.
 */
import { describe, expect, it } from 'vitest';
import { buildRaceOptions } from '../../../../src/engine/config/index.js';
import { parseConfigText } from '../../../../src/engine/config/parse.js';
import { withoutExecutingKeys } from '../../../../src/engine/config/trust-filter.js';

const base = { repoPath: '/tmp/repo', prompt: 'p' };

describe('the container config', () => {
  it('resolves [race] runner, an agent table and --runner into the plans, and [container] with its defaults', () => {
    const config = parseConfigText(
      [
        '[race]',
        'agents = ["claude", "codex"]',
        'runner = "container"',
        '[agents.codex]',
        'runner = "local"',
        '[container]',
        'image = "agents:1"',
        'hosts = ["unix:///var/run/docker.sock", "tcp://10.0.0.5:2376"]',
        'max_agents = 3',
      ].join('\n'),
      'hydra.toml',
    );

    const options = buildRaceOptions(config, {}, base);
    const flagged = buildRaceOptions(config, { runner: 'container' }, base);

    expect(options.agents.map((plan) => plan.runner)).toEqual(['container', undefined]);
    expect(flagged.agents.map((plan) => plan.runner)).toEqual(['container', 'container']);
    expect(options.container).toEqual({
      image: 'agents:1',
      hosts: ['unix:///var/run/docker.sock', 'tcp://10.0.0.5:2376'],
      maxAgents: 3,
      network: 'bridge',
      devcontainer: false,
    });
  });

  it('refuses a container runner with no image, saying which key to set', () => {
    const config = parseConfigText('[race]\nagents = ["claude"]\nrunner = "container"\n', 'hydra.toml');

    expect(() => buildRaceOptions(config, {}, base)).toThrow(/\[container\] image/);
  });

  it('names the problem with a host that is not an engine address, and a runner that does not exist', () => {
    expect(() => parseConfigText('[container]\nhosts = ["buildbox"]\n', 'hydra.toml')).toThrow(
      /container\.hosts\[0\] must be an engine address/,
    );
    expect(() => parseConfigText('[race]\nrunner = "k8s"\n', 'hydra.toml')).toThrow(
      /race\.runner must be "local"/,
    );
    expect(() => parseConfigText('[container]\nimag = "x"\n', 'hydra.toml')).toThrow(/did you mean "image"/);
  });

  it("ignores runner and [container] in a repository's file until it is trusted", () => {
    const config = parseConfigText(
      '[race]\nrunner = "container"\n[agents.claude]\nrunner = "container"\n[container]\nimage = "x"\n',
      'hydra.toml',
    );

    const { config: kept, ignored } = withoutExecutingKeys(config);

    expect(ignored).toEqual(expect.arrayContaining(['race.runner', 'agents.claude.runner', 'container']));
    expect(kept.race?.runner).toBeUndefined();
    expect(kept.container).toBeUndefined();
  });
});
