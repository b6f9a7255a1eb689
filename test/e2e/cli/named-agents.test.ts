/**
 * Named agents end to end through the real entry point: several agents over one fake Claude CLI
 * (different models, repeats), each on its own branch, each process with its own argv; the names in
 * --json, summary.json, show and merge; bad and duplicate names; records written before named agents.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  parseNdjson,
} from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;
let log: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
  log = path.join(sandbox.dir, 'argv.jsonl');
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5, logArgvTo: log },
    codex: { agent: 'codex', delayMs: 5, logArgvTo: log },
  });
});

afterEach(() => sandbox.cleanup());

const race = (args: string[]) =>
  hydra(['race', '--json', ...args, 'Add a hello.txt file'], {
    cwd: repo,
    env: sandbox.env,
    timeoutMs: 90_000,
  });

interface Call {
  argv: string[];
  cwd: string;
}
const calls = (): Call[] =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Call);
/** The agent runs (not the probes): each is a CLI asked for its stream output. */
const runs = (): Call[] =>
  calls().filter((call) => call.argv.includes('--output-format') || call.argv.includes('exec'));
const modelOf = (call: Call): string | undefined => call.argv[call.argv.indexOf('--model') + 1];

type Summary = {
  runId: string;
  agents: Array<{ agent: string; adapter: string; status: string; branch: string | null }>;
};
const summaryOf = (stdout: string): Summary => parseNdjson(stdout).at(-1) as unknown as Summary;

const branchesOf = (runId: string): string[] =>
  git(repo, ['branch', '--list', '--format=%(refname:short)', `hydra/${runId}/*`])
    .split('\n')
    .filter((line) => line !== '')
    .sort();

const OPUS_VS_SONNET =
  '[race]\nagents = ["opus", "sonnet"]\n\n' +
  '[agents.opus]\nadapter = "claude"\nmodel = "claude-opus-4-5"\n\n' +
  '[agents.sonnet]\nadapter = "claude"\nmodel = "claude-sonnet-4-5"\n';

describe('named agents over one adapter', () => {
  it('races two named agents over one Claude CLI: two branches, each process with its own --model, one probe', async () => {
    writeFileSync(path.join(repo, 'hydra.toml'), OPUS_VS_SONNET);
    const result = await race([]);
    expect(result.exitCode, result.stderr).toBe(0);

    const lines = parseNdjson(result.stdout);
    expect(lines[0]).toMatchObject({ type: 'race', agents: ['opus', 'sonnet'] });
    const summary = summaryOf(result.stdout);
    expect(summary.agents.map((agent) => [agent.agent, agent.adapter, agent.status])).toEqual([
      ['opus', 'claude', 'completed'],
      ['sonnet', 'claude', 'completed'],
    ]);
    expect(branchesOf(summary.runId)).toEqual([
      `hydra/${summary.runId}/opus`,
      `hydra/${summary.runId}/sonnet`,
    ]);

    // Each process ran in its own worktree with its own model.
    const byWorktree = new Map(runs().map((call) => [path.basename(call.cwd), modelOf(call)]));
    expect(Object.fromEntries(byWorktree)).toEqual({ opus: 'claude-opus-4-5', sonnet: 'claude-sonnet-4-5' });

    // The shared binary was probed once: no probe command ran twice.
    const probes = calls()
      .filter((call) => !runs().includes(call))
      .map((call) => call.argv.join(' '));
    expect(probes.length).toBeGreaterThan(0);
    expect(new Set(probes).size).toBe(probes.length);

    // Every event says its agent's name and its CLI.
    const events = lines.filter((line) => line.type === 'agent_event');
    expect(new Set(events.map((line) => `${String(line.agent)}/${String(line.adapter)}`))).toEqual(
      new Set(['opus/claude', 'sonnet/claude']),
    );

    // The run record says the same, and show and merge take the names.
    const record = JSON.parse(
      readFileSync(path.join(repo, '.hydra', 'runs', summary.runId, 'summary.json'), 'utf8'),
    ) as Summary;
    expect(record.agents.map((agent) => [agent.agent, agent.adapter])).toEqual([
      ['opus', 'claude'],
      ['sonnet', 'claude'],
    ]);
    const shown = await hydra(['show', summary.runId], { cwd: repo, env: sandbox.env });
    expect(shown.stdout).toContain('opus (claude)');
    expect(shown.stdout).toContain('sonnet (claude)');
    const merged = await hydra(['merge', summary.runId, 'sonnet'], { cwd: repo, env: sandbox.env });
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('sonnet');
  });

  it('names <adapter>:<model> agents <adapter>-<model> and passes each its model', async () => {
    const result = await race(['--agents', 'claude:opus,claude:sonnet']);
    expect(result.exitCode, result.stderr).toBe(0);
    const summary = summaryOf(result.stdout);
    expect(summary.agents.map((agent) => agent.agent)).toEqual(['claude-opus', 'claude-sonnet']);
    const byWorktree = Object.fromEntries(runs().map((call) => [path.basename(call.cwd), modelOf(call)]));
    expect(byWorktree).toEqual({ 'claude-opus': 'opus', 'claude-sonnet': 'sonnet' });
  });

  it('--repeat 3 races three copies, each on its own branch', async () => {
    const result = await race(['--agents', 'claude', '--repeat', '3']);
    expect(result.exitCode, result.stderr).toBe(0);
    const summary = summaryOf(result.stdout);
    expect(summary.agents.map((agent) => [agent.agent, agent.adapter, agent.status])).toEqual([
      ['claude-1', 'claude', 'completed'],
      ['claude-2', 'claude', 'completed'],
      ['claude-3', 'claude', 'completed'],
    ]);
    expect(branchesOf(summary.runId)).toEqual(
      ['claude-1', 'claude-2', 'claude-3'].map((name) => `hydra/${summary.runId}/${name}`),
    );
    expect(
      runs()
        .map((call) => path.basename(call.cwd))
        .sort(),
    ).toEqual(['claude-1', 'claude-2', 'claude-3']);
  });

  it('repeats one entry with <name>*<n> beside others, and --model <name>= sets each copy', async () => {
    const result = await race(['--agents', 'claude*2,codex', '--model', 'claude=opus']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(summaryOf(result.stdout).agents.map((agent) => [agent.agent, agent.adapter])).toEqual([
      ['claude-1', 'claude'],
      ['claude-2', 'claude'],
      ['codex', 'codex'],
    ]);
    const claudeRuns = runs().filter((call) => path.basename(call.cwd).startsWith('claude-'));
    expect(claudeRuns.map(modelOf)).toEqual(['opus', 'opus']);
  });
});

describe('agent names that cannot be', () => {
  it('a bad name in hydra.toml is a config error naming the key', async () => {
    writeFileSync(path.join(repo, 'hydra.toml'), '[agents.Opus]\nadapter = "claude"\n');
    const result = await race([]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('agents.Opus: "Opus" is not a valid agent name');
    expect(result.stdout).toBe('');
  });

  it('an unknown adapter is a config error naming the key, with a did-you-mean', async () => {
    writeFileSync(path.join(repo, 'hydra.toml'), '[agents.opus]\nadapter = "cluade"\n');
    const result = await race([]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'agents.opus.adapter: "cluade" is not an adapter (did you mean "claude"?)',
    );
  });

  it('two entries that make one name are refused, naming both', async () => {
    writeFileSync(path.join(repo, 'hydra.toml'), '[agents.claude-1]\nadapter = "claude"\n');
    const result = await race(['--agents', 'claude-1,claude*2']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      '--agents: "claude-1" and "claude*2" both make an agent named claude-1; every agent needs its own name',
    );
    const twice = await race(['--agents', 'claude,claude']);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain('"claude" is listed twice; to race it more than once write claude*2');
  });

  it('a configured name that shorthand also makes is refused, naming the key', async () => {
    writeFileSync(path.join(repo, 'hydra.toml'), '[agents.claude-opus]\nadapter = "claude"\n');
    const result = await race(['--agents', 'claude-opus,claude:opus']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('"claude-opus" and "claude:opus" both make an agent named claude-opus');
  });

  it('an unknown agent, a bad count and a bad --repeat say what is allowed', async () => {
    const unknown = await race(['--agents', 'opsu']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('--agents: unknown agent "opsu"');
    const count = await race(['--agents', 'claude*0']);
    expect(count.stderr).toContain('"claude*0": the count after * must be a whole number from 1 to 9');
    const repeat = await race(['--repeat', 'many']);
    expect(repeat.exitCode).toBe(2);
    expect(repeat.stderr).toContain('--repeat must be a whole number from 1 to 9 (got "many")');
  });
});

describe('run records from before named agents', () => {
  it('show and merge read a record whose agents have no adapter field', async () => {
    const result = await race(['--agents', 'claude,codex']);
    expect(result.exitCode, result.stderr).toBe(0);
    const { runId } = summaryOf(result.stdout);
    const dir = path.join(repo, '.hydra', 'runs', runId);
    // Rewrite the record the way hydra wrote it before: no `adapter` anywhere.
    for (const file of ['meta.json', 'summary.json']) {
      const data = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
        agents: Array<Record<string, unknown>>;
      };
      for (const agent of data.agents) delete agent['adapter'];
      writeFileSync(path.join(dir, file), JSON.stringify(data));
    }
    expect(readFileSync(path.join(dir, 'meta.json'), 'utf8')).not.toContain('"adapter":');

    const shown = await hydra(['show', runId], { cwd: repo, env: sandbox.env });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain('damaged');
    expect(shown.stdout).toMatch(/^claude {2}/m);
    const runsList = await hydra(['runs'], { cwd: repo, env: sandbox.env });
    expect(runsList.stdout).not.toContain('damaged');
    // An adapter's alias still names the agent named after it.
    const merged = await hydra(['merge', runId, 'Claude'], { cwd: repo, env: sandbox.env });
    expect(merged.exitCode, merged.stderr).toBe(0);
    const cleaned = await hydra(['clean'], { cwd: repo, env: sandbox.env });
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
  });
});
