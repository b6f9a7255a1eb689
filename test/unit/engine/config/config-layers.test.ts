/**
 * The declared trust list covers the whole schema, an untrusted file may narrow but not widen the
 * race, and a repository's file layers over the user's key by key without loosening the user's
 * checks, budgets or allowed paths (issue 21, cases 12 and 13).
 */
import { describe, expect, it } from 'vitest';
import { layerConfigs } from '../../../../src/engine/config/layer.js';
import { parseConfigText } from '../../../../src/engine/config/parse.js';
import { configSchema, knownKeys } from '../../../../src/engine/config/schema.js';
import {
  KEYS_ANY_FILE_SETS,
  TRUSTED_ONLY_KEYS,
  withoutExecutingKeys,
} from '../../../../src/engine/config/trust-filter.js';

const parse = (text: string) => parseConfigText(text, 'hydra.toml');
const WHERE = { user: '~/.config/hydra/hydra.toml', repo: 'hydra.toml' };

describe('the declared lists of keys', () => {
  it('classify every key of the schema, so a new table ([sandbox], [setup]) must be put in one', () => {
    const keys = knownKeys(configSchema());
    const classified = new Set([...TRUSTED_ONLY_KEYS.map((key) => key.path), ...KEYS_ANY_FILE_SETS]);
    const paths = [
      ...keys.root.filter((key) => key !== 'race' && key !== 'agents' && key !== 'setup'),
      ...keys.race.map((key) => `race.${key}`),
      ...keys.setup.map((key) => `setup.${key}`),
      ...keys.agent.map((key) => `agents.*.${key}`),
    ];
    expect(paths.filter((key) => !classified.has(key))).toEqual([]);
  });
});

describe('an untrusted repository file', () => {
  it('may narrow the race but not add a CLI or opt into experimental ones', () => {
    const narrowing = withoutExecutingKeys(
      parse('[race]\nagents = ["claude*2"]\nallow_experimental_adapters = false\n'),
    );
    expect(narrowing.ignored).toEqual([]);
    expect(narrowing.config.race).toEqual({ agents: ['claude*2'], allow_experimental_adapters: false });

    const widening = withoutExecutingKeys(
      parse(
        '[race]\nagents = ["claude", "gemini"]\nallow_experimental_adapters = true\n[agents.qwen]\nenabled = true\n[agents.codex]\nenabled = false\n',
      ),
    );
    expect(widening.ignored).toEqual([
      'race.allow_experimental_adapters',
      'race.agents',
      'agents.qwen.enabled',
    ]);
    expect(widening.config.agents?.codex).toEqual({ enabled: false });
  });

  it("may name a CLI the user's own config races", () => {
    const user = parse('[agents.gemini]\nenabled = true\n');
    expect(withoutExecutingKeys(parse('[race]\nagents = ["gemini"]\n'), user).ignored).toEqual([]);
  });
});

describe('layering a repository file over the user’s', () => {
  it('merges tables key by key: the user’s keys stay unless the repository sets them', () => {
    const { config, notes } = layerConfigs(
      parse('[race]\ntimeout_s = 60\n[agents.claude]\nmodel = "opus"\nenv = { A = "1" }\n'),
      parse('[race]\nidle_timeout_s = 30\n[agents.claude]\nenv = { B = "2" }\n'),
      WHERE,
    );
    expect(notes).toEqual([]);
    expect(config.race).toEqual({ timeout_s: 60, idle_timeout_s: 30 });
    expect(config.agents?.claude).toEqual({ model: 'opus', env: { A: '1', B: '2' } });
  });

  it('keeps the user’s checks as written, adds the repository’s, and says what it refused', () => {
    const { config, notes } = layerConfigs(
      parse(
        '[[checks]]\nname = "test"\nrun = "npm test"\ngate = true\n[[checks]]\nname = "lint"\nrun = "npm run lint"\n',
      ),
      parse(
        '[[checks]]\nname = "test"\nrun = "true"\n[[checks]]\nname = "lint"\nrun = "npm run lint"\ngate = true\n[[checks]]\nname = "types"\nrun = "tsc"\n[agents.claude]\n[[agents.claude.checks]]\nname = "test"\ngate = false\n',
      ),
      WHERE,
    );
    expect(config.checks).toEqual([
      { name: 'test', run: 'npm test', gate: true },
      { name: 'lint', run: 'npm run lint', gate: true },
      { name: 'types', run: 'tsc' },
    ]);
    expect(config.agents?.claude?.checks).toEqual([]);
    expect(notes).toEqual([
      'hydra.toml: [[checks]] "test" changes your check "test" from ~/.config/hydra/hydra.toml: yours runs as you wrote it (a repository may add checks, not change or drop yours)',
      'hydra.toml: [[agents.claude.checks]] "test" sets gate = false, but "test" is your gate in ~/.config/hydra/hydra.toml: it stays a gate (a repository may add checks, not change or drop yours)',
    ]);
  });

  it('takes the lower budget and keeps the user’s allowed paths', () => {
    const { config, notes } = layerConfigs(
      parse('[race]\nmax_cost_usd = 2\n[score]\nallowed_paths = ["src/**"]\n'),
      parse('[race]\nmax_cost_usd = 50\n[score]\ncost = 0\nallowed_paths = ["**"]\n'),
      WHERE,
    );
    expect(config.race?.max_cost_usd).toBe(2);
    expect(config.score).toEqual({ cost: 0, allowed_paths: ['src/**'] });
    expect(notes).toHaveLength(2);
    expect(
      layerConfigs(parse('[race]\nmax_cost_usd = 2\n'), parse('[race]\nmax_cost_usd = 1\n'), WHERE).config
        .race,
    ).toEqual({ max_cost_usd: 1 });
  });
});
