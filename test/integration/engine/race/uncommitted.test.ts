/**
 * The user's uncommitted work (staged, unstaged, untracked, a CRLF file, a binary file) must
 * survive every path a race can take, byte for byte.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRace } from '../../../../src/engine/index.js';
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

const USER_FILES = ['README.md', 'app.txt', 'notes/todo.txt', 'crlf.txt', 'tracked-crlf.txt', 'blob.bin'];

interface WorkState {
  bytes: Record<string, string>;
  staged: string;
  unstaged: string;
  untracked: string;
}

/** Makes uncommitted changes of every kind; tracked-crlf.txt is committed first. */
function makeUncommittedWork(repo: string): void {
  writeFileSync(path.join(repo, 'tracked-crlf.txt'), 'one\r\ntwo\r\n');
  git(repo, 'add', 'tracked-crlf.txt');
  git(repo, 'commit', '-q', '-m', 'crlf file');
  writeFileSync(path.join(repo, 'README.md'), '# test repo\nstaged edit\n');
  git(repo, 'add', 'README.md');
  writeFileSync(path.join(repo, 'app.txt'), 'line 1\nline 2\nunstaged edit\n');
  writeFileSync(path.join(repo, 'tracked-crlf.txt'), 'one\r\ntwo\r\nthree (unstaged)\r\n');
  const notes = path.join(repo, 'notes');
  writeFileSync(path.join(repo, 'crlf.txt'), 'windows\r\nline endings\r\n');
  writeFileSync(path.join(repo, 'blob.bin'), randomBytes(4096));
  mkdirSync(notes);
  writeFileSync(path.join(notes, 'todo.txt'), 'untracked in a new directory\n');
}

function workState(repo: string): WorkState {
  const bytes: Record<string, string> = {};
  for (const file of USER_FILES) bytes[file] = readFileSync(path.join(repo, file)).toString('base64');
  return {
    bytes,
    staged: git(repo, 'diff', '--cached', '--binary', '--', 'README.md', 'app.txt', 'tracked-crlf.txt'),
    unstaged: git(repo, 'diff', '--binary', '--', 'README.md', 'app.txt', 'tracked-crlf.txt'),
    untracked: git(repo, 'ls-files', '--others', '--exclude-standard'),
  };
}

const raceAndSettle = async (scenarios: { claude?: object; codex?: object } = {}): Promise<RaceHandle> => {
  await installAgents(sandbox, {
    claude: { edits: [{ path: 'hello.txt', content: 'from claude\n' }], ...scenarios.claude },
    codex: { edits: [{ path: 'src/new.txt', content: 'from codex\n' }], ...scenarios.codex },
  });
  const started = startRace(raceOptions(sandbox, [plan(sandbox, 'claude'), plan(sandbox, 'codex')]));
  await started.settled;
  return started;
};

describe("the user's uncommitted changes survive byte for byte", () => {
  it('through a race and its end without a merge', async () => {
    sandbox = makeSandbox();
    makeUncommittedWork(sandbox.repo);
    const before = workState(sandbox.repo);
    handle = await raceAndSettle();
    expect(workState(sandbox.repo)).toEqual(before);
    await handle.finish();
    expect(workState(sandbox.repo)).toEqual(before);
  });

  it('through a cancelled race', async () => {
    sandbox = makeSandbox();
    makeUncommittedWork(sandbox.repo);
    const before = workState(sandbox.repo);
    await installAgents(sandbox, { claude: { hangAfterLines: 1 } });
    handle = startRace(raceOptions(sandbox, [plan(sandbox, 'claude')]));
    await new Promise<void>((resolve) => {
      const stop = handle!.subscribe((snapshot) => {
        if (snapshot.agents[0]?.lastOutputAt !== null) {
          stop();
          resolve();
        }
      });
    });
    await handle.cancel();
    expect(workState(sandbox.repo)).toEqual(before);
  });

  it('through a fast-forward merge', async () => {
    sandbox = makeSandbox();
    makeUncommittedWork(sandbox.repo);
    const before = workState(sandbox.repo);
    handle = await raceAndSettle();
    const result = await handle.merge('claude');
    expect(result.method).toBe('fast-forward');
    expect(readFileSync(path.join(sandbox.repo, 'hello.txt'), 'utf8')).toBe('from claude\n');
    expect(workState(sandbox.repo)).toEqual(before);
  });

  it('through a merge commit', async () => {
    sandbox = makeSandbox();
    makeUncommittedWork(sandbox.repo);
    handle = await raceAndSettle();
    writeFileSync(path.join(sandbox.repo, 'later.txt'), 'later\n');
    git(sandbox.repo, 'add', 'later.txt');
    git(sandbox.repo, 'commit', '-q', '-m', 'later', '--', 'later.txt');
    const before = workState(sandbox.repo);
    const result = await handle.merge('codex');
    expect(result.method).toBe('merge-commit');
    expect(readFileSync(path.join(sandbox.repo, 'src/new.txt'), 'utf8')).toBe('from codex\n');
    expect(workState(sandbox.repo)).toEqual(before);
  });

  it('through a squash merge', async () => {
    sandbox = makeSandbox();
    makeUncommittedWork(sandbox.repo);
    const before = workState(sandbox.repo);
    handle = await raceAndSettle();
    await handle.merge('codex', { squash: true });
    expect(workState(sandbox.repo)).toEqual(before);
  });

  it('through a refused merge', async () => {
    sandbox = makeSandbox();
    makeUncommittedWork(sandbox.repo);
    handle = await raceAndSettle({
      claude: { edits: [{ path: 'app.txt', content: 'the agent rewrote app.txt\n' }] },
    });
    const before = workState(sandbox.repo);
    await expect(handle.merge('claude')).rejects.toThrow(/app\.txt/);
    expect(workState(sandbox.repo)).toEqual(before);
  });
});
