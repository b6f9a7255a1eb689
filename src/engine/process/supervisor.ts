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
import type { AgentName } from '../agent-name.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, TailBuffer } from './line-splitter.js';
import { activeContainment, containedCommand } from './containment.js';
import type { Containment, InitStatus } from './containment.js';
import type { ProcessRegistry } from './process-registry.js';
import { startChild } from './child.js';
import { watchdogWanted } from './watchdog.js';
import { trace } from '../../trace.js';
import { OWNER_ENV, RUN_ID_ENV, processesOfRun, signalGroup, waitForGroupExit } from './process-table.js';
import type { SandboxPolicy } from '../sandbox/index.js';
import type { SandboxedCommand } from '../sandbox/index.js';
import { watchRefusals } from '../sandbox/index.js';
import { prepareSandboxed, refusalKey } from './sandboxed.js';
import { copyShare, mountProgram, overlayOptions, prepareOverlay } from './share-mount.js';
import type { ShareMount } from './share-mount.js';
import type { InitMounts } from './containment.js';

export interface SpawnSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /**
   * What it gets of hydra's environment under `env`: by default all of it (a check, a setup
   * command); an agent CLI's allowlist (agent-env.ts) for an agent or a judge.
   */
  inherit?: NodeJS.ProcessEnv;
  stdinFile?: string;
  runId: string;
  agent: AgentName;
  maxLineBytes?: number;
  stderrTailBytes?: number;
  /** Between SIGTERM and SIGKILL when the namespace's init stops the agent after hydra died. */
  graceMs?: number;
  /** Run it in the OS sandbox with this policy (sandboxed.ts); null or absent: unsandboxed. */
  sandbox?: SandboxPolicy | null;
  /**
   * Shared directories of the user's checkout it sees in its worktree (`[setup] share`,
   * share-mount.ts): overlays mounted in its namespace before it starts, or copies made first
   * where there is no namespace to mount them in.
   */
  shares?: readonly ShareMount[];
}

export interface SupervisorCallbacks {
  onSpawn(pid: number): void;
  onLine(line: string): void;
  onOversizeLine(bytes: number, head: string): void;
  /** What the sandbox refused it (a host its proxy turned away), one line each. */
  onRefused?(line: string): void;
  /** How its place was made when it differs from the plan (a share copied, not mounted), for its pane. */
  onPlaceNote?(line: string): void;
}

export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
  stderrTail: string;
  /** Set when the process could not be started (ENOENT, EACCES...). */
  spawnError?: string;
  /** What to do about spawnError, when the starter knows better than "check the binary" (a container's engine or image). */
  spawnHint?: string;
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
 * away. `containment` defaults to what this machine allows (activeContainment). With a sandbox
 * policy, the command is wrapped in the sandbox first (sandboxed.ts) and starts once it is.
 */
export function spawnSupervised(
  spec: SpawnSpec,
  callbacks: SupervisorCallbacks,
  processes: ProcessRegistry,
  containment: Containment = activeContainment(),
): Supervised {
  const policy = spec.sandbox ?? null;
  const shares = spec.shares ?? [];
  if (policy === null && shares.length === 0)
    return startSupervised(spec, spec, callbacks, processes, containment, null);
  const key = refusalKey(spec.runId, spec.agent);
  let mounts: InitMounts | null = null;
  return deferredSupervised(
    async () => {
      const shared = await shareInto(shares, containment);
      if (shared !== null && 'error' in shared) return shared;
      mounts = shared;
      return policy === null
        ? { file: spec.file, args: [...spec.args], done: () => undefined }
        : prepareSandboxed(policy, spec.file, spec.args, spec.env.PATH ?? process.env.PATH ?? '', key);
    },
    (command) => startSupervised(spec, command, callbacks, processes, containment, mounts),
    callbacks.onRefused,
    key,
  );
}

/**
 * Gets the shared directories ready: the overlays' mount points and layers made (the init mounts
 * them), the copies made where they cannot be mounted (no namespace; share-support.ts decided
 * `copy` for the race). Returns what the init mounts, or why the process cannot start.
 */
async function shareInto(
  shares: readonly ShareMount[],
  containment: Containment,
): Promise<InitMounts | { error: string } | null> {
  const program = containment.kind === 'pid-namespace' ? mountProgram() : null;
  const overlays = program === null ? [] : shares.filter((mount) => mount.how === 'overlay');
  const copies = shares.filter((mount) => !overlays.includes(mount));
  try {
    for (const mount of overlays) prepareOverlay(mount);
    await Promise.all(copies.map((mount) => copyShare(mount)));
  } catch (error) {
    return { error: `a shared directory could not be set up: ${(error as Error).message}` };
  }
  return program === null || overlays.length === 0
    ? null
    : {
        program,
        overlays: overlays.map((mount) => ({ options: overlayOptions(mount), target: mount.target })),
      };
}

/** Starts `command` (the spec's own, or it wrapped in the sandbox) under supervision. */
function startSupervised(
  spec: SpawnSpec,
  command: { file: string; args: readonly string[] },
  callbacks: SupervisorCallbacks,
  processes: ProcessRegistry,
  containment: Containment,
  mounts: InitMounts | null,
): Supervised {
  trace(`agent ${spec.agent}: spawning (${containment.kind}${spec.sandbox ? ', sandboxed' : ''})`);
  const statusFile = statusFileFor(containment);
  // The namespace's init stops the agent if hydra dies, as the race's watchdog does
  // (HYDRA_WATCHDOG=0 turns off both).
  const lifeline = statusFile !== null && watchdogWanted();
  const env = {
    ...(spec.inherit ?? process.env),
    ...spec.env,
    [RUN_ID_ENV]: spec.runId,
    [OWNER_ENV]: spec.agent,
  };
  const started =
    statusFile === null
      ? { file: command.file, args: [...command.args] }
      : containedCommand(
          containment,
          command.file,
          command.args,
          statusFile,
          env,
          lifeline ? (spec.graceMs ?? 5000) : null,
          mounts,
        );
  const child = startChild(started.file, started.args, {
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
        ...(init.spawnError === undefined
          ? {}
          : init.spawnError === 'EMOUNT'
            ? { spawnError: `the shared directories could not be mounted: ${stderr.text().trim()}` }
            : { spawnError: `spawn ${spec.file} ${init.spawnError}` }),
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

/**
 * A Supervised whose process starts once `prepare` has its command: a stop asked for before that
 * ends it without starting it. `start` spawns the prepared command under supervision.
 */
function deferredSupervised(
  prepare: () => Promise<Pick<SandboxedCommand, 'file' | 'args' | 'done'> | { error: string }>,
  start: (command: { file: string; args: string[] }) => Supervised,
  onRefused: ((line: string) => void) | undefined,
  key: string,
): Supervised {
  let inner: Supervised | null = null;
  let stopped = false;
  let exited = false;
  const notStarted = (spawnError?: string): ProcessExit => ({
    exitCode: null,
    signal: spawnError === undefined ? 'SIGTERM' : null,
    stderrTail: '',
    ...(spawnError === undefined ? {} : { spawnError }),
  });
  const done = (async (): Promise<ProcessExit> => {
    let command: Pick<SandboxedCommand, 'file' | 'args' | 'done'> | { error: string };
    try {
      command = await prepare();
    } catch (error) {
      command = { error: `the sandbox could not be set up: ${(error as Error).message}` };
    }
    if ('error' in command) return notStarted(command.error);
    if (stopped) {
      command.done();
      return notStarted();
    }
    const unwatch = onRefused === undefined ? () => undefined : watchRefusals(key, onRefused);
    inner = start(command);
    try {
      return await inner.exited;
    } finally {
      unwatch();
      command.done();
    }
  })().finally(() => {
    exited = true;
  });
  return {
    get pid() {
      return inner?.pid;
    },
    terminate: () => {
      if (inner === null) stopped = true;
      else inner.terminate();
    },
    kill: () => {
      if (inner === null) stopped = true;
      else inner.kill();
    },
    hasExited: () => exited || (inner?.hasExited() ?? false),
    exited: done,
  };
}
