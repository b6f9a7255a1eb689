/**
 * The namespace's init (a /bin/sh script in containment.ts) must report how an agent ended exactly
 * as a process-group spawn does: the same exit code, the same signal, the same spawn errors, the
 * same arguments, the same program. Each case runs under both containments and compares.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  activeContainment,
  createProcessRegistry,
  spawnSupervised,
  startChild,
} from '../../../../src/engine/process/index.js';
import { containedCommand } from '../../../../src/engine/process/containment.js';
import type { Containment } from '../../../../src/engine/process/index.js';
import { liveProcesses } from '../../../support/engine-helpers.js';

let dir: string;
let bin: string;

const GROUP: Containment = { kind: 'process-group', reason: 'test' };
const containments = (): Array<[string, Containment]> => {
  const active = activeContainment();
  return active.kind === 'pid-namespace'
    ? [
        ['pid-namespace', active],
        ['process-group', GROUP],
      ]
    : [];
};

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hydra-containment-'));
  bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const script = (name: string, body: string, mode = 0o755): void => {
    writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(path.join(bin, name), mode);
  };
  script('exit-3', 'echo out; exit 3');
  // What a wrapper script returns when the program it ran crashed (128 + SIGSEGV).
  script('exit-139', 'echo out; exit 139');
  script('segfault', 'echo out; kill -SEGV $$');
  script('args', 'for a in "$@"; do printf "<%s>\\n" "$a"; done');
  // A program on the agent's PATH named like a shell builtin: the init must run the program.
  script('echo', 'printf "the echo on PATH: %s\\n" "$*"');
  script('not-executable', 'exit 0', 0o644);
  script('hang', 'echo ready; while :; do sleep 1; done');
  script('hang-no-term', 'trap "" TERM; echo ready; while :; do sleep 1; done');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  lines: string[];
  exitCode: number | null;
  signal: string | null;
  spawnError: string | undefined;
}

const run = async (
  containment: Containment,
  file: string,
  args: string[] = [],
  stop?: 'terminate' | 'kill',
): Promise<Outcome> => {
  const processes = createProcessRegistry();
  const lines: string[] = [];
  let onLine = (): void => undefined;
  const firstLine = new Promise<void>((resolve) => {
    onLine = resolve;
  });
  const child = spawnSupervised(
    {
      file,
      args,
      cwd: dir,
      env: { PATH: `${bin}:/usr/bin:/bin` },
      runId: `containment-test-${String(process.pid)}`,
      agent: 'probe',
    },
    {
      onSpawn: () => undefined,
      onLine: (line) => {
        lines.push(line);
        onLine();
      },
      onOversizeLine: () => undefined,
    },
    processes,
    containment,
  );
  if (stop !== undefined) {
    await firstLine;
    if (stop === 'terminate') child.terminate();
    else child.kill();
  }
  const exit = await child.exited;
  processes.dispose();
  return { lines, exitCode: exit.exitCode, signal: exit.signal, spawnError: exit.spawnError };
};

describe('the namespace init reports what a plain spawn reports', () => {
  it('runs on this machine in a PID namespace (the cases below compare it with a process group)', () => {
    expect(containments().map(([name]) => name)).toEqual(['pid-namespace', 'process-group']);
  });

  it.each([
    ['an exit code', 'exit-3', [] as string[]],
    ['a death by a signal hydra did not send (a crash)', 'segfault', [] as string[]],
    [
      'arguments with quotes, a leading dash, $(...), a newline and an empty one',
      'args',
      ['--flag', `it's "quoted"`, '$(touch pwned)', 'two\nlines', '', '-'],
    ],
    ['a bare name that a shell builtin shares, found on the agent PATH', 'echo', ['hello']],
  ])('%s', async (_case, name, args) => {
    const outcomes = [];
    for (const [, containment] of containments())
      outcomes.push(await run(containment, name === 'echo' ? 'echo' : path.join(bin, name), args));
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(outcomes[0]?.spawnError).toBeUndefined();
    if (name === 'exit-3') expect(outcomes[0]).toMatchObject({ exitCode: 3, signal: null, lines: ['out'] });
    if (name === 'segfault') expect(outcomes[0]).toMatchObject({ exitCode: null, signal: 'SIGSEGV' });
    if (name === 'echo') expect(outcomes[0]?.lines).toEqual(['the echo on PATH: hello']);
    if (name === 'args')
      expect(outcomes[0]?.lines.join('\n')).toBe(
        '<--flag>\n<it\'s "quoted">\n<$(touch pwned)>\n<two\nlines>\n<>\n<->',
      );
  });

  it('an exit with 128+N, which a shell cannot tell from a death by signal N: read as the signal', async () => {
    const [namespace, group] = containments();
    expect(await run(namespace![1], path.join(bin, 'exit-139'))).toMatchObject({
      exitCode: null,
      signal: 'SIGSEGV',
    });
    expect(await run(group![1], path.join(bin, 'exit-139'))).toMatchObject({ exitCode: 139, signal: null });
  });

  it.each(['terminate', 'kill'] as const)('a death by signal (%s)', async (stop) => {
    for (const [name, containment] of containments()) {
      const outcome = await run(containment, path.join(bin, 'hang'), [], stop);
      expect({ name, ...outcome }).toMatchObject({
        name,
        exitCode: null,
        signal: stop === 'terminate' ? 'SIGTERM' : 'SIGKILL',
      });
    }
  });

  it.each([
    ['a missing file', () => path.join(bin, 'missing'), 'ENOENT'],
    ['a bare name on no PATH folder', () => 'no-such-agent-cli', 'ENOENT'],
    ['a file without the execute bit', () => path.join(bin, 'not-executable'), 'EACCES'],
  ])('a spawn error: %s', async (_case, file, code) => {
    for (const [name, containment] of containments()) {
      const outcome = await run(containment, file());
      expect({ name, spawnError: outcome.spawnError }).toEqual({
        name,
        spawnError: expect.stringContaining(code) as string,
      });
      expect(outcome.spawnError).toContain(file());
    }
  });
});

describe('the containment check', () => {
  it('decides the same without blocking (a race starts it early) as on first use', async () => {
    vi.resetModules();
    const early = await import('../../../../src/engine/process/containment.js');
    const prepared = await early.prepareContainment();
    expect(early.activeContainment()).toBe(prepared);
    vi.resetModules();
    const onFirstUse = await import('../../../../src/engine/process/containment.js');
    expect(onFirstUse.activeContainment()).toEqual(prepared);
    expect(prepared.kind).toBe('pid-namespace');
  });
});

describe('the namespace init as a watchdog', () => {
  /** Processes whose command line holds `token` (the agents below, by the folder they run from). */
  const running = (token: string): number[] => liveProcesses((cmdline) => cmdline.includes(token));

  it.each(['hang', 'hang-no-term'])(
    'stops the agent (%s) once the other end of its lifeline is gone, as when hydra is killed -9',
    async (name) => {
      const containment = activeContainment();
      const statusDir = mkdtempSync(path.join(os.tmpdir(), 'hydra-lifeline-'));
      const command = containedCommand(
        containment,
        path.join(bin, name),
        [],
        path.join(statusDir, 'exit.json'),
        process.env,
        300,
      );
      const child = startChild(command.file, command.args, {
        env: process.env,
        detached: true,
        lifeline: true,
      });
      await new Promise<void>((resolve) => child.process.stdout?.once('data', () => resolve()));
      expect(running(path.join(bin, name))).not.toEqual([]);

      // What the kernel does when hydra dies: its end of the pipe is closed.
      child.process.stdio[3]?.destroy();
      const ended = await child.result;
      expect(ended.exitCode).toBe(name === 'hang' ? 143 : 137);
      expect(running(path.join(bin, name))).toEqual([]);
      rmSync(statusDir, { recursive: true, force: true });
    },
  );
});
