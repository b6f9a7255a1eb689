/**
 * Runs one agent CLI under supervision: argument array, stdin ignored (or a file), its own process
 * group, stdout split into bounded lines, stderr kept as a bounded tail. Stopping is SIGTERM to the
 * group, then SIGKILL (the caller schedules the grace period). When the agent's main process exits,
 * whatever it left behind in its group, or anywhere with its run marker, is killed too: after an
 * agent, nothing it started is left running. Where the machine allows, the agent also runs in a
 * PID namespace of its own (containment.ts), which takes even a process that left the group and
 * cleared its environment down with it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentName } from '../types.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, TailBuffer } from './line-splitter.js';
import { activeContainment, containedCommand } from './containment.js';
import type { Containment, InitStatus } from './containment.js';
import type { ProcessRegistry } from './process-registry.js';
import { startChild } from './child.js';
import { watchdogWanted } from './watchdog.js';
import { trace } from '../../trace.js';
import { AGENT_ENV, RUN_ID_ENV, processesOfRun, signalGroup, waitForGroupExit } from './process-table.js';

export interface SpawnSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  stdinFile?: string;
  runId: string;
  agent: AgentName;
  maxLineBytes?: number;
  stderrTailBytes?: number;
  /** Between SIGTERM and SIGKILL when the namespace's init stops the agent after hydra died. */
  graceMs?: number;
}

export interface SupervisorCallbacks {
  onSpawn(pid: number): void;
  onLine(line: string): void;
  onOversizeLine(bytes: number, head: string): void;
}

export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
  stderrTail: string;
  /** Set when the process could not be started (ENOENT, EACCES...). */
  spawnError?: string;
}

export interface Supervised {
  readonly pid: number | undefined;
  /** SIGTERM to the group (or as soon as it exists). */
  terminate(): void;
  /** SIGKILL to the group. */
  kill(): void;
  readonly hasExited: () => boolean;
  readonly exited: Promise<ProcessExit>;
}

/** How long to wait for stdout/stderr to close once the group is dead before giving up on them. */
const STREAM_CLOSE_TIMEOUT_MS = 2000;
/** How long to wait for a killed group to have nothing left running. */
const GROUP_EXIT_LIMIT_MS = 3000;

const killStragglers = (spec: SpawnSpec, pgid: number | undefined): void => {
  if (pgid !== undefined) signalGroup(pgid, 'SIGKILL');
  for (const pid of processesOfRun(spec.runId, spec.agent)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};

/** Where the namespace's init writes how the agent ended; null without a namespace. */
const statusFileFor = (containment: Containment): string | null =>
  containment.kind === 'pid-namespace'
    ? path.join(mkdtempSync(path.join(os.tmpdir(), 'hydra-agent-')), 'exit.json')
    : null;

/** How the agent itself ended, as the namespace's init saw it (null when it did not say). */
const readInitStatus = (statusFile: string | null): InitStatus | null => {
  if (statusFile === null) return null;
  try {
    return JSON.parse(readFileSync(statusFile, 'utf8')) as InitStatus;
  } catch {
    return null;
  } finally {
    rmSync(path.dirname(statusFile), { recursive: true, force: true });
  }
};

/**
 * How the agent ended, from the init's status (containment.ts). A shell reports a death by signal N
 * as 128+N, which an exit with that code also is; it is read as the signal (a crash, the OOM
 * killer, hydra's own stop all end that way, and a user wants the signal named). An agent that
 * exits 128+N itself, as a wrapper script does after what it ran died of signal N, reads the same.
 */
const initExit = (init: InitStatus): { exitCode: number | null; signal: string | null } => {
  const code = typeof init.exitCode === 'number' ? init.exitCode : null;
  const signal =
    code !== null && code > 128
      ? Object.entries(os.constants.signals).find(([, number]) => number === code - 128)?.[0]
      : undefined;
  return signal === undefined ? { exitCode: code, signal: null } : { exitCode: null, signal };
};

/**
 * `processes` is the registry of the race the agent belongs to: it kills the group if hydra goes
 * away. `containment` defaults to what this machine allows (activeContainment).
 */
export function spawnSupervised(
  spec: SpawnSpec,
  callbacks: SupervisorCallbacks,
  processes: ProcessRegistry,
  containment: Containment = activeContainment(),
): Supervised {
  trace(`agent ${spec.agent}: spawning (${containment.kind})`);
  const statusFile = statusFileFor(containment);
  // The namespace's init stops the agent if hydra dies, as the race's watchdog does
  // (HYDRA_WATCHDOG=0 turns off both).
  const lifeline = statusFile !== null && watchdogWanted();
  const env = { ...process.env, ...spec.env, [RUN_ID_ENV]: spec.runId, [AGENT_ENV]: spec.agent };
  const command =
    statusFile === null
      ? { file: spec.file, args: [...spec.args] }
      : containedCommand(
          containment,
          spec.file,
          spec.args,
          statusFile,
          env,
          lifeline ? (spec.graceMs ?? 5000) : null,
        );
  const child = startChild(command.file, command.args, {
    cwd: spec.cwd,
    env,
    stdin: spec.stdinFile === undefined ? 'ignore' : { file: spec.stdinFile },
    capture: false,
    detached: true,
    lifeline,
  });
  const subprocess = child.process;
  const pgid = child.pid;
  let exited = false;
  let terminateRequested = false;
  const stderr = new TailBuffer(spec.stderrTailBytes ?? 8 * 1024);
  const splitter = new LineSplitter(
    {
      line: (text) => callbacks.onLine(text),
      oversize: (bytes, head) => callbacks.onOversizeLine(bytes, head),
    },
    spec.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
  );

  if (pgid !== undefined) processes.registerGroup(pgid, { runId: spec.runId, agent: spec.agent });
  subprocess.once('spawn', () => {
    if (pgid === undefined) return;
    trace(`agent ${spec.agent}: spawned`);
    callbacks.onSpawn(pgid);
    if (terminateRequested) signalGroup(pgid, 'SIGTERM');
  });
  let firstOutput = true;
  subprocess.stdout?.on('data', (chunk: Buffer) => {
    if (firstOutput) trace(`agent ${spec.agent}: first output`);
    firstOutput = false;
    splitter.push(chunk);
  });
  subprocess.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

  let closeTimer: NodeJS.Timeout | undefined;
  subprocess.once('exit', () => {
    exited = true;
    killStragglers(spec, pgid);
    // A process that escaped the group may still hold the pipes open: do not wait forever.
    closeTimer = setTimeout(() => {
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
    }, STREAM_CLOSE_TIMEOUT_MS);
  });

  const done = (async (): Promise<ProcessExit> => {
    const result = await child.result;
    trace(`agent ${spec.agent}: exited`);
    exited = true;
    if (closeTimer !== undefined) clearTimeout(closeTimer);
    splitter.end();
    killStragglers(spec, pgid);
    if (pgid !== undefined) {
      // The group is dead (or dying from SIGKILL): forget it once nothing in it can run any more.
      await waitForGroupExit(pgid, GROUP_EXIT_LIMIT_MS);
      processes.unregisterGroup(pgid);
    }
    trace(`agent ${spec.agent}: group gone`);
    const init = readInitStatus(statusFile);
    if (init !== null) {
      return {
        ...initExit(init),
        stderrTail: stderr.text(),
        ...(init.spawnError === undefined ? {} : { spawnError: `spawn ${spec.file} ${init.spawnError}` }),
      };
    }
    return {
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      stderrTail: stderr.text(),
      ...(result.spawnError === undefined
        ? {}
        : { spawnError: `${result.spawnError.code}: ${result.spawnError.message}` }),
    };
  })();

  return {
    pid: pgid,
    terminate: () => {
      terminateRequested = true;
      if (pgid !== undefined && !exited) signalGroup(pgid, 'SIGTERM');
    },
    kill: () => {
      if (pgid !== undefined) signalGroup(pgid, 'SIGKILL');
    },
    hasExited: () => exited,
    exited: done,
  };
}
