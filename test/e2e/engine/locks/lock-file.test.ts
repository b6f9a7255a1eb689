/**
 * The lock file itself (src/engine/locks/lock-file.ts): one holder at a time, a live holder named,
 * a dead one's lock taken over once, and a lock released only by the taking that made it. The
 * holder is told from a process that got its pid since by its start time, read from /proc on
 * Linux and from ps where there is none (run both ways: test/support/portable.ts).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, readHolder, tryLock } from '../../../../src/engine/locks/index.js';
import type { HeldLock, LockHolder } from '../../../../src/engine/locks/index.js';
import { processInfo } from '../../../../src/engine/process/index.js';
import { earlierStart, inProcessWay, WAYS } from '../../../support/portable.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hydra-lock-test-'));
  file = path.join(dir, 'locks', 'run-x.lock');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const held = (result: ReturnType<typeof tryLock>): HeldLock => {
  if (!('release' in result)) throw new Error(`busy: ${JSON.stringify(result.busy)}`);
  return result;
};

const busy = (result: ReturnType<typeof tryLock>): LockHolder | null => {
  if ('release' in result) throw new Error('taken, but expected busy');
  return result.busy;
};

/** A process that has exited: its pid is free (or reused, with another start time). */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('a lock file', () => {
  it('has one holder; the second taker is told who, and gets it once released', () => {
    const first = held(tryLock(file, 'hydra merge r claude'));
    expect(busy(tryLock(file, 'hydra merge r codex'))).toMatchObject({
      pid: process.pid,
      command: 'hydra merge r claude',
    });
    first.release();
    expect(existsSync(file)).toBe(false);
    held(tryLock(file, 'hydra merge r codex')).release();
  });

  it('is taken over from a holder that is gone', async () => {
    mkdirSync(path.dirname(file), { recursive: true });
    const dead = { pid: await deadPid(), startTime: null, command: 'hydra continue', since: '', nonce: 'a' };
    writeFileSync(file, JSON.stringify(dead));
    const lock = held(tryLock(file, 'hydra merge'));
    expect(readHolder(file)).toMatchObject({ pid: process.pid, command: 'hydra merge' });
    lock.release();
  });

  it('that cannot be read is busy while it may be being written, and stale after a few seconds', () => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '');
    expect(busy(tryLock(file, 'hydra merge'))).toBeNull();
    const old = new Date(Date.now() - 60_000);
    utimesSync(file, old, old);
    held(tryLock(file, 'hydra merge')).release();
  });

  it('left by a taker that died mid-takeover is taken over once that is stale', () => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({ pid: 999_999_999, startTime: null, command: 'x', since: '', nonce: 'a' }),
    );
    mkdirSync(`${file}.takeover`);
    expect(busy(tryLock(file, 'hydra merge'))).toBeNull();
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.takeover`, old, old);
    // The stale takeover is cleared on one try and the lock taken on the next.
    expect(busy(tryLock(file, 'hydra merge'))).toBeNull();
    held(tryLock(file, 'hydra merge')).release();
  });

  it('is released only by the taking that made it', () => {
    const first = held(tryLock(file, 'one'));
    // Someone took it over meanwhile (as if this process had been thought dead).
    const other = { pid: process.pid, startTime: null, command: 'two', since: '', nonce: 'other' };
    writeFileSync(file, JSON.stringify(other));
    first.release();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ nonce: 'other' });
  });

  it('waits for its holder, then refuses with what the holder is', async () => {
    const first = held(tryLock(file, 'hydra continue r claude'));
    const refused = acquireLock({
      file,
      command: 'hydra merge',
      waitMs: 200,
      refuse: (holder) => new Error(`held by ${holder?.command}`),
    });
    await expect(refused).rejects.toThrow('held by hydra continue r claude');
    setTimeout(() => first.release(), 100);
    const second = await acquireLock({
      file,
      command: 'hydra merge',
      waitMs: 5000,
      refuse: () => new Error('no'),
    });
    second.release();
  });

  it('goes when the process exits without releasing it (process.exit skips finally blocks)', async () => {
    const repo = path.join(dir, 'repo');
    execFileSync('git', ['init', '-q', repo]);
    const script = `
      import { lockRun } from ${JSON.stringify(path.resolve('dist/engine/index.js'))};
      await lockRun(${JSON.stringify(repo)}, 'r', 'child');
      process.exit(3);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(3);
    expect(existsSync(path.join(repo, '.git', 'hydra', 'locks'))).toBe(true);
    expect(existsSync(path.join(repo, '.git', 'hydra', 'locks', 'run-r.lock'))).toBe(false);
  });
});

describe.each(WAYS)('a lock whose pid names another process now ($way)', ({ env }) => {
  inProcessWay(env);

  const holding = (startTime: string): LockHolder => ({
    pid: process.pid,
    startTime,
    command: 'hydra continue',
    since: '',
    nonce: 'a',
  });

  it('is busy while the process with that pid is the one that took it (the same start time)', () => {
    const now = processInfo(process.pid)?.startTime ?? '';
    expect(now).toMatch(/^s?\d+$/);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(holding(now)));
    expect(busy(tryLock(file, 'hydra merge'))).toMatchObject({ pid: process.pid, nonce: 'a' });
  });

  it('is taken over when that pid started after the lock was taken (a reused pid)', () => {
    const now = processInfo(process.pid)?.startTime ?? '';
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(holding(earlierStart(now))));
    const lock = held(tryLock(file, 'hydra merge'));
    expect(readHolder(file)).toMatchObject({ pid: process.pid, command: 'hydra merge', startTime: now });
    lock.release();
  });
});
