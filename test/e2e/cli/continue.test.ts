/**
 * `hydra continue`, `hydra rerun` and `hydra open` end to end through the real entry point, on a
 * run a headless race made with fake Claude Code and Codex CLIs that record their argv.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
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

beforeEach(async () => {
  sandbox = createSandbox();
  repo = await createRepo(sandbox.dir);
});

afterEach(() => sandbox.cleanup());

/** The session and thread id the recorded Claude and Codex streams report. */
const SESSION = '00000000-0000-4000-8000-000000000001';

const argvLog = (agent: string): string => path.join(sandbox.dir, `${agent}-argv.jsonl`);

/** What each run of a fake got as arguments (the probe's --version and --help left out). */
const runs = (agent: string): string[][] =>
  readFileSync(argvLog(agent), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { argv: string[] }).argv)
    .filter((argv) => !argv.includes('--version') && !argv.includes('--help'));

const run = (args: string[]) => hydra(args, { cwd: repo, env: sandbox.env, timeoutMs: 90_000 });

const filesOn = (branch: string): string[] => git(repo, ['ls-tree', '-r', '--name-only', branch]).split('\n');

async function raceOnce(): Promise<string> {
  await installFakes(sandbox.bin, {
    claude: {
      agent: 'claude',
      delayMs: 5,
      logArgvTo: argvLog('claude'),
      edits: [{ path: 'first.txt', content: 'round 1\n' }],
      resumedEdits: [{ path: 'second.txt', content: 'round 2\n' }],
    },
    codex: {
      agent: 'codex',
      delayMs: 5,
      logArgvTo: argvLog('codex'),
      edits: [{ path: 'codex.txt', content: 'round 1\n' }],
      resumedEdits: [{ path: 'codex-docs.txt', content: 'round 2\n' }],
    },
  });
  const result = await run(['race', '--json', 'Add a hello.txt file']);
  expect(result.exitCode, result.stderr).toBe(0);
  const [first] = parseNdjson(result.stdout);
  return String(first?.['runId']);
}

describe('hydra continue', () => {
  it('resumes Claude Code by its session id with the new prompt; both rounds are on its branch', async () => {
    const runId = await raceOnce();

    const result = await run(['continue', runId, 'claude', 'Now', 'add', 'a', 'test', '--json']);

    expect(result.exitCode, result.stderr).toBe(0);
    const argv = runs('claude').at(-1) ?? [];
    expect(argv.slice(argv.indexOf('--resume'), argv.indexOf('--resume') + 2)).toEqual(['--resume', SESSION]);
    expect(argv.at(-1)).toBe('Now add a test');
    expect(filesOn(`hydra/${runId}/claude`)).toEqual(expect.arrayContaining(['first.txt', 'second.txt']));

    // The same NDJSON shapes as a race: race first, agent events, summary last.
    const lines = parseNdjson(result.stdout);
    expect(lines[0]).toMatchObject({ type: 'race', runId });
    expect(lines.some((line) => line['type'] === 'agent_event' && line['agent'] === 'claude')).toBe(true);
    const summary = lines.at(-1) as { type: string; agents: Array<Record<string, unknown>> };
    expect(summary.type).toBe('summary');
    expect(summary.agents.find((agent) => agent['agent'] === 'claude')).toMatchObject({
      status: 'completed',
      branch: `hydra/${runId}/claude`,
    });
  });

  it('resumes the Codex thread with exec resume <thread_id> and the new prompt', async () => {
    const runId = await raceOnce();

    const result = await run(['continue', 'last', 'codex', 'Now add docs', '--json']);

    expect(result.exitCode, result.stderr).toBe(0);
    const argv = runs('codex').at(-1) ?? [];
    expect(argv.slice(-4)).toEqual(['resume', SESSION, '--', 'Now add docs']);
    expect(filesOn(`hydra/${runId}/codex`)).toEqual(expect.arrayContaining(['codex.txt', 'codex-docs.txt']));
    // Each round's usage is kept in the record, and the total adds them up.
    const record = JSON.parse((await run(['show', runId, '--json'])).stdout) as {
      summary: { agents: Array<{ agent: string; rounds?: Array<{ prompt: string }> }> };
    };
    const codex = record.summary.agents.find((agent) => agent.agent === 'codex');
    expect(codex?.rounds?.map((round) => round.prompt)).toEqual(['Add a hello.txt file', 'Now add docs']);
    const text = (await run(['show', 'last'])).stdout;
    expect(text).toMatch(/round 1 in .+: Add a hello\.txt file/);
    expect(text).toMatch(/round 2 in .+: Now add docs/);
  });

  it('continues a named agent with the settings it raced with (its model), by its name', async () => {
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 5,
        logArgvTo: argvLog('claude'),
        edits: [{ path: 'first.txt', content: 'round 1\n' }],
        resumedEdits: [{ path: 'second.txt', content: 'round 2\n' }],
      },
    });
    const raced = await run(['race', '--json', '--agents', 'claude:opus', 'Add a hello.txt file']);
    expect(raced.exitCode, raced.stderr).toBe(0);

    const result = await run(['continue', 'last', 'claude-opus', 'Go on', '--json']);

    expect(result.exitCode, result.stderr).toBe(0);
    const argv = runs('claude').at(-1) ?? [];
    expect(argv.slice(argv.indexOf('--model'), argv.indexOf('--model') + 2)).toEqual(['--model', 'opus']);
    expect(argv.slice(argv.indexOf('--resume'), argv.indexOf('--resume') + 2)).toEqual(['--resume', SESSION]);
    const runId = String(parseNdjson(result.stdout)[0]?.['runId']);
    expect(filesOn(`hydra/${runId}/claude-opus`)).toEqual(
      expect.arrayContaining(['first.txt', 'second.txt']),
    );
  });

  it('names the agents of the run when asked for one it does not have', async () => {
    const runId = await raceOnce();
    const result = await run(['continue', runId, 'gemini', 'more', '--json']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('has no agent "gemini"; its agents: claude, codex');
  });
});

describe('the flags of a round', () => {
  it("accept the race's flags that apply to one more agent run, on continue and rerun alike", async () => {
    await raceOnce();
    const flags = ['--allow-experimental-adapters', '--timeout', '300', '--idle-timeout', '120'];

    const continued = await run(['continue', 'last', 'codex', 'Now add docs', '--json', ...flags]);
    const rerun = await run([
      'rerun',
      'last',
      'claude',
      '--json',
      '--max-cost-usd',
      '5',
      '--keep-worktrees',
      ...flags,
    ]);

    expect(continued.exitCode, continued.stderr).toBe(0);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const bad = await run(['rerun', 'last', 'claude', '--timeout', 'soon']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('hydra rerun --help');
  }, 90_000);
});

describe('hydra rerun', () => {
  it("names a merged run's merged agent without an empty field (its branch went with the merge)", async () => {
    const runId = await raceOnce();
    const merged = await run(['merge', runId, 'claude']);
    expect(merged.exitCode, merged.stderr).toBe(0);

    const result = await run(['rerun', runId, 'codex', '--json']);

    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/hydra: merged claude \((fast-forward|merge-commit|squash)\)\n/);
    expect(result.stderr).not.toContain('(, ');
  }, 90_000);

  it('races a fresh attempt from the base on hydra/<run>/<agent>-2', async () => {
    const runId = await raceOnce();

    // `last` names the newest run here as in every command that takes a run.
    const result = await run(['rerun', 'last', 'claude', '--json']);

    expect(result.exitCode, result.stderr).toBe(0);
    const summary = parseNdjson(result.stdout).at(-1) as { agents: Array<Record<string, unknown>> };
    expect(summary.agents.find((agent) => agent['agent'] === 'claude-2')).toMatchObject({
      status: 'completed',
      branch: `hydra/${runId}/claude-2`,
    });
    expect(runs('claude').at(-1)).not.toContain('--resume');
    expect(git(repo, ['merge-base', 'main', `hydra/${runId}/claude-2`])).toBe(
      git(repo, ['rev-parse', 'main']),
    );
  });
});

describe('hydra open', () => {
  it('prints the worktree path, making it again from the branch after the race removed it, with the ignored files a tree gets', async () => {
    const runId = await raceOnce();

    // Ignored files a tree gets, as every tree hydra makes: `.worktreeinclude` and `[setup] copy`.
    appendFileSync(path.join(repo, '.git', 'info', 'exclude'), '.env\n*.local\n');
    writeFileSync(path.join(repo, '.env'), 'TOKEN=abc\n');
    writeFileSync(path.join(repo, 'db.local'), 'local settings\n');
    writeFileSync(path.join(repo, '.worktreeinclude'), '.env\n');
    writeFileSync(path.join(sandbox.dir, 'open.toml'), '[setup]\ncopy = ["*.local"]\n');

    const result = await run([
      'open',
      runId.slice(0, 12),
      'claude',
      '--config',
      path.join(sandbox.dir, 'open.toml'),
    ]);

    expect(result.exitCode, result.stderr).toBe(0);
    const dir = result.stdout.trim();
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toBe('TOKEN=abc\n');
    expect(readFileSync(path.join(dir, 'db.local'), 'utf8')).toBe('local settings\n');
    expect(dir.startsWith(sandbox.env['HYDRA_WORKTREE_ROOT']!)).toBe(true);
    expect(path.basename(dir)).toBe('claude');
    expect(existsSync(path.join(dir, 'first.txt'))).toBe(true);
    expect(git(dir, ['rev-parse', '--abbrev-ref', 'HEAD'])).toBe(`hydra/${runId}/claude`);
    // Asked again (as `last`), the same worktree.
    expect((await run(['open', 'last', 'claude'])).stdout.trim()).toBe(dir);
    // hydra clean removes it with the run.
    await run(['clean']);
    expect(existsSync(dir)).toBe(false);
  });
});

/** Issue 34, "Follow-ups are verified too": a round runs the race's checks, its --check included. */
interface RoundSummary {
  runId: string;
  agents: Array<{
    agent: string;
    checks?: Array<{ name: string; status: string }> | null;
    score?: { verified: boolean } | null;
  }>;
}

const summaryOf = (stdout: string): RoundSummary => parseNdjson(stdout).at(-1) as unknown as RoundSummary;

describe('a follow-up round (issue 34)', () => {
  it("runs the race's --check again on hydra continue and hydra rerun", async () => {
    const marker = path.join(sandbox.dir, 'checks.log');
    await installFakes(sandbox.bin, {
      claude: {
        agent: 'claude',
        delayMs: 5,
        edits: [{ path: 'first.txt', content: 'round 1\n' }],
        resumedEdits: [{ path: 'second.txt', content: 'round 2\n' }],
      },
      codex: { agent: 'codex', delayMs: 5, edits: [{ path: 'codex.txt', content: 'round 1\n' }] },
    });
    // The check logs the checkout it ran in, and passes where first.txt is.
    const check = `echo "$PWD" >> ${marker}; test -f first.txt`;
    const race = await run(['race', '--json', '--check', check, 'Add first.txt']);
    expect(race.exitCode, race.stderr).toBe(0);
    const { runId } = summaryOf(race.stdout);
    const ranBefore = readFileSync(marker, 'utf8').trim().split('\n').length;

    const followUp = await run(['continue', runId, 'claude', 'Now add second.txt', '--json']);
    expect(followUp.exitCode, followUp.stderr).toBe(0);
    const claude = summaryOf(followUp.stdout).agents.find((agent) => agent.agent === 'claude');
    expect(claude?.checks?.map((item) => item.status)).toEqual(['passed']);
    expect(claude?.score?.verified).toBe(true);
    const ranAfter = readFileSync(marker, 'utf8').trim().split('\n');
    expect(ranAfter.slice(ranBefore).map((line) => path.basename(line))).toContain('.checks-claude');

    const rerun = await run(['rerun', runId, 'codex', '--json']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const again = summaryOf(rerun.stdout).agents.find((agent) => agent.agent === 'codex-2');
    expect(again?.checks?.map((item) => item.status)).toEqual(['failed']);
    expect(again?.score?.verified).toBe(true);
    expect(existsSync(marker)).toBe(true);
  }, 240_000);
});
