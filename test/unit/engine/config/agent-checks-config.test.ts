/** `[[agents.<name>.checks]]`: per-agent overrides of race-wide checks, and checks of one agent only. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/engine/config/config-error.js';
import { parseConfigText } from '../../../../src/engine/config/parse.js';
import { resolveRace } from '../../../../src/engine/config/resolve.js';

const problemsOf = (run: () => unknown): readonly string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

const parse = (text: string) => parseConfigText(text, 'hydra.toml');

const RACE_CHECKS =
  '[[checks]]\nname = "test"\nrun = "npm test"\ngate = true\n\n[[checks]]\nname = "lint"\nrun = "npm run lint"\n\n';

describe('per-agent checks', () => {
  it("replaces a race-wide check's run or timeout for that agent only, and adds the agent's own", () => {
    const config = parse(
      `${RACE_CHECKS}[agents.py]\nadapter = "claude"\n\n[[agents.py.checks]]\nname = "test"\nrun = "pytest -q"\n\n` +
        '[[agents.py.checks]]\nname = "lint"\ntimeout_s = 5\n\n[[agents.py.checks]]\nname = "types"\nrun = "mypy ."\ngate = true\n',
    );
    const race = resolveRace(config, { agents: ['py', 'codex'] });

    expect(race.checks).toEqual([
      { name: 'test', run: 'npm test', timeoutMs: 600_000, gate: true },
      { name: 'lint', run: 'npm run lint', timeoutMs: 600_000, gate: false },
    ]);
    expect(race.agents[0]?.checks).toEqual([
      { name: 'test', run: 'pytest -q', timeoutMs: 600_000, gate: true },
      { name: 'lint', run: 'npm run lint', timeoutMs: 5_000, gate: false },
      { name: 'types', run: 'mypy .', timeoutMs: 600_000, gate: true },
    ]);
    // The other agent has the race's checks.
    expect(race.agents[1]?.checks).toBeUndefined();
  });

  it('gives every copy of a repeated agent its checks, and keeps --check beside them', () => {
    const config = parse('[[agents.claude.checks]]\nname = "go"\nrun = "go test ./..."\n');
    const race = resolveRace(config, { agents: ['claude*2'], checks: ['npm test'] });
    for (const agent of race.agents)
      expect(agent.checks).toEqual([
        { name: 'test', run: 'npm test', timeoutMs: 600_000, gate: true },
        { name: 'go', run: 'go test ./...', timeoutMs: 600_000, gate: false },
      ]);
  });

  it('refuses gate = false on a race-wide gate, naming the key', () => {
    expect(
      problemsOf(() => parse(`${RACE_CHECKS}[[agents.claude.checks]]\nname = "test"\ngate = false\n`)),
    ).toEqual([
      'hydra.toml: agents.claude.checks[0].gate: test is a gate of the race ([[checks]]), and an agent cannot skip a gate the others must pass; remove gate = false (run and timeout_s may differ)',
    ]);
    // A --check is a gate too.
    const config = parse('[[agents.claude.checks]]\nname = "test"\nrun = "pytest"\ngate = false\n');
    expect(problemsOf(() => resolveRace(config, { agents: ['claude'], checks: ['npm test'] }))).toEqual([
      'hydra.toml: agents.claude.checks[0].gate: test is a gate of the race ([[checks]] or --check), and an agent cannot skip a gate the others must pass; remove gate = false (run and timeout_s may differ)',
    ]);
    // gate = false on a check that is not a gate, and gate = true anywhere, are fine.
    expect(
      problemsOf(() =>
        parse(
          `${RACE_CHECKS}[[agents.claude.checks]]\nname = "lint"\ngate = false\n[[agents.claude.checks]]\nname = "test"\ngate = true\n`,
        ),
      ),
    ).toEqual([]);
  });

  it('says what is wrong: a bad key, a new check without run, a name twice', () => {
    expect(
      problemsOf(() => parse('[[agents.claude.checks]]\nname = "t"\nrun = "x"\ncommand = "y"\n')),
    ).toEqual([
      'hydra.toml: unknown key agents.claude.checks[0].command; allowed here: name, run, timeout_s, gate',
    ]);
    expect(
      problemsOf(() => parse('[[agents.claude.checks]]\nname = "t"\nrun = "x"\ngates = true\n'))[0],
    ).toContain('unknown key agents.claude.checks[0].gates (did you mean "gate"?)');
    expect(problemsOf(() => parse('[[agents.claude.checks]]\nname = "types"\n'))).toEqual([
      "hydra.toml: agents.claude.checks[0].run is required: no race-wide check is named types, so this agent's own check needs its command",
    ]);
    expect(
      problemsOf(() =>
        parse(
          '[[agents.claude.checks]]\nname = "t"\nrun = "x"\n[[agents.claude.checks]]\nname = "t"\nrun = "y"\n',
        ),
      ),
    ).toEqual([
      'hydra.toml: agents.claude.checks[1].name: names t twice; each check of an agent needs its own name',
    ]);
    expect(problemsOf(() => parse('[agents.claude]\nchecks = "npm test"\n'))[0]).toContain(
      'agents.claude.checks must be a list of [[agents.<name>.checks]] tables',
    );
  });
});
