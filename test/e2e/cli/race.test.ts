/**
 * `hydra race` headless end to end through the real entry point, on temp repositories with fake
 * agent CLIs first on PATH; then merge, runs, show and clean on the run it made.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa, execaSync } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../support/cli-helpers.js';
import {
  createRepo,
  createSandbox,
  git,
  hydra,
  installFakes,
  MAIN,
  parseNdjson,
} from '../../support/cli-helpers.js';

let sandbox: Sandbox;
let repo: string;

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

const race = (args: string[], cwd = repo) =>
  hydra(['race', ...args], { cwd, env: sandbox.env, timeoutMs: 90_000 });

const fastFakes = (extra: { logArgvTo?: string } = {}) =>
  installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5, ...extra },
    codex: { agent: 'codex', delayMs: 5, ...extra },
  });

type Line = Record<string, unknown>;
const summaryOf = (lines: Line[]) =>
  lines.at(-1) as {
    type: string;
    runId: string;
    agents: Array<Record<string, unknown>>;
    error?: { kind: string; message: string; hint: string };
    merged?: unknown;
    mergeReason?: string;
    baseline?: unknown;
  };

/** A headless race of two agents that hang after two lines, as a live child process (wrapped: a
 * subprocess is thenable, so returning it from an async function would wait for it to end). */
const startHangingRace = async () => {
  await installFakes(sandbox.bin, {
    claude: { agent: 'claude', delayMs: 5, hangAfterLines: 2 },
    codex: { agent: 'codex', delayMs: 5, hangAfterLines: 2 },
  });
  const child = execa(process.execPath, [MAIN, 'race', '--json', 'Add a hello.txt file'], {
    cwd: repo,
    env: sandbox.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
  });
  return { child };
};

/** Processes whose command line mentions the sandbox (fake agents, their children). */
const strayProcesses = (): string[] =>
  execaSync('ps', ['-eo', 'pid,args'])
    .stdout.split('\n')
    .filter((line) => line.includes(sandbox.dir) && !line.includes('ps -eo'));

describe('hydra race --json', () => {
  it('prints only NDJSON: race first, agent events, summary last; exits 0', async () => {
    await fastFakes();
    const result = await race(['--json', 'Add a hello.txt file']);
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = parseNdjson(result.stdout);
    expect(lines.length).toBeGreaterThan(3);

    const [first] = lines;
    const head = git(repo, ['rev-parse', 'HEAD']);
    expect(first).toEqual({
      type: 'race',
      runId: expect.any(String),
      baseRef: head,
      agents: ['claude', 'codex'],
    });

    const middle = lines.slice(1, -1);
    expect(middle.every((line) => line.type === 'agent_event')).toBe(true);
    for (const line of middle) {
      expect(Object.keys(line).sort()).toEqual(['adapter', 'agent', 'event', 'type']);
      expect(['claude', 'codex']).toContain(line.agent);
      // Agents named after their CLI: the adapter is the name.
      expect(line.adapter).toBe(line.agent);
      expect(typeof (line.event as { kind?: unknown }).kind).toBe('string');
    }
    const kinds = new Set(middle.map((line) => (line.event as { kind: string }).kind));
    expect(kinds).toContain('tool_call');
    expect(kinds).toContain('completed');

    const summary = summaryOf(lines);
    expect(summary.type).toBe('summary');
    expect(summary.runId).toBe((first as { runId: string }).runId);
    expect(summary.agents.map((agent) => agent.agent).sort()).toEqual(['claude', 'codex']);
    // No --auto-merge: nothing merged, and the summary says so; no checks, so no baseline.
    expect(summary.merged).toBeNull();
    expect(summary.mergeReason).toContain('no merge was asked for');
    expect(summary.baseline).toBeUndefined();
    for (const agent of summary.agents) {
      expect(Object.keys(agent).sort()).toEqual([
        'adapter',
        'agent',
        'branch',
        'diff',
        'durationMs',
        'exitCode',
        'port',
        'sandbox',
        'score',
        'setup',
        'status',
        'usage',
        'worktree',
      ]);
      // HYDRA_SANDBOX=off in the tests' environment: it ran unsandboxed, and the summary says so.
      expect(agent.sandbox).toBeNull();
      expect(Object.keys(agent.score as object).sort()).toEqual(['gates', 'parts', 'total', 'verified']);
      expect(agent.status).toBe('completed');
      expect(Object.keys(agent.usage as object).sort()).toEqual(
        [
          'cacheReadTokens',
          'cacheWriteTokens',
          'costSource',
          'costUsd',
          'inputTokens',
          'outputTokens',
          'turns',
        ].sort(),
      );
      expect(Object.keys(agent.diff as object).sort()).toEqual(['deletions', 'filesChanged', 'insertions']);
      expect((agent.diff as { filesChanged: number }).filesChanged).toBeGreaterThan(0);
      expect(agent.branch).toBe(`hydra/${summary.runId}/${String(agent.agent)}`);
    }
    expect(result.stderr).toContain(`hydra merge ${summary.runId} `);
    expect(git(repo, ['status', '--porcelain'])).toBe('');
  });

  it('runs headless without --json when stdout is not a terminal', async () => {
    await fastFakes();
    const result = await race(['--agents', 'codex', 'Add a hello.txt file']);
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = parseNdjson(result.stdout);
    expect(lines[0]?.type).toBe('race');
    expect(lines.at(-1)?.type).toBe('summary');
  });

  it('delivers a prompt with a leading dash, quotes, $(...) and newlines intact', async () => {
    const log = path.join(sandbox.dir, 'argv.jsonl');
    await fastFakes({ logArgvTo: log });
    const prompt = `-v "fix" it's $(rm -rf /) \`x\`\nsecond line`;
    const result = await race(['--json', '--', prompt]);
    expect(result.exitCode, result.stderr).toBe(0);
    const calls = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { argv: string[]; stdin: string | null });
    const runs = calls.filter((call) => !call.argv.includes('--version') && !call.argv.includes('--help'));
    expect(runs).toHaveLength(2);
    for (const call of runs) {
      const delivered = call.argv.includes(prompt) || call.stdin === prompt;
      expect(delivered, JSON.stringify(call)).toBe(true);
    }
  });

  it('reads the prompt from --prompt-file - (stdin) and passes --model and config extra_args to the agent', async () => {
    const log = path.join(sandbox.dir, 'argv.jsonl');
    await fastFakes({ logArgvTo: log });
    writeFileSync(path.join(repo, 'hydra.toml'), '[agents.claude]\nextra_args = ["--max-turns", "3"]\n');
    // extra_args of a repository's hydra.toml apply once the user trusts the file.
    expect((await hydra(['trust'], { cwd: repo, env: sandbox.env })).exitCode).toBe(0);
    const result = await hydra(
      ['race', '--json', '--agents', 'claude', '--model', 'claude=opus', '--prompt-file', '-'],
      {
        cwd: repo,
        env: sandbox.env,
        input: 'Add a hello.txt file\n',
      },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const call = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { argv: string[]; stdin: string | null })
      .find((item) => item.argv.includes('--output-format'));
    expect(call?.argv.join(' ')).toContain('--model opus');
    expect(call?.argv.join(' ')).toContain('--max-turns 3');
    expect(call?.argv.includes('Add a hello.txt file\n') || call?.stdin === 'Add a hello.txt file\n').toBe(
      true,
    );
  });

  it('keeps worktrees with --keep-worktrees and reports their paths', async () => {
    await fastFakes();
    const result = await race(['--json', '--keep-worktrees', '--agents', 'codex', 'Add a hello.txt file']);
    expect(result.exitCode, result.stderr).toBe(0);
    const [codex] = summaryOf(parseNdjson(result.stdout)).agents;
    expect(typeof codex?.worktree).toBe('string');
    expect(existsSync(String(codex?.worktree))).toBe(true);
    expect(String(codex?.worktree).startsWith(sandbox.env.HYDRA_WORKTREE_ROOT ?? '')).toBe(true);
  });

  it('reports removed worktrees as null once the race is over', async () => {
    await fastFakes();
    const result = await race(['--json', '--agents', 'codex', 'Add a hello.txt file']);
    const [codex] = summaryOf(parseNdjson(result.stdout)).agents;
    expect(codex?.worktree).toBeNull();
    expect(codex?.branch).toMatch(/^hydra\//);
  });

  it('prints a visible warning with --unsafe', async () => {
    await fastFakes();
    const result = await race(['--json', '--unsafe', '--agents', 'codex', 'Add a hello.txt file']);
    expect(result.stderr).toContain('WARNING: --unsafe');
    expect(result.stdout).not.toContain('WARNING');
  });

  it('exits 1 when every agent fails, with each error in the summary', async () => {
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', delayMs: 5, crashAfterLines: 1 },
      codex: { agent: 'codex', delayMs: 5, crashAfterLines: 1 },
    });
    const result = await race(['--json', 'Add a hello.txt file']);
    expect(result.exitCode).toBe(1);
    const summary = summaryOf(parseNdjson(result.stdout));
    for (const agent of summary.agents) {
      expect(agent.status).toBe('failed');
      expect(agent.error).toMatchObject({
        kind: expect.any(String),
        message: expect.any(String),
        hint: expect.any(String),
      });
    }
    expect(result.stderr).toContain('no agent completed; see what each one did with: hydra show ');
  });

  it('stops an idle agent after --idle-timeout and still completes the race with the other', async () => {
    await installFakes(sandbox.bin, {
      claude: { agent: 'claude', delayMs: 5, hangAfterLines: 1 },
      codex: { agent: 'codex', delayMs: 5 },
    });
    const result = await race(['--json', '--idle-timeout', '1', 'Add a hello.txt file']);
    expect(result.exitCode, result.stderr).toBe(0);
    const summary = summaryOf(parseNdjson(result.stdout));
    const claude = summary.agents.find((agent) => agent.agent === 'claude');
    expect(claude?.status).toBe('timed_out');
    expect((claude?.error as { kind: string }).kind).toBe('TimedOut');
    expect(strayProcesses()).toEqual([]);
  });
});

describe('hydra race refuses what it cannot race in', () => {
  it('with no agent CLI installed: exit 1, naming hydra doctor and hydra demo', async () => {
    const result = await race(['--json', 'Add a hello.txt file']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('hydra doctor');
    expect(result.stderr).toContain('hydra demo');
    const lines = parseNdjson(result.stdout);
    expect(lines[0]?.type).toBe('race');
    expect(summaryOf(lines).type).toBe('summary');
    expect(git(repo, ['branch', '--list', 'hydra/*'])).toBe('');
  });

  it('with a configured binary that does not exist: a config error (exit 2) naming the key and the path', async () => {
    writeFileSync(
      path.join(repo, 'hydra.toml'),
      '[race]\nagents = ["claude"]\n[agents.claude]\nbinary = "/nowhere/claude"\n',
    );
    expect((await hydra(['trust'], { cwd: repo, env: sandbox.env })).exitCode).toBe(0);
    const result = await race(['--json', 'Add a hello.txt file']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('agents.claude.binary');
    expect(result.stderr).toContain('/nowhere/claude');
    expect(result.stdout).toBe('');
  });

  it('when the only agent help lacks the JSON flag: exit 1 with the reason', async () => {
    const help = path.join(sandbox.dir, 'old-help.txt');
    writeFileSync(help, 'Usage: claude [options]\n\nOptions:\n  -p, --print  Print response and exit\n');
    await installFakes(sandbox.bin, { claude: { agent: 'claude', helpFile: help } });
    const result = await race(['--json', '--agents', 'claude', 'Add a hello.txt file']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('--output-format');
  });

  it('outside a git repository: exit 1', async () => {
    await fastFakes();
    const outside = path.join(sandbox.dir, 'plain');
    mkdirSync(outside);
    const result = await race(['--json', 'Add a hello.txt file'], outside);
    expect(result.exitCode).toBe(1);
    const lines = parseNdjson(result.stdout);
    expect(lines[0]).toMatchObject({ type: 'race', baseRef: null, agents: [] });
    expect(summaryOf(lines).error?.kind).toBe('Refused');
    expect(result.stderr).toMatch(/not (inside )?a git repository/i);
    expect(result.stderr).not.toContain('hydra doctor');
  });

  it('in a repository with no commits: exit 1', async () => {
    await fastFakes();
    const empty = await createRepo(sandbox.dir, { commit: false, name: 'empty' });
    const result = await race(['--json', 'Add a hello.txt file'], empty);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/no commits/i);
  });

  it('on a detached HEAD: races (exit 0), warning that a merge needs a branch', async () => {
    await fastFakes();
    git(repo, ['checkout', '--quiet', '--detach']);
    const result = await race(['--json', 'Add a hello.txt file']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(summaryOf(parseNdjson(result.stdout)).error ?? null).toBeNull();
    expect(result.stderr).toMatch(/HEAD is detached/);
    expect(result.stderr).toMatch(/git switch -c/);
  });
});

describe('after a headless race', () => {
  it('merges a result, and runs, show and clean work on the run', async () => {
    await fastFakes();
    writeFileSync(path.join(repo, 'wip.txt'), 'uncommitted work\n');
    const raced = await race(['--json', 'Add a hello.txt file']);
    expect(raced.exitCode, raced.stderr).toBe(0);
    const runId = summaryOf(parseNdjson(raced.stdout)).runId;
    const env = sandbox.env;

    const runs = await hydra(['runs', '--json'], { cwd: repo, env });
    expect(runs.exitCode).toBe(0);
    const listed = (JSON.parse(runs.stdout) as { runs: Array<{ runId: string; state: string }> }).runs;
    expect(listed.map((run) => run.runId)).toContain(runId);

    const table = await hydra(['runs'], { cwd: repo, env });
    expect(table.stdout).toContain(runId);
    expect(table.stdout).toContain('claude:completed');

    const show = await hydra(['show', runId.slice(0, 15)], { cwd: repo, env });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain(`run     ${runId}`);
    expect(show.stdout).toMatch(/events \(\d+\):/);
    expect(show.stdout).toContain('completed');

    const unknown = await hydra(['show', 'no-such-run'], { cwd: repo, env });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/no run "no-such-run"/i);
    expect(unknown.stderr).toContain('hydra runs');

    const merged = await hydra(['merge', runId, 'claude'], { cwd: repo, env });
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('merged claude');
    expect(git(repo, ['log', '--oneline', '-1'])).not.toContain('first');
    expect(readFileSync(path.join(repo, 'wip.txt'), 'utf8')).toBe('uncommitted work\n');
    expect(git(repo, ['ls-files'])).toMatch(/hello|\.txt/);

    const again = await hydra(['merge', 'no-such-run', 'codex'], { cwd: repo, env });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('hydra runs');

    const dry = await hydra(['clean', '--dry-run'], { cwd: repo, env });
    expect(dry.exitCode, dry.stderr).toBe(0);
    const cleaned = await hydra(['clean'], { cwd: repo, env });
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(git(repo, ['branch', '--list', `hydra/${runId}/*`])).toBe('');
    expect(readFileSync(path.join(repo, 'wip.txt'), 'utf8')).toBe('uncommitted work\n');
  }, 90_000); // seven hydra processes one after another: give a loaded machine room

  it('refuses a merge that would conflict, changing nothing', async () => {
    await installFakes(sandbox.bin, { codex: { agent: 'codex', delayMs: 5 } });
    const raced = await race(['--json', '--agents', 'codex', 'Add a hello.txt file']);
    expect(raced.exitCode, raced.stderr).toBe(0);
    const runId = summaryOf(parseNdjson(raced.stdout)).runId;
    writeFileSync(path.join(repo, 'hello.txt'), 'my own hello\n');
    git(repo, ['add', 'hello.txt']);
    git(repo, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'mine']);
    const before = git(repo, ['rev-parse', 'HEAD']);
    const merged = await hydra(['merge', runId, 'codex'], { cwd: repo, env: sandbox.env });
    expect(merged.exitCode).toBe(1);
    expect(merged.stderr).toMatch(/conflict/i);
    expect(merged.stderr).toContain('hello.txt');
    expect(merged.stderr).toContain(
      `hint: Nothing was changed. Resolve it by hand: \`git merge hydra/${runId}/codex\``,
    );
    expect(git(repo, ['rev-parse', 'HEAD'])).toBe(before);
    expect(readFileSync(path.join(repo, 'hello.txt'), 'utf8')).toBe('my own hello\n');
  });

  it('hydra runs says so when there are no races yet', async () => {
    const result = await hydra(['runs'], { cwd: repo, env: sandbox.env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('no races yet');
    const json = await hydra(['runs', '--json'], { cwd: repo, env: sandbox.env });
    expect(JSON.parse(json.stdout)).toEqual({ runs: [] });
  });

  it('runs, show and clean outside a repository exit 1', async () => {
    const outside = path.join(sandbox.dir, 'plain');
    mkdirSync(outside);
    for (const args of [['runs'], ['show', 'x'], ['clean'], ['merge', 'x', 'claude']]) {
      const result = await hydra(args, { cwd: outside, env: sandbox.env });
      expect(result.exitCode, args.join(' ')).toBe(1);
      expect(result.stderr).toContain('not a git repository');
    }
  });
});

describe('Ctrl-C in headless mode', () => {
  it('cancels every agent, prints the summary, exits 130 and leaves no process behind', async () => {
    const { child } = await startHangingRace();
    let seen = '';
    await new Promise<void>((resolve) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('"agent_event"')) resolve();
      });
    });
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    const lines = parseNdjson(String(result.stdout));
    const summary = summaryOf(lines);
    expect(summary.type).toBe('summary');
    for (const agent of summary.agents) expect(agent.status).toBe('cancelled');
    expect(strayProcesses()).toEqual([]);
    expect(existsSync(path.join(repo, 'hello.txt'))).toBe(false);
  });
});

describe('an agent that crashes with a message on stderr', () => {
  it('hydra show <its run id> prints the stderr the failure hint points at', async () => {
    await installFakes(sandbox.bin, {
      codex: {
        agent: 'codex',
        delayMs: 5,
        crashAfterLines: 2,
        stderr: 'Error: model overloaded\n  at request (api.js:1)\n',
      },
    });
    const raced = await race(['--json', '--agents', 'codex', 'Add a hello.txt file']);
    expect(raced.exitCode).toBe(1);
    const summary = summaryOf(parseNdjson(raced.stdout));
    expect(summary.agents[0]?.error).toMatchObject({
      hint: `Its stderr is shown by \`hydra show ${summary.runId}\`.`,
    });
    // The headless notes on stderr carry the same hint under the agent's line.
    expect(raced.stderr).toContain(`hint: Its stderr is shown by \`hydra show ${summary.runId}\`.`);
    const shown = await hydra(['show', summary.runId], { cwd: repo, env: sandbox.env });
    expect(shown.stdout).toContain('stderr (last lines):');
    expect(shown.stdout).toContain('    Error: model overloaded');
    expect(shown.stdout).toContain('    at request (api.js:1)');
  });
});

describe('an agent whose work cannot be committed', () => {
  it('keeps its worktree (the only copy of its work) and says so on stderr', async () => {
    // The agent breaks its worktree's .git file: hydra commits nothing (anywhere) and fails it.
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 5,
        edits: [
          { path: 'hello.txt', content: 'precious\n' },
          { path: '.git', content: 'gitdir: /nonexistent\n' },
        ],
      },
    });
    const raced = await race(['--json', '--agents', 'claude', 'Add a hello.txt file']);
    const runId = summaryOf(parseNdjson(raced.stdout)).runId;
    const worktree = path.join(
      sandbox.env.HYDRA_WORKTREE_ROOT ?? '',
      readdirSync(sandbox.env.HYDRA_WORKTREE_ROOT ?? '')[0] ?? '',
      runId,
      'claude',
    );
    expect(raced.exitCode).toBe(1);
    expect(raced.stderr).toContain(`hydra: claude failed`);
    expect(raced.stderr).toContain(
      `The agent broke its worktree ${worktree}: its .git points at /nonexistent`,
    );
    expect(raced.stderr).toContain(`Hydra committed nothing; the agent's files are kept there.`);
    expect(readFileSync(path.join(worktree, 'hello.txt'), 'utf8')).toBe('precious\n');
    const cleaned = await hydra(['clean'], { cwd: repo, env: sandbox.env });
    expect(cleaned.exitCode).toBe(0);
    expect(existsSync(worktree)).toBe(false);
  });
});

describe('a reader that goes away from runs or show (hydra show <run> | head)', () => {
  it('stops writing quietly instead of crashing on EPIPE', async () => {
    await fastFakes();
    const raced = await race(['--json', 'Add a hello.txt file']);
    const runId = summaryOf(parseNdjson(raced.stdout)).runId;
    for (const args of [['show', runId], ['runs'], ['show', runId, '--json']]) {
      const child = execa(process.execPath, [MAIN, ...args], {
        cwd: repo,
        env: sandbox.env,
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        timeout: 30_000,
      });
      child.stdout?.destroy();
      const result = await child;
      expect(String(result.stderr)).not.toMatch(/EPIPE|Unhandled|at /);
      expect(result.exitCode).toBe(0);
    }
  });
});

describe('Ctrl-C in headless mode before any agent started', () => {
  it('says the race was cancelled (not that no agent could run), points at no run record, exits 130', async () => {
    await fastFakes();
    // Slow agent CLIs: every call, the version and help probes included, leaves a mark and waits 3 s.
    const mark = path.join(sandbox.dir, 'probing');
    for (const name of ['claude', 'codex']) {
      const wrapper = path.join(sandbox.bin, name);
      writeFileSync(
        wrapper,
        // First thing, before the wrapper's own answers to the probes (fake-bin.ts).
        readFileSync(wrapper, 'utf8').replace(/^#!\/bin\/sh\n/, `#!/bin/sh\ntouch '${mark}'; sleep 3\n`),
      );
    }
    const child = execa(process.execPath, [MAIN, 'race', '--json', 'Add a hello.txt file'], {
      cwd: repo,
      env: sandbox.env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 60_000,
    });
    for (let i = 0; i < 400 && !existsSync(mark); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(existsSync(mark)).toBe(true);
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    const summary = summaryOf(parseNdjson(String(result.stdout)));
    expect(summary.agents.map((agent) => agent.status)).toEqual(['cancelled', 'cancelled']);
    const stderr = String(result.stderr);
    expect(stderr).toContain('the race was cancelled before any agent started; nothing was left behind');
    expect(stderr).not.toContain('no agent could run');
    expect(stderr).not.toContain('hydra show');
    const runs = await hydra(['runs'], { cwd: repo, env: sandbox.env });
    expect(runs.stdout).toContain('no races yet');
    expect(strayProcesses()).toEqual([]);
  });
});

describe('a headless reader that goes away', () => {
  it('stops the race instead of crashing, and leaves no process behind', async () => {
    const { child } = await startHangingRace();
    await new Promise<void>((resolve) => {
      child.stdout?.once('data', () => resolve());
    });
    child.stdout?.destroy();
    const result = await child;
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr)).toContain('cancelled');
    expect(strayProcesses()).toEqual([]);
  });
});
