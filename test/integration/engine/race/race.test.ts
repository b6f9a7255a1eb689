import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listRuns, readRun, startRace } from '../../../../src/engine/index.js';
import type { AgentEventRecord, RaceHandle } from '../../../../src/engine/index.js';
import {
  agentStatus,
  git,
  installAgents,
  makeSandbox,
  plan,
  raceOptions,
  repoState,
  waitForSnapshot,
} from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

const edit = (file: string, content: string) => ({ edits: [{ path: file, content }] });

describe('a race with three fake agents', () => {
  it('runs them in parallel, commits each result on its branch and records everything', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, {
      claude: { delayMs: 40 },
      codex: { delayMs: 40 },
      cursor: { delayMs: 40 },
    });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex'), plan(sandbox, 'cursor')]),
    );
    const seen: AgentEventRecord[] = [];
    handle.onEvent((record) => seen.push(record));

    const summary = await handle.settled;

    expect(summary.agents.map((agent) => [agent.agent, agent.status])).toEqual([
      ['claude', 'completed'],
      ['codex', 'completed'],
      ['cursor', 'completed'],
    ]);
    const snapshot = handle.getSnapshot();
    expect(snapshot.phase).toBe('reviewing');
    // Parallel: every agent started before any other finished.
    const starts = snapshot.agents.map((agent) => agent.startedAt!);
    const ends = snapshot.agents.map((agent) => agent.endedAt!);
    expect(Math.max(...starts)).toBeLessThan(Math.min(...ends));
    for (const agent of snapshot.agents) {
      expect(agent.diff?.filesChanged).toBeGreaterThan(0);
      const branch = `hydra/${handle.runId}/${agent.agent}`;
      expect(agent.branch).toBe(branch);
      expect(git(sandbox.repo, 'log', '-1', '--format=%an', branch).trim()).toBe('hydra');
      expect(git(sandbox.repo, 'diff', '--name-only', 'main', branch).trim().length).toBeGreaterThan(0);
      expect(agent.worktree!.startsWith(sandbox.worktreeRoot)).toBe(true);
    }
    // The user's repository stays clean: worktrees are outside, records are excluded.
    expect(git(sandbox.repo, 'status', '--porcelain')).toBe('');

    const record = await readRun(sandbox.repo, handle.runId);
    expect(record.events.length).toBe(seen.length);
    expect(record.events.filter((item) => item.event.kind === 'completed')).toHaveLength(3);
    expect(record.meta.prompt).toBe('Create hello.txt');
    expect(record.meta.promptSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(record.meta.agents.map((agent) => agent.agent)).toEqual(['claude', 'codex', 'cursor']);
    expect(record.meta.agents.every((agent) => agent.command.length > 1)).toBe(true);
    expect(record.summary?.agents).toHaveLength(3);
    const runs = await listRuns(sandbox.repo);
    expect(runs[0]).toMatchObject({ runId: handle.runId, state: 'finished', baseBranch: 'main' });

    await handle.finish();
    for (const agent of snapshot.agents) expect(existsSync(agent.worktree!)).toBe(false);
    // Completed results stay as branches until `hydra clean`, so `hydra merge` still works.
    expect(git(sandbox.repo, 'branch', '--list', `hydra/${handle.runId}/*`).trim().split('\n')).toHaveLength(
      3,
    );
    expect(git(sandbox.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(handle.getSnapshot().phase).toBe('done');
  });

  it('passes the prompt to the agent intact (quotes, a leading dash, newlines)', async () => {
    sandbox = makeSandbox();
    const log = path.join(sandbox.dir, 'argv.jsonl');
    await installAgents(sandbox, { claude: { logArgvTo: log } });
    const prompt = `-x "quoted" 'single' $(rm -rf /)\nsecond line`;
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')], { prompt }));
    await handle.settled;
    const { argv, stdin } = JSON.parse(readFileSync(log, 'utf8').trim()) as {
      argv: string[];
      stdin: string | null;
    };
    expect(argv.includes(prompt) || stdin === prompt).toBe(true);
  });
});

describe('merging a result', () => {
  const raceTwo = async (): Promise<RaceHandle> => {
    await installAgents(sandbox, {
      claude: edit('hello.txt', 'from claude\n'),
      codex: edit('other.txt', 'from codex\n'),
    });
    const started = startRace(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
    await started.settled;
    return started;
  };

  it('fast-forwards when the branch has not moved, and keeps the other results', async () => {
    sandbox = makeSandbox();
    handle = await raceTwo();
    const base = git(sandbox.repo, 'rev-parse', 'HEAD').trim();
    const codexWorktree = handle.getSnapshot().agents.find((agent) => agent.agent === 'codex')?.worktree;

    const result = await handle.merge('claude');

    expect(result.method).toBe('fast-forward');
    expect(result.into).toBe('main');
    expect(git(sandbox.repo, 'rev-parse', 'HEAD').trim()).toBe(result.commit);
    expect(git(sandbox.repo, 'rev-parse', 'HEAD~1').trim()).toBe(base);
    expect(readFileSync(path.join(sandbox.repo, 'hello.txt'), 'utf8')).toBe('from claude\n');
    expect(existsSync(path.join(sandbox.repo, 'other.txt'))).toBe(false);
    // The merged result's branch and worktree go; codex's result stays on its branch until hydra
    // clean, and its worktree goes as the race ends (issue 24, item 7: one rule for every ending).
    expect(git(sandbox.repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/hydra/').trim()).toBe(
      `hydra/${handle.runId}/codex`,
    );
    expect(codexWorktree).toBeTruthy();
    expect(existsSync(codexWorktree ?? '')).toBe(false);
    expect(git(sandbox.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(result.removed).toContain(codexWorktree);
    expect(result.removed).not.toContain(`hydra/${handle.runId}/codex`);
    expect(handle.getSnapshot().agents.find((agent) => agent.agent === 'codex')?.worktree).toBeNull();
    expect(handle.getSnapshot().agents.find((agent) => agent.agent === 'codex')?.branch).toBe(
      `hydra/${handle.runId}/codex`,
    );
    expect(handle.getSnapshot().agents.find((agent) => agent.agent === 'claude')?.worktree).toBeNull();
    expect(git(sandbox.repo, 'status', '--porcelain')).toBe('');
    expect(handle.getSnapshot().phase).toBe('done');
    expect((await readRun(sandbox.repo, handle.runId)).merge).toMatchObject({
      agent: 'claude',
      method: 'fast-forward',
    });
  });

  it('removes every other worktree and branch with discardOthers', async () => {
    sandbox = makeSandbox();
    handle = await raceTwo();

    const result = await handle.merge('claude', { discardOthers: true });

    expect(result.method).toBe('fast-forward');
    expect(git(sandbox.repo, 'branch', '--list', 'hydra/*').trim()).toBe('');
    expect(git(sandbox.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('makes a merge commit when the branch moved on', async () => {
    sandbox = makeSandbox();
    handle = await raceTwo();
    writeFileSync(path.join(sandbox.repo, 'later.txt'), 'committed after the race started\n');
    git(sandbox.repo, 'add', 'later.txt');
    git(sandbox.repo, 'commit', '-q', '-m', 'later');
    const moved = git(sandbox.repo, 'rev-parse', 'HEAD').trim();

    const result = await handle.merge('codex');

    expect(result.method).toBe('merge-commit');
    const parents = git(sandbox.repo, 'log', '-1', '--format=%P').trim().split(' ');
    expect(parents).toHaveLength(2);
    expect(parents[0]).toBe(moved);
    expect(readFileSync(path.join(sandbox.repo, 'other.txt'), 'utf8')).toBe('from codex\n');
    expect(readFileSync(path.join(sandbox.repo, 'later.txt'), 'utf8')).toBe(
      'committed after the race started\n',
    );
    expect(git(sandbox.repo, 'status', '--porcelain')).toBe('');
  });

  it('squashes into one commit when asked', async () => {
    sandbox = makeSandbox();
    handle = await raceTwo();
    const base = git(sandbox.repo, 'rev-parse', 'HEAD').trim();

    const result = await handle.merge('claude', { squash: true });

    expect(result.method).toBe('squash');
    expect(git(sandbox.repo, 'log', '-1', '--format=%P').trim()).toBe(base);
    expect(git(sandbox.repo, 'log', '-1', '--format=%s').trim()).toContain('claude');
    expect(readFileSync(path.join(sandbox.repo, 'hello.txt'), 'utf8')).toBe('from claude\n');
  });

  it('refuses a conflicting merge and changes nothing', async () => {
    sandbox = makeSandbox();
    handle = await raceTwo();
    writeFileSync(path.join(sandbox.repo, 'hello.txt'), 'the user wrote this first\n');
    git(sandbox.repo, 'add', 'hello.txt');
    git(sandbox.repo, 'commit', '-q', '-m', 'user hello');
    writeFileSync(path.join(sandbox.repo, 'app.txt'), 'unstaged edit\n');
    const before = repoState(sandbox.repo);

    await expect(handle.merge('claude')).rejects.toThrow(/conflict in hello\.txt/);

    expect(repoState(sandbox.repo)).toEqual(before);
    expect(handle.getSnapshot().phase).toBe('reviewing');
    expect(git(sandbox.repo, 'branch', '--list', 'hydra/*').trim().split('\n')).toHaveLength(2);
    // Another agent can still be merged.
    await expect(handle.merge('codex')).resolves.toMatchObject({ method: 'merge-commit' });
  });

  it('refuses when uncommitted changes touch a file the merge writes, listing it', async () => {
    sandbox = makeSandbox();
    handle = await raceTwo();
    writeFileSync(path.join(sandbox.repo, 'hello.txt'), 'untracked work of the user\n');
    const before = repoState(sandbox.repo);

    await expect(handle.merge('claude')).rejects.toThrow(
      /uncommitted changes touch files the merge would change: hello\.txt/,
    );
    expect(repoState(sandbox.repo)).toEqual(before);
  });

  it('refuses when the user switched to another branch, saying which', async () => {
    sandbox = makeSandbox();
    handle = await raceTwo();
    git(sandbox.repo, 'switch', '-q', '-c', 'feature');

    await expect(handle.merge('claude')).rejects.toThrow(
      /You are on branch feature, but the race started from main/,
    );
    expect(git(sandbox.repo, 'rev-parse', 'main').trim()).toBe(
      git(sandbox.repo, 'rev-parse', 'feature').trim(),
    );
  });

  it('returns the full patch of a result', async () => {
    sandbox = makeSandbox();
    handle = await raceTwo();
    const patch = await handle.getPatch('claude');
    expect(patch).toContain('+++ b/hello.txt');
    expect(patch).toContain('+from claude');
  });
});

describe('cancelling before any agent started', () => {
  it('during worktree creation: no worktree, branch or run record is left, and the agents are cancelled', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {}, codex: {} });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
    const current = handle;
    await new Promise<void>((resolve) => {
      const off = current.subscribe((snapshot) => {
        if (snapshot.phase !== 'creating_worktrees') return;
        off();
        resolve();
      });
    });
    await current.cancel();
    const summary = await current.settled;
    expect(current.getSnapshot().phase).toBe('cancelled');
    expect(summary.agents.map((agent) => agent.status)).toEqual(['cancelled', 'cancelled']);
    expect(git(sandbox.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git(sandbox.repo, 'branch', '--list', 'hydra/*').trim()).toBe('');
    expect(await listRuns(sandbox.repo)).toEqual([]);
    expect(git(sandbox.repo, 'status', '--porcelain')).toBe('');
  });
});

describe('an agent stopped by hand', () => {
  it('says truthfully what happens to its partial work: its branch is gone once the race ends', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {}, codex: { hangAfterLines: 3 } });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
    const current = handle;
    await waitForSnapshot(
      current,
      (snapshot) =>
        agentStatus(snapshot, 'codex') === 'running' &&
        (snapshot.agents.find((agent) => agent.agent === 'codex')?.eventCount ?? 0) > 0,
    );
    current.stopAgent('codex');
    await current.settled;
    const codex = current.getSnapshot().agents.find((agent) => agent.agent === 'codex');
    expect(codex?.status).toBe('cancelled');
    const final = await current.finish();
    const branchKept = git(sandbox.repo, 'branch', '--list', `hydra/${current.runId}/codex`).trim() !== '';
    expect(branchKept).toBe(false);
    // The final summary (returned and recorded) names only what still exists.
    const recorded = (await readRun(sandbox.repo, current.runId)).summary;
    for (const summary of [final, recorded]) {
      expect(summary?.agents.find((agent) => agent.agent === 'codex')).toMatchObject({
        branch: null,
        worktree: null,
      });
      expect(summary?.agents.find((agent) => agent.agent === 'claude')).toMatchObject({
        branch: `hydra/${current.runId}/claude`,
        worktree: null,
      });
    }
    expect(codex?.error?.hint).not.toMatch(/kept as a commit/);
    expect(codex?.error?.hint).toContain('removed when the race ends');
  });
});

describe('an agent stopped before the race started it', () => {
  it('a stop asked while the worktrees are made is kept: the agent settles cancelled and never runs', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {}, codex: {} });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
    const current = handle;
    await waitForSnapshot(current, (snapshot) => snapshot.phase === 'creating_worktrees');
    current.stopAgent('codex');

    await current.settled;
    const codex = current.getSnapshot().agents.find((agent) => agent.agent === 'codex');
    expect(codex?.status).toBe('cancelled');
    expect(codex?.startedAt).toBeNull();
    expect(agentStatus(current.getSnapshot(), 'claude')).toBe('completed');
    const record = await readRun(sandbox.repo, current.runId);
    expect(record.events.filter((item) => item.agent === 'codex' && item.event.kind === 'completed')).toEqual(
      [],
    );
    // Nothing of Codex's was in its worktree: it goes, and so does its branch, as a stopped agent's.
    await current.finish();
    expect(git(sandbox.repo, 'branch', '--list', `hydra/${current.runId}/codex`).trim()).toBe('');
    expect(existsSync(codex?.worktree ?? '/none')).toBe(false);
  });
});

describe('a prompt with control characters (a NUL pasted from a binary file)', () => {
  it('still commits the agent result, and a squash merge of it works', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: edit('hello.txt', 'from claude\n') });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude')], { prompt: 'fix\u0000this\u0007 now' }),
    );
    const summary = await handle.settled;
    expect(summary.agents[0]).toMatchObject({ status: 'completed', diff: { filesChanged: 1 } });
    expect(handle.getSnapshot().agents[0]?.warnings).toEqual([]);
    expect(git(sandbox.repo, 'log', '-1', '--format=%s', `hydra/${handle.runId}/claude`).trim()).toBe(
      'hydra: claude result (completed): fix this  now',
    );
    const result = await handle.merge('claude', { squash: true });
    expect(result.method).toBe('squash');
    expect(readFileSync(path.join(sandbox.repo, 'hello.txt'), 'utf8')).toBe('from claude\n');
  });
});

describe("an agent that switches its worktree to one of the user's branches", () => {
  it("gets its result committed on its own branch; the user's branch does not move", async () => {
    sandbox = makeSandbox();
    git(sandbox.repo, 'branch', 'user-feature');
    const userTip = git(sandbox.repo, 'rev-parse', 'user-feature').trim();
    await installAgents(sandbox, { claude: edit('hello.txt', 'from claude\n') });
    // The agent's first act (not its probes): `git checkout user-feature` in its worktree.
    const wrapper = path.join(sandbox.bin, 'claude');
    const text = readFileSync(wrapper, 'utf8').replace(
      /^exec /m,
      'case "$*" in *--version*|*--help*) ;; *) git checkout -q user-feature ;; esac\nexec ',
    );
    writeFileSync(wrapper, text);
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    const summary = await handle.settled;
    expect(summary.agents[0]).toMatchObject({ status: 'completed', diff: { filesChanged: 1 } });
    expect(git(sandbox.repo, 'rev-parse', 'user-feature').trim()).toBe(userTip);
    expect(git(sandbox.repo, 'show', `hydra/${handle.runId}/claude:hello.txt`)).toBe('from claude\n');
  });
});

describe('a worktree root inside the repository', () => {
  it('is refused before anything is created, naming the fix', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {} });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude')], { worktreeRoot: path.join(sandbox.repo, 'wt') }),
    );
    const summary = await handle.settled;
    expect(summary.error).toMatchObject({
      kind: 'InvalidConfig',
      hint: expect.stringContaining('HYDRA_WORKTREE_ROOT'),
    });
    expect(summary.error?.message).toContain('is inside the repository');
    expect(existsSync(path.join(sandbox.repo, 'wt'))).toBe(false);
    expect(git(sandbox.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git(sandbox.repo, 'status', '--porcelain')).toBe('');
  });
});
