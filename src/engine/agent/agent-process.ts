/**
 * The real agent process actor: writes the files the command needs, spawns the CLI under
 * supervision, feeds each stdout line to the adapter's parser and reports what happens to the
 * agent machine. Its teardown stops the process group (SIGTERM, SIGKILL after the grace period),
 * so a stopped machine never leaves a process behind.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fromCallback } from 'xstate';
import { ev, isTerminal, SANDBOX_REFUSED_STAGE } from '../../core/events.js';
import { blameRefusal } from './refused-failure.js';
import type { AgentEvent, CompletedEvent, ErrorInfo, FailedEvent } from '../../core/events.js';
import { adapterOf } from '../../adapters/registry.js';
import { loadPriceDatabase } from '../../adapters/prices.js';
import type { ProcessEnd } from '../../adapters/types.js';
import type {
  AgentInput,
  AgentLaunch,
  AgentProcessCommand,
  AgentProcessEvent,
  StopReason,
} from './agent-types.js';
import { coalesceEvents } from './coalesce.js';
import { readAgentText } from '../agent-file.js';
import { DEFAULT_MAX_LINE_BYTES } from '../process/index.js';
import { processInfo } from '../process/index.js';
import { knownSecrets, redactValue, removePidRecord, writePidRecord } from '../records/index.js';
import { agentEnvironment, spawnSupervised } from '../process/index.js';
import { describeShares, SHARED_STAGE, worktreeShares } from '../setup/index.js';
import type { Supervised, SupervisorCallbacks } from '../process/index.js';
import { worktreeEnv } from '../setup/index.js';
import { blameSilentEngine, startContainer } from '../container/index.js';
import { absentPaths, removeSandboxStubs } from '../sandbox/index.js';

/** The shortest time between two batches of one agent's events while it floods its output. */
const BATCH_INTERVAL_MS = 25;

const seconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`);

/**
 * The error for an agent hydra stopped: the one place stop errors are written (the adapter's
 * finish leaves stops to the engine, which knows the limit and the setting that raises it).
 */
const stopError = (launch: AgentLaunch, reason: StopReason): ErrorInfo => {
  switch (reason) {
    case 'idle_timeout':
      return {
        kind: 'TimedOut',
        message: `${launch.displayName} produced no output for ${seconds(launch.idleTimeoutMs)} and was stopped (idle timeout).`,
        hint: `If it needs longer between outputs, raise the limit: --idle-timeout <seconds>, or agents.${launch.agent}.idle_timeout_s in hydra.toml.`,
      };
    case 'timeout':
      return {
        kind: 'TimedOut',
        message: `${launch.displayName} ran past the ${seconds(launch.timeoutMs)} time limit and was stopped.`,
        hint: 'Raise the time limit (--timeout <seconds>, or race.timeout_s in hydra.toml) or give the agents a smaller task.',
      };
    case 'after_result':
      // Not an error of its own: the stream's result stands (see the exit handling below).
      return {
        kind: 'Interrupted',
        message: `${launch.displayName} printed its result but did not exit, and was stopped.`,
        hint: 'Nothing to do: its result is kept.',
      };
    case 'budget':
      return {
        kind: 'BudgetExceeded',
        message: `${launch.displayName} passed its budget of $${launch.maxCostUsd ?? 0} (estimated from its usage so far) and was stopped.`,
        hint: `Its work so far is kept on ${launch.branch}. Raise the budget (--max-cost-usd <usd>, or agents.${launch.agent}.max_cost_usd in hydra.toml) or give it a smaller task.`,
      };
    case 'race_budget':
      return {
        kind: 'BudgetExceeded',
        message: `The race passed its budget of $${launch.raceMaxCostUsd ?? 0} (estimated from the agents' usage so far), so ${launch.displayName} was stopped.`,
        hint: `Its work so far is kept on ${launch.branch}. Raise the budget (--max-cost-usd <usd>, or race.max_cost_usd in hydra.toml) or race fewer agents.`,
      };
    case 'first_verified':
      return {
        kind: 'Interrupted',
        message: `${launch.displayName} was stopped early: another agent's result passed every check first (--stop first-verified).`,
        hint: `Its work so far is kept on ${launch.branch}: look at it with hydra open, or continue it with hydra continue.`,
      };
    case 'cancel':
      return {
        kind: 'Interrupted',
        message: `${launch.displayName} was stopped before it finished.`,
        // Only completed results are kept once the race ends (see cleanUpInput): say so.
        hint: `Only a completed result can be merged; its partial work on ${launch.branch} is removed when the race ends (kept with --keep-worktrees).`,
      };
  }
};

/**
 * The last message the CLI was told to write (Codex's --output-last-message), read as data from
 * the agent's scratch directory: never through a link (agent-file.ts); a refusal is a warning.
 */
const readLastMessage = (launch: AgentLaunch, warn: (reason: string) => void): string | undefined => {
  const file = launch.command.lastMessageFile;
  return file === undefined ? undefined : readAgentText(file, launch.scratchDir, warn);
};

/**
 * The files the command needs (a long prompt for stdin), in the agent's scratch directory, which
 * an earlier round of the agent could write: whatever is at the path (a link to a file of the
 * user's) is removed, never written through, and the file is made new (O_EXCL: no link followed).
 */
const writeCommandFiles = (launch: AgentLaunch): void => {
  mkdirSync(launch.scratchDir, { recursive: true });
  for (const file of launch.command.files) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    rmSync(file.path, { force: true });
    writeFileSync(file.path, file.content, { flag: 'wx' });
  }
};

export const agentProcessLogic = fromCallback<AgentProcessCommand, AgentInput, AgentProcessEvent>(
  ({ input: { launch, processes }, sendBack, receive }) => {
    const parser = adapterOf(launch.adapter).createParser(launch.parser);
    // Agent output enters hydra here: redacted once, so no record, snapshot or printer sees a secret.
    const secrets = knownSecrets(launch.env);
    let stoppedBy: StopReason | null = null;
    let sawTerminal = false;
    let reported = false;

    const report = (terminal: CompletedEvent | FailedEvent, exitCode: number | null): void => {
      if (reported) return;
      reported = true;
      sendBack({
        type: 'EXITED',
        at: Date.now(),
        terminal: redactValue(terminal, secrets),
        exitCode,
        stoppedBy,
      });
    };

    try {
      writeCommandFiles(launch);
    } catch (error) {
      report(
        ev({
          kind: 'failed',
          error: {
            kind: 'SpawnFailed',
            message: `Could not write the files ${launch.displayName} needs: ${(error as Error).message}`,
            hint: 'Check that the disk is writable and not full.',
          },
        }),
        null,
      );
      return () => undefined;
    }

    // What the sandbox refused it, for a failure to name (refused-failure.ts).
    const refusals: string[] = [];
    const forward = (events: AgentEvent[]): void => {
      let result: CompletedEvent | FailedEvent | null = null;
      const kept = events.filter((event) => {
        if (event.kind === 'progress' && event.stage === SANDBOX_REFUSED_STAGE && event.detail !== undefined)
          refusals.push(event.detail);
        if (!isTerminal(event)) return true;
        // The final event comes from parser.finish() once the process has ended; the machine is
        // told now that the result is in, so a process that lingers after it is not waited for.
        if (!sawTerminal) result = event;
        sawTerminal = true;
        return false;
      });
      const at = Date.now();
      sendBack({ type: 'OUTPUT', at, events: redactValue(kept, secrets) });
      if (result !== null) sendBack({ type: 'RESULT', at, terminal: redactValue(result, secrets) });
    };

    // Lines are parsed as they come, but reported once per chunk of output (a microtask after the
    // first line of a chunk), with runs of noise merged: the machines, the snapshot and the record
    // then cost per chunk, not per line, and a flood of short lines cannot fall behind. In a flood,
    // batches are at least BATCH_INTERVAL_MS apart (the chunks in between join the next batch);
    // output after a quiet spell is reported at once.
    let batch: AgentEvent[] | null = null;
    let lastFlush = 0;
    let batchTimer: NodeJS.Timeout | null = null;
    const flush = (): void => {
      if (batchTimer !== null) clearTimeout(batchTimer);
      batchTimer = null;
      if (batch === null) return;
      const events = batch;
      batch = null;
      lastFlush = Date.now();
      forward(coalesceEvents(events));
    };
    const collect = (events: AgentEvent[]): void => {
      if (batch === null) {
        batch = [];
        const wait = lastFlush + BATCH_INTERVAL_MS - Date.now();
        if (wait <= 0) queueMicrotask(flush);
        else batchTimer = setTimeout(flush, wait);
      }
      for (const event of events) batch.push(event);
    };

    // `[setup] share`: the checkout's directories, mounted (or copied) before it starts; not on a
    // remote engine, which cannot see them (the race warns: remoteShareWarning).
    const shares = worktreeShares(
      launch.container?.remote === true ? [] : (launch.shared ?? []),
      launch.worktree,
    );
    const shared = describeShares(shares, launch.worktree);
    let placeNote: string | null = null;
    // The price database prices the usage the parser reads (~25 ms of CPU to load): it loads while
    // the agent starts, not before it. What the agent prints meanwhile waits, in order, and is
    // parsed once it is in; a database that fails to load leaves the costs unknown.
    let waiting: Array<() => void> | null = [];
    const inOrder = (step: () => void): void => {
      if (waiting === null) step();
      else waiting.push(step);
    };
    const priced = loadPriceDatabase()
      .catch(() => undefined)
      .then(() => {
        const steps = waiting ?? [];
        waiting = null;
        for (const step of steps) step();
      });
    let lines = 0;
    const parsed = (line: string): void => {
      lines += 1;
      collect(line.trim() === '' ? [] : parser.parseLine(line));
    };
    const callbacks: SupervisorCallbacks = {
      onSpawn: (pid) => {
        try {
          writePidRecord(launch.recordDir, {
            agent: launch.agent,
            pid,
            pgid: pid,
            startTime: processInfo(pid)?.startTime ?? null,
            worktree: launch.worktree,
          });
        } catch {
          // The record is for recovery only; the race goes on without it.
        }
        sendBack({ type: 'SPAWNED', at: Date.now(), pid });
        if (placeNote !== null || shared !== null)
          inOrder(() =>
            collect([ev({ kind: 'progress', stage: SHARED_STAGE, detail: placeNote ?? shared ?? '' })]),
          );
      },
      // A rootless engine copied what was to be an overlay: said instead of the plan's line.
      onPlaceNote: (line) => {
        placeNote = line;
      },
      onLine: (line) => {
        // Once the database is in (nearly every line of a flood), no closure per line.
        if (waiting === null) parsed(line);
        else waiting.push(() => parsed(line));
      },
      // What the sandbox turned away shows in the pane and the record, not as a silent failure.
      onRefused: (line) =>
        inOrder(() => collect([ev({ kind: 'progress', stage: SANDBOX_REFUSED_STAGE, detail: line })])),
      onOversizeLine: (bytes, head) =>
        inOrder(() =>
          collect([
            ev({
              kind: 'parse_error',
              raw: `${head}…`,
              reason: `line of ${bytes} bytes is over the ${DEFAULT_MAX_LINE_BYTES} byte limit and was skipped`,
            }),
          ]),
        ),
    };
    // In its container (src/engine/container) or on this machine: the same handle either way.
    const container = launch.container ?? null;
    // The protected paths not there yet: the sandbox's mounts over them leave empty files (stubs.ts).
    const absent = container === null && launch.sandbox ? absentPaths(launch.sandbox.denyWrite) : [];
    const supervised: Supervised =
      container !== null
        ? startContainer({ ...launch, container, shares }, callbacks, processes)
        : spawnSupervised(
            {
              file: launch.command.file,
              args: launch.command.args,
              cwd: launch.command.cwd,
              // Of hydra's environment only what its CLI needs (agent-env.ts): no other CLI's key, no token.
              inherit: agentEnvironment(
                adapterOf(launch.adapter),
                process.env,
                launch.configuredVariables ?? [],
              ),
              // Who it is and its ports (setup/env.ts); the agent's configured `env` may still set them.
              env: {
                ...launch.command.env,
                ...worktreeEnv({
                  runId: launch.runId,
                  agent: launch.agent,
                  worktree: launch.worktree,
                  port: launch.port ?? null,
                }),
                ...launch.env,
              },
              ...(launch.command.stdinFile === undefined ? {} : { stdinFile: launch.command.stdinFile }),
              runId: launch.runId,
              agent: launch.agent,
              graceMs: launch.graceMs,
              sandbox: launch.sandbox ?? null,
              shares,
            },
            callbacks,
            processes,
          );

    void Promise.all([supervised.exited, priced]).then(([exit]) => {
      removeSandboxStubs(launch.worktree, absent);
      flush();
      try {
        removePidRecord(launch.recordDir, launch.agent);
      } catch {
        // best effort
      }
      const lastMessage = readLastMessage(launch, (reason) =>
        forward([ev({ kind: 'progress', stage: SANDBOX_REFUSED_STAGE, detail: reason })]),
      );
      const end: ProcessEnd = {
        exitCode: exit.exitCode,
        signal: exit.signal,
        stderrTail: exit.stderrTail,
        sawTerminalEvent: sawTerminal,
        runId: launch.runId,
        ...(stoppedBy === null ? {} : { stoppedBy }),
        ...(lastMessage === undefined ? {} : { lastMessage }),
      };
      let terminal = blameSilentEngine(parser.finish(end), {
        container: launch.container ?? null,
        lines,
        stderrTail: exit.stderrTail,
        exitCode: exit.exitCode,
      });
      // Sandboxed and ended without a result after a refusal: the refusal is what it failed of.
      if (terminal.kind === 'failed' && !sawTerminal && launch.sandbox && stoppedBy === null)
        terminal = blameRefusal(terminal, {
          displayName: launch.displayName,
          refusals,
          stderrTail: exit.stderrTail,
          worktree: launch.worktree,
          allowHosts: launch.sandbox.allowHosts,
        });
      if (exit.spawnError !== undefined) {
        terminal = ev({
          kind: 'failed',
          error: {
            kind: 'SpawnFailed',
            message: `Could not start ${launch.command.file}: ${exit.spawnError}`,
            hint: exit.spawnHint ?? 'Check that the binary exists and is executable (`hydra doctor`).',
          },
          exitCode: null,
          stderrTail: exit.stderrTail,
        });
      } else if (
        stoppedBy !== null &&
        stoppedBy !== 'after_result' &&
        !(terminal.kind === 'completed' && (stoppedBy === 'idle_timeout' || stoppedBy === 'timeout'))
      ) {
        // A result the agent reported before hydra stopped a lingering process stands (completed
        // or failed); anything else is reported as the stop.
        terminal = ev({
          kind: 'failed',
          error: stopError(launch, stoppedBy),
          ...(terminal.usage === undefined ? {} : { usage: terminal.usage }),
          exitCode: exit.exitCode,
          signal: exit.signal,
          stderrTail: exit.stderrTail,
        });
      }
      report(terminal, exit.exitCode);
    });

    receive((command) => {
      switch (command.type) {
        case 'TERMINATE':
          if (supervised.hasExited()) return;
          stoppedBy ??= command.reason;
          supervised.terminate();
          return;
        case 'KILL':
          supervised.kill();
          return;
      }
    });

    return () => {
      if (batchTimer !== null) clearTimeout(batchTimer);
      batchTimer = null;
      if (supervised.hasExited()) return;
      // Stopped from outside (race torn down): stop the group, with the usual grace.
      stoppedBy ??= 'cancel';
      supervised.terminate();
      const timer = setTimeout(() => supervised.kill(), launch.graceMs);
      void supervised.exited.finally(() => clearTimeout(timer));
    };
  },
);
