/**
 * Issue 10.7: a merge that cannot finish writing (a full disk, a directory it may not write) puts
 * the user's working tree and index back exactly as they were and says what happened; a merge
 * that would not fit is refused before it starts. The repository lives on a real small file
 * system (a tmpfs mounted by the test: CI runs as root); the agent's change grows on checkout
 * (`text eol=crlf` doubles its newlines), so it passes the free-space check and then hits ENOSPC
 * half-way, after git has already deleted, rewritten and created other files.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../src/engine/index.js';
import type { RaceHandle } from '../../../src/engine/index.js';
import {
  agentStatus,
  git,
  installAgents,
  makeSandbox,
  plan,
  raceOptions,
  waitForSnapshot,
} from '../../support/engine-helpers.js';
import type { Sandbox } from '../../support/engine-helpers.js';
import {
  captureUserState,
  expectNoProcessOfRun,
  expectRecordsReadable,
  expectUserStateUnchanged,
  hydraBranches,
} from '../../support/fault-invariants.js';

/** The big file's size in the repository; on disk (CRLF) it takes twice that. */
const BIG = 600 * 1024;

let sandbox: Sandbox;
let mountPoint: string | null = null;
let handle: RaceHandle | null = null;
const cleanups: Array<() => void> = [];

beforeEach(() => {
  sandbox = makeSandbox({ commit: false });
});

afterEach(async () => {
  await handle?.finish().catch(() => undefined);
  handle = null;
  for (const undo of cleanups.splice(0).reverse()) undo();
  if (mountPoint !== null) execFileSync('umount', ['-l', mountPoint]);
  mountPoint = null;
  sandbox.cleanup();
});

/** Mounts a 4 MiB tmpfs and returns it (the test runs as root in CI; mount errors fail the test). */
const smallFileSystem = (): string => {
  const dir = path.join(sandbox.dir, 'small-fs');
  mkdirSync(dir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir]);
  mountPoint = dir;
  return dir;
};

/** A repository (on `parent`) whose agent result adds, modifies and deletes files, and grows on checkout. */
async function raceToReview(parent: string): Promise<{ repo: string; handle: RaceHandle }> {
  const repo = path.join(parent, 'repo');
  mkdirSync(repo, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, '.gitattributes'), 'z-big.txt text eol=crlf\n');
  writeFileSync(path.join(repo, 'app.txt'), 'line 1\nline 2\n');
  writeFileSync(path.join(repo, 'b-deleted.txt'), 'to be deleted\n');
  mkdirSync(path.join(repo, 'locked'));
  writeFileSync(path.join(repo, 'locked', 'keep.txt'), 'kept\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'init');
  // An uncommitted change of the user's elsewhere: it must survive every outcome.
  writeFileSync(path.join(repo, 'notes.txt'), 'my own notes\n');
  await installAgents(sandbox, {
    claude: {
      edits: [
        { path: 'a-new.txt', content: 'new\n' },
        { path: 'app.txt', content: 'line 1 changed\nline 2\n' },
        { path: 'b-deleted.txt', content: '', remove: true },
        { path: 'deep/er/new.txt', content: 'deep\n' },
        { path: 'locked/new.txt', content: 'in a locked directory\n' },
        { path: 'z-big.txt', content: '\n'.repeat(BIG) },
      ],
    },
  });
  const started = startRace({ ...raceOptions(sandbox, [plan(sandbox, 'claude')]), repoPath: repo });
  const snapshot = await waitForSnapshot(started, (next) => next.phase === 'reviewing', 30_000);
  expect(agentStatus(snapshot, 'claude')).toBe('completed');
  return { repo, handle: started };
}

/** Fills the file system until `free` bytes are left. */
const leaveFree = (fsDir: string, free: number): void => {
  const filler = path.join(fsDir, 'filler');
  rmSync(filler, { force: true });
  const stats = statfsSync(fsDir);
  const available = stats.bavail * stats.bsize;
  writeFileSync(filler, Buffer.alloc(Math.max(0, available - free)));
};

describe('a merge on a full disk', () => {
  it('is refused before anything changes when the change does not fit', async () => {
    const fsDir = smallFileSystem();
    const race = await raceToReview(fsDir);
    handle = race.handle;
    const before = captureUserState(race.repo);
    leaveFree(fsDir, 300 * 1024);

    await expect(handle.merge('claude')).rejects.toThrow(/Not enough free space to merge/);

    expectUserStateUnchanged(race.repo, before);
    // Room made: the same merge now goes through.
    rmSync(path.join(fsDir, 'filler'));
    await expect(handle.merge('claude')).resolves.toMatchObject({ method: 'fast-forward' });
  });

  it('that runs out of space half-way puts the working tree and index back exactly, and says so', async () => {
    const fsDir = smallFileSystem();
    const race = await raceToReview(fsDir);
    handle = race.handle;
    const before = captureUserState(race.repo);
    // Enough for the estimate (600 KiB of blobs and slack), not for the 1.2 MiB the checkout writes.
    leaveFree(fsDir, 1000 * 1024);

    const failure = await handle.merge('claude').then(
      () => null,
      (error: unknown) => error as Error & { hint: string },
    );

    expectUserStateUnchanged(race.repo, before);
    expect(failure?.message).toMatch(/Merging claude's result failed while updating your working tree/);
    expect(failure?.message).toMatch(/z-big\.txt|space|diskspace/i);
    expect(failure?.hint).toMatch(/put back exactly as they were; nothing was merged/);
    // A retry is not refused as "dirty": once there is room it merges.
    rmSync(path.join(fsDir, 'filler'));
    await expect(handle.merge('claude')).resolves.toMatchObject({ method: 'fast-forward' });
    expect(git(race.repo, 'status', '--porcelain')).toBe('?? notes.txt\n');
    await handle.finish();
    handle = null;
    expect(hydraBranches(race.repo)).toEqual([]);
    expectRecordsReadable(race.repo);
  });
});

describe('a merge that cannot write a directory', () => {
  it('puts the working tree and index back exactly, whatever git wrote before it failed', async () => {
    const race = await raceToReview(path.join(sandbox.dir, 'plain'));
    handle = race.handle;
    const before = captureUserState(race.repo);
    const locked = path.join(race.repo, 'locked');
    // Root ignores permissions, but not the immutable attribute.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) execFileSync('chattr', ['+i', locked]);
    else execFileSync('chmod', ['0555', locked]);
    cleanups.push(() => {
      if (asRoot) execFileSync('chattr', ['-i', locked]);
      else execFileSync('chmod', ['0755', locked]);
    });

    const failure = await handle.merge('claude').then(
      () => null,
      (error: unknown) => error as Error,
    );

    expectUserStateUnchanged(race.repo, before);
    expect(failure?.message).toMatch(
      /Merging claude's result failed while updating your working tree.*locked\/new\.txt/s,
    );
    for (const undo of cleanups.splice(0).reverse()) undo();
    await expect(handle.merge('claude')).resolves.toMatchObject({ method: 'fast-forward' });
    await handle.finish();
    expectNoProcessOfRun(handle.runId);
    handle = null;
  });
});
