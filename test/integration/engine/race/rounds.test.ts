import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanRuns, readRun, reopenFromRecord, startRace } from '../../../../src/engine/index.js';
import type { RaceHandle, RaceOptions } from '../../../../src/engine/index.js';
import { git, installAgents, makeSandbox, plan, raceOptions } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let handles: RaceHandle[] = [];

afterEach(async () => {
  for (const handle of handles) await handle.cancel();
  handles = [];
  sandbox.cleanup();
});

/** The session and thread id the recorded Claude and Codex streams report. */
const SESSION = '00000000-0000-4000-8000-000000000001';

const argvLog = (agent: string): string => path.join(sandbox.dir, `${agent}-argv.jsonl`);

const invocations = (agent: string): string[][] =>
  readFileSync(argvLog(agent), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { argv: string[] }).argv)
    // The probe's --version and --help calls are not runs.
    .filter((argv) => !argv.includes('--version') && !argv.includes('--help'));

const filesOn = (branch: string): string[] =>
  git(sandbox.repo, 'ls-tree', '-r', '--name-only', branch).trim().split('\n');

async function installRecordingAgents(): Promise<void> {
  await installAgents(sandbox, {
    claude: {
      logArgvTo: argvLog('claude'),
      edits: [{ path: 'claude-1.txt', content: 'round 1\n' }],
      resumedEdits: [{ path: 'claude-2.txt', content: 'round 2\n' }],
    },
    codex: {
      logArgvTo: argvLog('codex'),
      edits: [{ path: 'codex-1.txt', content: 'round 1\n' }],
      resumedEdits: [{ path: 'codex-2.txt', content: 'round 2\n' }],
    },
  });
}

const start = (options: RaceOptions): RaceHandle => {
  const handle = startRace(options);
  handles.push(handle);
  return handle;
};

describe('a follow-up round', () => {
  it('continues Claude Code and Codex sessions by the ids their streams reported, on their branches', async () => {
    sandbox = makeSandbox();
    await installRecordingAgents();
    const handle = start(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
    await handle.settled;

    await handle.startRound({ kind: 'follow_up', agent: 'claude', prompt: 'Now add a test' });
    const summary = await handle.startRound({ kind: 'follow_up', agent: 'codex', prompt: 'Now add docs' });

    const [, claudeRound2] = invocations('claude');
    expect(
      claudeRound2?.slice(claudeRound2.indexOf('--resume'), claudeRound2.indexOf('--resume') + 2),
    ).toEqual(['--resume', SESSION]);
    expect(claudeRound2?.at(-1)).toBe('Now add a test');
    const [, codexRound2] = invocations('codex');
    // `codex exec [OPTIONS] resume <thread_id> <prompt>`: the options before the subcommand.
    expect(codexRound2?.slice(-4)).toEqual(['resume', SESSION, '--', 'Now add docs']);
    expect(codexRound2?.indexOf('--json')).toBeLessThan(codexRound2?.indexOf('resume') ?? -1);

    const runId = handle.runId;
    expect(filesOn(`hydra/${runId}/claude`)).toEqual(
      expect.arrayContaining(['claude-1.txt', 'claude-2.txt']),
    );
    expect(filesOn(`hydra/${runId}/codex`)).toEqual(expect.arrayContaining(['codex-1.txt', 'codex-2.txt']));
    expect(git(sandbox.repo, 'log', '--format=%s', `hydra/${runId}/claude`)).toContain('round 2');

    const claude = summary.agents.find((agent) => agent.agent === 'claude');
    expect(claude?.status).toBe('completed');
    expect(claude?.rounds?.map((round) => round.prompt)).toEqual(['Create hello.txt', 'Now add a test']);
    // Usage adds up across rounds.
    const [first, second] = claude?.rounds ?? [];
    expect(claude?.usage.outputTokens).toBe(
      (first?.usage.outputTokens ?? 0) + (second?.usage.outputTokens ?? 0),
    );
    expect(second?.usage.outputTokens).toBeGreaterThan(0);
    expect(claude?.diff.filesChanged).toBe(2);

    const snapshot = handle.getSnapshot();
    const divider = snapshot.agents
      .find((agent) => agent.agent === 'claude')
      ?.recentEvents.find((event) => event.kind === 'progress' && event.stage === 'round');
    expect(divider).toMatchObject({ detail: 'round 2: Now add a test' });
  });

  it('reopens a finished run from its record, makes the removed worktree again and continues there', async () => {
    sandbox = makeSandbox();
    await installRecordingAgents();
    const first = start(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    await first.settled;
    await first.finish();
    const runId = first.runId;
    expect(existsSync(path.join(sandbox.worktreeRoot))).toBe(true);

    const record = await readRun(sandbox.repo, runId);
    const again = start(
      raceOptions(sandbox, [plan(sandbox, 'claude')], {
        runId,
        prompt: record.meta.prompt,
        reopen: reopenFromRecord(record, { kind: 'follow_up', agent: 'claude', prompt: 'Second thoughts' }),
      }),
    );
    const summary = await again.settled;
    expect(summary.error).toBeNull();
    expect(summary.agents[0]).toMatchObject({ agent: 'claude', status: 'completed', sessionId: SESSION });
    // The summary says what sandboxed the round (nothing here), as a race's does (issue 35).
    expect(summary.agents[0]).toHaveProperty('sandbox', null);
    expect(invocations('claude')[1]).toEqual(
      expect.arrayContaining(['--resume', SESSION, 'Second thoughts']),
    );
    expect(filesOn(`hydra/${runId}/claude`)).toEqual(
      expect.arrayContaining(['claude-1.txt', 'claude-2.txt']),
    );
    const events = (await readRun(sandbox.repo, runId)).events.filter((event) => event.agent === 'claude');
    expect(events.filter((event) => event.event.kind === 'completed')).toHaveLength(2);
    await again.finish();
  });

  it('starts a new session on the same branch, and says so, when the CLI version cannot resume', async () => {
    sandbox = makeSandbox();
    // Claude Code's recorded help without its -r/--resume line: a version the probe sees no resume in.
    const help = readFileSync(
      path.join('fixtures', 'adapters', 'claude', 'help', '1.0.59', 'help.txt'),
      'utf8',
    );
    const helpFile = path.join(sandbox.dir, 'help-without-resume.txt');
    writeFileSync(
      helpFile,
      help
        .split('\n')
        .filter((line) => !/--resume|^\s+resume\b/.test(line))
        .join('\n'),
    );
    await installAgents(sandbox, {
      claude: {
        logArgvTo: argvLog('claude'),
        helpFile,
        version: '1.0.59',
        resumedEdits: [{ path: 'never.txt', content: 'not resumed\n' }],
      },
    });
    const handle = start(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    await handle.settled;

    const summary = await handle.startRound({ kind: 'follow_up', agent: 'claude', prompt: 'Go on' });

    const argv = invocations('claude').at(-1) ?? [];
    expect(argv).not.toContain('--resume');
    expect(argv.at(-1)).toBe('Go on');
    expect(summary.agents[0]?.warnings?.join(' ')).toContain(
      'cannot resume a session: round 2 starts a new session',
    );
    expect(
      handle
        .getSnapshot()
        .agents[0]?.recentEvents.some(
          (event) => event.kind === 'progress' && event.detail === 'round 2 (new session): Go on',
        ),
    ).toBe(true);
  });

  it('leaves out of a reopened race an agent whose recorded adapter this hydra does not have', async () => {
    sandbox = makeSandbox();
    await installRecordingAgents();
    const first = start(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
    await first.settled;
    await first.finish();
    const metaFile = path.join(sandbox.repo, '.hydra', 'runs', first.runId, 'meta.json');
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { agents: Array<{ adapter?: string }> };
    meta.agents[1]!.adapter = 'nosuchcli';
    writeFileSync(metaFile, JSON.stringify(meta));

    const reopen = reopenFromRecord(await readRun(sandbox.repo, first.runId));

    expect(reopen.agents.map((agent) => agent.agent)).toEqual(['claude']);
  });

  it('keeps the recorded duration when a reopened run is only reviewed, and moves it on after a round', async () => {
    sandbox = makeSandbox();
    await installRecordingAgents();
    const first = start(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    await first.settled;
    const recorded = await first.finish();
    const runId = first.runId;
    const record = await readRun(sandbox.repo, runId);
    const review = start(
      raceOptions(sandbox, [plan(sandbox, 'claude')], {
        runId,
        prompt: record.meta.prompt,
        reopen: reopenFromRecord(record),
      }),
    );
    await review.settled;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const reviewed = await review.finish();
    expect(reviewed.startedAt).toBe(recorded.startedAt);
    expect(reviewed.endedAt).toBe(recorded.endedAt);
    expect((await readRun(sandbox.repo, runId)).summary?.endedAt).toBe(recorded.endedAt);

    const followUp = start(
      raceOptions(sandbox, [plan(sandbox, 'claude')], {
        runId,
        prompt: record.meta.prompt,
        reopen: reopenFromRecord(await readRun(sandbox.repo, runId), {
          kind: 'follow_up',
          agent: 'claude',
          prompt: 'Second thoughts',
        }),
      }),
    );
    await followUp.settled;
    expect((await followUp.finish()).endedAt).toBeGreaterThan(recorded.endedAt);
  });

  it('a review probes nothing: with the CLI gone, every branch is still there to review and merge; a round then says why it cannot run, and probes it when asked again', async () => {
    sandbox = makeSandbox();
    await installRecordingAgents();
    const first = start(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    await first.settled;
    await first.finish();
    const runId = first.runId;
    const binary = plan(sandbox, 'claude').binary!;
    renameSync(binary, `${binary}.gone`);
    const record = await readRun(sandbox.repo, runId);

    const review = start(
      raceOptions(sandbox, [plan(sandbox, 'claude')], {
        runId,
        prompt: record.meta.prompt,
        reopen: reopenFromRecord(record),
      }),
    );
    const phases = new Set<string>();
    review.subscribe((snapshot) => phases.add(snapshot.phase));
    await review.settled;

    expect([...phases]).not.toContain('probing');
    expect(review.getSnapshot().agents[0]).toMatchObject({
      status: 'completed',
      branch: `hydra/${runId}/claude`,
    });
    await expect(review.startRound({ kind: 'follow_up', agent: 'claude', prompt: 'More' })).rejects.toThrow(
      /Claude Code cannot run now/,
    );
    expect(review.getSnapshot().phase).toBe('reviewing');

    // The CLI back: the follow-up asked in the review probes it then, and runs.
    renameSync(`${binary}.gone`, binary);
    const after = await review.startRound({ kind: 'follow_up', agent: 'claude', prompt: 'More' });
    expect(after.agents[0]).toMatchObject({ agent: 'claude', status: 'completed' });
    expect(filesOn(`hydra/${runId}/claude`)).toContain('claude-2.txt');
  });

  it('sets aside an agent whose recorded session id has the wrong shape', async () => {
    sandbox = makeSandbox();
    await installRecordingAgents();
    const first = start(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    await first.settled;
    await first.finish();
    const summaryFile = path.join(sandbox.repo, '.hydra', 'runs', first.runId, 'summary.json');
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as {
      agents: Array<{ sessionId?: string }>;
    };
    expect(summary.agents[0]?.sessionId).toBe(SESSION);
    summary.agents[0]!.sessionId = '--dangerously-skip-permissions';
    writeFileSync(summaryFile, JSON.stringify(summary));
    // The damaged entry alone is set aside (issue 21 case 9): the run still reads, and the forged id
    // is nowhere hydra would pass it to a CLI.
    const record = await readRun(sandbox.repo, first.runId);
    expect(record.damagedAgents).toEqual([
      expect.objectContaining({
        agent: 'claude',
        problem: expect.stringMatching(/sessionId: is not a session id/),
      }),
    ]);
    expect(JSON.stringify(record.summary)).not.toContain('--dangerously-skip-permissions');
  });
});

describe('a rerun', () => {
  it('races a fresh attempt from the base on a new branch <agent>-2, which clean removes', async () => {
    sandbox = makeSandbox();
    await installRecordingAgents();
    const handle = start(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    await handle.settled;
    await handle.startRound({ kind: 'follow_up', agent: 'claude', prompt: 'More' });

    const summary = await handle.startRound({ kind: 'rerun', agent: 'claude' });

    const runId = handle.runId;
    const rerun = summary.agents.find((agent) => agent.agent === 'claude-2');
    expect(rerun).toMatchObject({
      status: 'completed',
      branch: `hydra/${runId}/claude-2`,
      adapter: 'claude',
      rerunOf: 'claude',
      sandbox: null,
    });
    // From the base: the first agent's follow-up is not on it; the race's prompt, a fresh session.
    expect(filesOn(`hydra/${runId}/claude-2`)).toEqual(expect.arrayContaining(['claude-1.txt']));
    expect(filesOn(`hydra/${runId}/claude-2`)).not.toContain('claude-2.txt');
    const last = invocations('claude').at(-1) ?? [];
    expect(last).not.toContain('--resume');
    expect(last.at(-1)).toBe('Create hello.txt');
    const record = await readRun(sandbox.repo, runId);
    expect(record.meta.agents.map((agent) => agent.agent)).toEqual(['claude', 'claude-2']);

    await handle.finish();
    // The record names this test's process as its hydra, which clean leaves alone while it lives.
    const metaFile = path.join(sandbox.repo, '.hydra', 'runs', runId, 'meta.json');
    writeFileSync(
      metaFile,
      JSON.stringify({ ...JSON.parse(readFileSync(metaFile, 'utf8')), pid: 2 ** 22 + 1 }),
    );
    await cleanRuns(sandbox.repo, { dryRun: false, worktreeRoot: sandbox.worktreeRoot });
    expect(git(sandbox.repo, 'branch', '--list', `hydra/${runId}/*`).trim()).toBe('');
  });
});

describe('a follow-up round with checks', () => {
  it('runs the checks again on the agent’s new result (a clean checkout of it) but not on the baseline, which the first round already checked', async () => {
    sandbox = makeSandbox();
    await installRecordingAgents();
    const log = path.join(sandbox.dir, 'check-cwds.log');
    const handle = start(
      raceOptions(sandbox, [plan(sandbox, 'claude')], {
        checks: [{ name: 'where', run: `pwd >> '${log}'`, timeoutMs: 30_000, gate: false }],
      }),
    );
    await handle.settled;
    const summary = await handle.startRound({ kind: 'follow_up', agent: 'claude', prompt: 'Now add a test' });

    const cwds = readFileSync(log, 'utf8').trim().split('\n');
    expect(cwds.filter((cwd) => cwd.endsWith('.baseline'))).toHaveLength(1);
    // Checks judge the committed result, in a clean checkout of it (issue 21 case 14), never the worktree.
    expect(cwds.filter((cwd) => cwd.endsWith('/.checks-claude'))).toHaveLength(2);
    expect(summary.baseline?.checks.map((check) => check.status)).toEqual(['passed']);
    expect(summary.agents[0]?.checks?.map((check) => check.status)).toEqual(['passed']);
  }, 60_000);
});
