/** hydra.toml: schema, messages, precedence, and the example file (parsed so it never rots). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexAdapter } from '../../../src/adapters/codex.js';
import { adapterIds, adapterOf, registerAdapter } from '../../../src/adapters/registry.js';
import { ConfigError } from '../../../src/engine/config/config-error.js';
import { locateConfig } from '../../../src/engine/config/locate.js';
import { parseConfigText } from '../../../src/engine/config/parse.js';
import { buildRaceOptions, resolveRace } from '../../../src/engine/config/resolve.js';
import type { Sandbox } from '../../support/cli-helpers.js';
import { createRepo, createSandbox, hydra, ROOT } from '../../support/cli-helpers.js';

const problemsOf = (text: string): readonly string[] => {
  try {
    parseConfigText(text, 'hydra.toml');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('config schema and messages', () => {
  it('names the file, the key path, what is allowed and what it got', () => {
    expect(problemsOf('[agents.codex]\nidle_timeout_s = "soon"\n')).toEqual([
      'hydra.toml: agents.codex.idle_timeout_s must be a positive number of seconds (got "soon")',
    ]);
  });

  it('rejects unknown keys with a did-you-mean and the allowed keys', () => {
    const [problem] = problemsOf('[race]\nidle_timout_s = 5\n');
    expect(problem).toContain('unknown key race.idle_timout_s (did you mean "idle_timeout_s"?)');
    expect(problem).toContain(
      'allowed here: agents, timeout_s, idle_timeout_s, keep_worktrees, allow_experimental_adapters',
    );
  });

  it('rejects unknown top-level tables, and agent tables that name no adapter', () => {
    expect(problemsOf('[raec]\n')[0]).toContain('unknown key raec (did you mean "race"?)');
    expect(problemsOf('[agents.aider]\nenabled = true\n')).toEqual([
      `hydra.toml: agents.aider: "aider" is not an adapter; say which CLI it runs with adapter = "<id>" (one of ${adapterIds().join(', ')})`,
    ]);
    expect(problemsOf('[agents.cladue]\nmodel = "opus"\n')[0]).toContain('(did you mean "claude"?)');
  });

  it('reports TOML syntax errors with line and column', () => {
    const [problem] = problemsOf('[race]\ntimeout_s = 10\nkeep_worktrees = tru\n');
    expect(problem).toMatch(/^hydra\.toml:3:\d+: invalid TOML: /);
  });

  it('checks types of lists, tables and prices, quoting model names with dots', () => {
    expect(problemsOf('[race]\nagents = ["claude", "aider"]\n')).toEqual([
      `hydra.toml: race.agents: unknown agent "aider"; name an adapter (${adapterIds().join(', ')}), a [agents.<name>] table of the config, or <adapter>:<model>`,
    ]);
    expect(problemsOf('[agents.claude]\nenv = { A = 1 }\n')).toEqual([
      'hydra.toml: agents.claude.env.A must be a string (got 1)',
    ]);
    expect(problemsOf('[prices."gpt-5.5"]\ninput_per_mtok = 1\n')).toEqual([
      'hydra.toml: prices."gpt-5.5".output_per_mtok is required: it must be a number of USD per million tokens, 0 or more',
    ]);
    expect(problemsOf('[race]\nkeep_worktrees = "yes"\n')).toEqual([
      'hydra.toml: race.keep_worktrees must be true or false (got "yes")',
    ]);
  });

  it('says what a table must look like when a scalar stands where a table belongs', () => {
    expect(problemsOf('race = 3\n')).toEqual([
      'hydra.toml: race must be a table of settings: [race] followed by key = value lines (got 3)',
    ]);
    expect(problemsOf('[agents]\nclaude = "yes"\n')).toEqual([
      'hydra.toml: agents.claude must be a table of settings: [agents.<name>] followed by key = value lines (got "yes")',
    ]);
    expect(problemsOf('agents = 5\n')).toEqual([
      'hydra.toml: agents must hold one table per agent: [agents.<name>] followed by key = value lines (got 5)',
    ]);
    expect(problemsOf('[prices]\nx = 3\n')).toEqual([
      'hydra.toml: prices.x must be a table: [prices."<model>"] with input_per_mtok and output_per_mtok (got 3)',
    ]);
    expect(problemsOf('[race]\ntimeout_s = 5\nagents = 5\n').join('\n')).not.toContain('Invalid input');
  });

  it('takes its agent ids from the adapter registry, as it is when the file is read', () => {
    const text = '[race]\nagents = ["acme"]\n\n[agents.acme]\nbinary = "/opt/acme"\n';
    const unregister = registerAdapter({ ...codexAdapter, id: 'acme', aliases: [], binaries: ['acme'] });
    try {
      expect(parseConfigText(text, 'hydra.toml').agents?.['acme']).toEqual({ binary: '/opt/acme' });
    } finally {
      unregister();
    }
    expect(problemsOf(text)).toEqual([
      `hydra.toml: agents.acme: "acme" is not an adapter; say which CLI it runs with adapter = "<id>" (one of ${IDS})`,
    ]);
  });
});

/** The registered ids as the config messages list them. */
const IDS = adapterIds().join(', ');

describe('hydra.toml.example', () => {
  const example = readFileSync(path.join(ROOT, 'hydra.toml.example'), 'utf8');

  it('parses through the schema as shipped', () => {
    expect(() => parseConfigText(example, 'hydra.toml.example')).not.toThrow();
  });

  it('parses with every commented-out key and table enabled', () => {
    const uncommented = example
      .split('\n')
      .map((line) => (/^# (\[\[?[a-z]|[a-z_]+ = )/.test(line) ? line.slice(2) : line))
      .join('\n');
    expect(uncommented).not.toBe(example);
    const config = parseConfigText(uncommented, 'hydra.toml.example');
    expect(config.race?.agents).toEqual(['claude', 'codex']);
    expect(config.prices?.['gpt-5.5']?.input_per_mtok).toBe(1.25);
    expect(config.agents?.cursor?.idle_timeout_s).toBe(120);
    expect(config.agents?.['opus']).toEqual({ adapter: 'claude', model: 'opus' });
    expect(config.checks).toEqual([{ name: 'test', run: 'npm test', timeout_s: 600, gate: true }]);
    expect(config.agents?.['py']?.checks).toEqual([
      { name: 'test', run: 'pytest -q' },
      { name: 'types', run: 'mypy .', gate: true },
    ]);
    expect(config.score?.allowed_paths).toEqual(['src/**', 'test/**']);
    expect(config.race?.max_cost_usd).toBe(5);
    expect(config.race?.check_pass_env).toEqual(['AWS_PROFILE', 'NPM_TOKEN']);
  });

  it('documents every key of the schema', () => {
    const keys = [
      'timeout_s',
      'idle_timeout_s',
      'keep_worktrees',
      'allow_experimental_adapters',
      'agents',
      'adapter',
      'enabled',
      'binary',
      'model',
      'extra_args',
      'env',
      'input_per_mtok',
      'output_per_mtok',
      'cache_read_per_mtok',
      'cache_write_per_mtok',
      'max_cost_usd',
      'check_concurrency',
      'check_pass_env',
      'worktree_pool',
      'name',
      'run',
      'gate',
      'checks',
      'tests',
      'diff',
      'scope',
      'duration',
      'cost',
      'allowed_paths',
      'runner',
      'copy',
      'share',
      'image',
      'hosts',
      'max_agents',
      'network',
      'devcontainer',
    ];
    for (const key of keys) expect(example, key).toMatch(new RegExp(`^(# )?${key} = `, 'm'));
  });
});

describe('merging config and flags', () => {
  it('uses the defaults with no file and no flags: tier-1 agents only', () => {
    const race = resolveRace({}, {});
    expect(race.agents.map((plan) => plan.adapterId)).toEqual(['claude', 'codex']);
    expect(race.timeoutMs).toBe(1_800_000);
    expect(race.agents[0]?.idleTimeoutMs).toBe(300_000);
    expect(race.allowExperimental).toBe(false);
  });

  it('never turns a tiny positive limit into 0 (which means no limit)', () => {
    const race = resolveRace({}, { idleTimeoutS: 0.0001, timeoutS: 0.0001 });
    expect(race.agents[0]?.idleTimeoutMs).toBe(1);
    expect(race.timeoutMs).toBe(1);
    expect(resolveRace({}, { timeoutS: 0 }).timeoutMs).toBe(0);
  });

  it('lets flags override the file', () => {
    const config = parseConfigText(
      '[race]\nagents = ["codex"]\nidle_timeout_s = 50\ntimeout_s = 10\nkeep_worktrees = false\n[agents.codex]\nmodel = "a"\nidle_timeout_s = 20\n',
      'hydra.toml',
    );
    const fromFile = resolveRace(config, {});
    expect(fromFile.agents.map((plan) => [plan.adapterId, plan.model, plan.idleTimeoutMs])).toEqual([
      ['codex', 'a', 20_000],
    ]);
    const flagged = resolveRace(config, {
      agents: ['claude', 'codex'],
      models: { codex: 'b' },
      idleTimeoutS: 7,
      timeoutS: 0,
      keepWorktrees: true,
    });
    expect(flagged.agents.map((plan) => [plan.adapterId, plan.model ?? null, plan.idleTimeoutMs])).toEqual([
      ['claude', null, 7000],
      ['codex', 'b', 7000],
    ]);
    expect(flagged.timeoutMs).toBe(0);
    expect(flagged.keepWorktrees).toBe(true);
  });

  it('leaves disabled agents out of the default set and adds experimental ones when allowed', () => {
    const config = parseConfigText(
      '[race]\nallow_experimental_adapters = true\n[agents.codex]\nenabled = false\n',
      'hydra.toml',
    );
    expect(resolveRace(config, {}).agents.map((plan) => plan.adapterId)).toEqual(
      adapterIds().filter((id) => id !== 'codex' && adapterOf(id).inDefaultRace !== false),
    );
  });

  it('races gemini and qwen (tier 1, outside the default race) when named or enabled in their table', () => {
    const plain = parseConfigText('', 'hydra.toml');
    expect(resolveRace(plain, {}).agents.map((plan) => plan.adapterId)).toEqual(['claude', 'codex']);
    expect(resolveRace(plain, { agents: ['gemini', 'qwen'] }).agents.map((plan) => plan.adapterId)).toEqual([
      'gemini',
      'qwen',
    ]);
    const enabled = parseConfigText('[agents.gemini]\nenabled = true\n', 'hydra.toml');
    expect(resolveRace(enabled, {}).agents.map((plan) => plan.adapterId)).toEqual([
      'claude',
      'codex',
      'gemini',
    ]);
  });

  it('carries binary, extra_args, env and prices into the race options', () => {
    const config = parseConfigText(
      '[agents.claude]\nbinary = "/opt/claude"\nextra_args = ["--max-turns", "3"]\nenv = { IS_SANDBOX = "1" }\n[prices.m1]\ninput_per_mtok = 1\noutput_per_mtok = 2\ncache_read_per_mtok = 0.5\n',
      'hydra.toml',
    );
    const options = buildRaceOptions(config, { agents: ['claude'] }, { repoPath: '/r', prompt: 'p' });
    expect(options.agents[0]).toMatchObject({
      binary: '/opt/claude',
      extraArgs: ['--max-turns', '3'],
      env: { IS_SANDBOX: '1' },
    });
    expect(options.prices).toEqual({ m1: { inputPerMTok: 1, outputPerMTok: 2, cacheReadPerMTok: 0.5 } });
  });
});

describe('finding the config file', () => {
  let sandbox: Sandbox;
  let repo: string;

  beforeAll(async () => {
    sandbox = createSandbox();
    repo = await createRepo(sandbox.dir);
  });

  afterAll(() => sandbox.cleanup());

  it('prefers the repository root, then XDG_CONFIG_HOME', () => {
    const userFile = path.join(sandbox.env.XDG_CONFIG_HOME ?? '', 'hydra', 'hydra.toml');
    mkdirSync(path.dirname(userFile), { recursive: true });
    writeFileSync(userFile, '');
    mkdirSync(path.join(repo, 'sub'), { recursive: true });
    expect(locateConfig({ cwd: path.join(repo, 'sub'), env: sandbox.env })).toBe(userFile);
    writeFileSync(path.join(repo, 'hydra.toml'), '');
    expect(locateConfig({ cwd: path.join(repo, 'sub'), env: sandbox.env })).toBe(
      path.join(repo, 'hydra.toml'),
    );
  });

  it('hydra race with a bad value in hydra.toml exits 2 naming file, key and value', async () => {
    writeFileSync(path.join(repo, 'hydra.toml'), '[agents.codex]\nidle_timeout_s = "soon"\n');
    const result = await hydra(['race', 'do it'], { cwd: repo, env: sandbox.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'hydra.toml: agents.codex.idle_timeout_s must be a positive number of seconds (got "soon")',
    );
    expect(result.stdout).toBe('');
  });

  it('hydra doctor with a TOML syntax error in the user config exits 2 with line and column', async () => {
    writeFileSync(path.join(repo, 'hydra.toml'), '[race\n');
    const result = await hydra(['doctor'], { cwd: repo, env: sandbox.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/hydra\.toml:1:\d+: invalid TOML/);
  });

  it('--config with a missing file exits 2', async () => {
    const result = await hydra(['race', '--config', 'missing.toml', 'do it'], {
      cwd: repo,
      env: sandbox.env,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('missing.toml: cannot read the config file (no such file)');
  });

  it('--config naming a directory exits 2 saying it is a directory', async () => {
    mkdirSync(path.join(repo, 'conf.d'), { recursive: true });
    const result = await hydra(['race', '--config', 'conf.d', 'do it'], { cwd: repo, env: sandbox.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'conf.d: cannot read the config file (it is a directory, not a file); check the --config path',
    );
  });
});

describe('named agents in the config and the flags', () => {
  const OPUS_SONNET =
    '[agents.claude]\nextra_args = ["--verbose"]\n[agents.opus]\nadapter = "claude"\nmodel = "opus"\n[agents.sonnet]\nadapter = "Claude"\nmodel = "sonnet"\nidle_timeout_s = 9\n';
  const plansOf = (toml: string, flags: Parameters<typeof resolveRace>[1]) =>
    resolveRace(parseConfigText(toml, 'hydra.toml'), flags).agents.map((plan) => ({
      name: plan.name,
      adapter: plan.adapterId,
      model: plan.model ?? null,
    }));

  it('gives each named agent its adapter and its own settings', () => {
    const race = resolveRace(parseConfigText(OPUS_SONNET, 'hydra.toml'), { agents: ['opus', 'sonnet'] });
    expect(race.agents).toEqual([
      expect.objectContaining({
        name: 'opus',
        adapterId: 'claude',
        model: 'opus',
        extraArgs: [],
        idleTimeoutMs: 300_000,
      }),
      expect.objectContaining({ name: 'sonnet', adapterId: 'claude', model: 'sonnet', idleTimeoutMs: 9_000 }),
    ]);
  });

  it('leaves named agents out of the default set unless enabled, and repeats the default set with --repeat', () => {
    expect(plansOf(OPUS_SONNET, {}).map((plan) => plan.name)).toEqual(['claude', 'codex']);
    const enabled = `${OPUS_SONNET}enabled = true\n`;
    expect(plansOf(enabled, {}).map((plan) => plan.name)).toEqual(['claude', 'codex', 'sonnet']);
    expect(plansOf('', { repeat: 2 }).map((plan) => plan.name)).toEqual([
      'claude-1',
      'claude-2',
      'codex-1',
      'codex-2',
    ]);
  });

  it('takes copies and <adapter>:<model> with the adapter table, and --model by name over by base', () => {
    expect(
      plansOf(OPUS_SONNET, {
        agents: ['claude*2', 'codex:gpt-5.1-codex'],
        models: { claude: 'haiku', 'claude-2': 'opus' },
      }),
    ).toEqual([
      { name: 'claude-1', adapter: 'claude', model: 'haiku' },
      { name: 'claude-2', adapter: 'claude', model: 'opus' },
      { name: 'codex-gpt-5-1-codex', adapter: 'codex', model: 'gpt-5.1-codex' },
    ]);
    const copies = resolveRace(parseConfigText(OPUS_SONNET, 'hydra.toml'), { agents: ['claude*2'] });
    expect(copies.agents.map((plan) => [plan.table, plan.extraArgs])).toEqual([
      ['claude', ['--verbose']],
      ['claude', ['--verbose']],
    ]);
  });

  it('reads race.agents entries the same way, and names the list in its errors', () => {
    expect(plansOf('[race]\nagents = ["claude*3"]\n', {}).map((plan) => plan.name)).toEqual([
      'claude-1',
      'claude-2',
      'claude-3',
    ]);
    expect(problemsOf('[race]\nagents = ["claude", "Claude"]\n')).toEqual([
      'hydra.toml: race.agents: "claude" and "Claude" both make an agent named claude; every agent needs its own name',
    ]);
  });

  it('refuses a --model for an agent that is not racing, unless it names an adapter', () => {
    expect(() => resolveRace({}, { agents: ['claude'], models: { opus: 'x' } })).toThrow(
      '--model opus=x: no agent of this race is named opus; race agents: claude',
    );
    expect(plansOf('', { agents: ['claude'], models: { codex: 'x' } })).toEqual([
      { name: 'claude', adapter: 'claude', model: null },
    ]);
  });

  it('refuses a table named after one adapter that runs another', () => {
    expect(problemsOf('[agents.codex]\nadapter = "claude"\n')).toEqual([
      'hydra.toml: agents.codex: "codex" is the codex adapter\'s name, so it cannot run claude; give this agent another name',
    ]);
  });
});
