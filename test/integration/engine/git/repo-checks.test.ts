import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectRepo, startRace } from '../../../../src/engine/index.js';
import type { RaceHandle } from '../../../../src/engine/index.js';
import { git, installAgents, makeSandbox, plan, raceOptions } from '../../../support/engine-helpers.js';
import type { Sandbox } from '../../../support/engine-helpers.js';

let sandbox: Sandbox;
let handle: RaceHandle | null = null;

afterEach(async () => {
  await handle?.cancel();
  handle = null;
  sandbox.cleanup();
});

const untouched = (): void => {
  expect(git(sandbox.repo, 'branch', '--list', 'hydra/*').trim()).toBe('');
  expect(git(sandbox.repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  expect(existsSync(sandbox.worktreeRoot)).toBe(false);
  expect(existsSync(path.join(sandbox.repo, '.hydra'))).toBe(false);
};

describe('checking the repository', () => {
  it('refuses a directory that is not a git repository', async () => {
    sandbox = makeSandbox();
    const plain = path.join(sandbox.dir, 'plain');
    mkdirSync(plain);
    await installAgents(sandbox, { claude: {} });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')], { repoPath: plain }));
    const summary = await handle.settled;
    expect(handle.getSnapshot().phase).toBe('failed');
    expect(summary.error?.message).toMatch(/is not inside a git repository/);
    expect(summary.error?.hint).toMatch(/git init/);
  });

  it('refuses a repository with no commits', async () => {
    sandbox = makeSandbox({ commit: false });
    await installAgents(sandbox, { claude: {} });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    const summary = await handle.settled;
    expect(summary.error?.message).toMatch(/no commits yet/);
    expect(git(sandbox.repo, 'branch', '--list').trim()).toBe('');
  });

  it('races on a detached HEAD with a warning, and refuses only the merge, saying how to make a branch', async () => {
    sandbox = makeSandbox();
    git(sandbox.repo, 'switch', '-q', '--detach', 'HEAD');
    const head = git(sandbox.repo, 'rev-parse', 'HEAD').trim();
    await installAgents(sandbox, { claude: {} });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    const summary = await handle.settled;
    expect(summary.error ?? null).toBeNull();
    expect(summary.agents[0]?.status).toBe('completed');
    expect(handle.getSnapshot().baseBranch).toBeNull();
    expect(handle.getSnapshot().warnings.join('\n')).toMatch(
      /HEAD is detached.*only be merged into a branch/,
    );

    await expect(handle.merge('claude')).rejects.toThrow(/started on a detached HEAD/);
    await expect(handle.merge('claude')).rejects.toMatchObject({
      hint: expect.stringContaining(`git switch -c <new-branch> ${head.slice(0, 12)}`) as unknown,
    });
    expect(git(sandbox.repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(git(sandbox.repo, 'branch', '--list', 'hydra/*').trim()).not.toBe('');
  });

  it('warns about uncommitted changes, which the agents do not see, and races anyway', async () => {
    sandbox = makeSandbox();
    writeFileSync(path.join(sandbox.repo, 'wip.txt'), 'work in progress\n');
    await installAgents(sandbox, { claude: {} });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    const summary = await handle.settled;
    expect(summary.agents[0]?.status).toBe('completed');
    expect(handle.getSnapshot().warnings.join('\n')).toMatch(/1 uncommitted change.*do not see them/);
    expect(existsSync(path.join(handle.getSnapshot().agents[0]!.worktree!, 'wip.txt'))).toBe(false);
  });

  it('inspectRepo describes the repository for doctor', async () => {
    sandbox = makeSandbox();
    writeFileSync(path.join(sandbox.repo, 'wip.txt'), 'x\n');
    const info = await inspectRepo(path.join(sandbox.repo));
    expect(info).toMatchObject({
      isRepo: true,
      branch: 'main',
      detached: false,
      hasCommits: true,
      dirtyFiles: 1,
      problems: [],
    });
    expect(info.gitVersion).toMatch(/^\d+\.\d+/);
  });

  it('inspectRepo from a subdirectory (where git is asked) reads the whole repository as from its root', async () => {
    sandbox = makeSandbox();
    mkdirSync(path.join(sandbox.repo, 'deep', 'er'), { recursive: true });
    writeFileSync(path.join(sandbox.repo, 'deep', 'er', 'new.txt'), 'x\n');
    writeFileSync(path.join(sandbox.repo, 'README.md'), 'changed\n');
    mkdirSync(path.join(sandbox.repo, 'other'));
    writeFileSync(path.join(sandbox.repo, 'other', 'elsewhere.txt'), 'y\n');
    git(sandbox.repo, 'switch', '-q', '-c', 'topic');
    const fromRoot = await inspectRepo(sandbox.repo);
    const fromBelow = await inspectRepo(path.join(sandbox.repo, 'deep', 'er'));
    expect(fromBelow).toEqual(fromRoot);
    expect(fromBelow).toMatchObject({ branch: 'topic', dirtyFiles: 3, problems: [] });
    expect(fromBelow.head).toBe(git(sandbox.repo, 'rev-parse', 'HEAD').trim());
    git(sandbox.repo, 'switch', '-q', '--detach', 'HEAD');
    expect(await inspectRepo(path.join(sandbox.repo, 'other'))).toMatchObject({
      branch: null,
      detached: true,
    });
  });
});

describe('tiered enablement', () => {
  it('stops before touching git when no adapter is usable, with each reason', async () => {
    sandbox = makeSandbox();
    const missing = path.join(sandbox.dir, 'nowhere');
    handle = startRace(
      raceOptions(sandbox, [
        plan(sandbox, 'claude', { binary: path.join(missing, 'claude') }),
        plan(sandbox, 'codex', { binary: path.join(missing, 'codex') }),
      ]),
    );
    const summary = await handle.settled;
    expect(handle.getSnapshot().phase).toBe('failed');
    expect(summary.error?.message).toMatch(/No usable agent/);
    expect(summary.error?.message).toMatch(/Claude/);
    expect(summary.error?.message).toMatch(/Codex/);
    expect(summary.error?.hint).toMatch(/hydra doctor/);
    expect(summary.agents.map((agent) => agent.status)).toEqual(['skipped', 'skipped']);
    untouched();
  });

  it('leaves an experimental adapter out without the opt-in, and races the rest', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {}, cursor: {} });
    handle = startRace(
      raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'cursor')], { allowExperimental: false }),
    );
    const summary = await handle.settled;
    expect(summary.agents.map((agent) => [agent.agent, agent.status])).toEqual([
      ['claude', 'completed'],
      ['cursor', 'skipped'],
    ]);
    expect(git(sandbox.repo, 'branch', '--list', `hydra/${handle.runId}/cursor`).trim()).toBe('');
  });

  it('treats a failing experimental probe as a warning and races the rest', async () => {
    sandbox = makeSandbox();
    await installAgents(sandbox, { claude: {} });
    handle = startRace(
      raceOptions(sandbox, [
        plan(sandbox, 'claude'),
        plan(sandbox, 'cursor', { binary: path.join(sandbox.dir, 'no-cursor') }),
      ]),
    );
    const summary = await handle.settled;
    expect(summary.agents.map((agent) => [agent.agent, agent.status])).toEqual([
      ['claude', 'completed'],
      ['cursor', 'skipped'],
    ]);
    expect(handle.getSnapshot().warnings.some((warning) => warning.includes('Cursor'))).toBe(true);
    expect(handle.getSnapshot().error).toBeNull();
  });
});
