/**
 * The dashboard's entry point, called by `hydra race` on a terminal.
 *
 * Display options: `ascii` and `noColor` win when given; otherwise they come from the environment
 * (see theme.ts: NO_COLOR or TERM=dumb turn colours off; a locale without UTF-8, TERM=dumb or
 * HYDRA_ASCII=1 switch to ASCII borders and symbols).
 *
 * Ctrl-C (and SIGINT/SIGTERM while the dashboard runs) cancels the race cleanly: every agent is
 * stopped, the race is finished (worktrees cleaned unless kept), then the dashboard exits. A lost
 * terminal (SIGHUP, a write error on stdout such as EIO or EPIPE, the end of a terminal's input)
 * does the same, and says so in its result (`terminalLost`) so the caller writes nothing more.
 * Exit code: see exit-code.ts.
 */
import { render } from 'ink';
import type { MergeResult, RaceHandle } from '../../engine/index.js';
import { App, type DashboardControls } from './app.js';
import { dashboardExitCode } from '../state/index.js';
import { createTheme, resolveDisplayOptions } from '../text/index.js';
import type { Outcome } from '../state/index.js';

export interface DashboardOptions {
  ascii?: boolean;
  noColor?: boolean;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** Say in confirmations, and ask the merge, to keep worktrees and branches (race --keep-worktrees). */
  keepWorktrees?: boolean;
  /** Environment for display detection (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Route console output above the live area instead of through it (default true). Off in tests,
   * where the test runner replaces the console.
   */
  patchConsole?: boolean;
}

export interface DashboardResult {
  exitCode: number;
  merged: MergeResult | null;
  /** The terminal went away (hangup, stdout unwritable, its input ended): nothing can be shown. */
  terminalLost: boolean;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

interface CancelSources {
  controls: DashboardControls;
  terminalLost(): boolean;
  dispose(): void;
}

/**
 * Everything that cancels the race as Ctrl-C does, for as long as the dashboard runs: termination
 * signals, and the terminal going away (its emulator closed, its tmux session killed), which shows
 * as SIGHUP, as EIO or EPIPE on stdout, or as the end of the terminal's input.
 */
const cancelSources = (stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream): CancelSources => {
  const listeners = new Set<() => void>();
  let lost = false;
  const cancel = (): void => {
    for (const listener of listeners) listener();
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGHUP') lost = true;
    cancel();
  };
  const onTerminalLost = (): void => {
    if (lost) return;
    lost = true;
    cancel();
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  stdout.on('error', onTerminalLost);
  // Only a terminal's input ending means the terminal is gone (`< /dev/null` ends at once).
  const watchesInput = stdin.isTTY === true;
  if (watchesInput) {
    stdin.on('end', onTerminalLost);
    stdin.on('error', onTerminalLost);
  }
  return {
    controls: {
      onCancel(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    terminalLost: () => lost,
    dispose: () => {
      for (const signal of SIGNALS) process.off(signal, onSignal);
      // Later write errors on a dead terminal are expected: keep them from crashing hydra.
      if (!lost) stdout.off('error', onTerminalLost);
      if (watchesInput && !lost) {
        stdin.off('end', onTerminalLost);
        stdin.off('error', onTerminalLost);
      }
    },
  };
};

export async function runDashboard(
  handle: RaceHandle,
  options: DashboardOptions = {},
): Promise<DashboardResult> {
  const display = resolveDisplayOptions(options, options.env ?? process.env);
  const theme = createTheme({ ascii: display.ascii, color: !display.noColor });
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const { controls, terminalLost, dispose } = cancelSources(stdin, stdout);
  let outcome: Outcome | null = null;
  try {
    const instance = render(
      <App
        handle={handle}
        theme={theme}
        keepWorktrees={options.keepWorktrees ?? false}
        interactive={stdin.isTTY === true}
        controls={controls}
        onExit={(value) => {
          outcome = value;
        }}
      />,
      { stdin, stdout, exitOnCtrlC: false, patchConsole: options.patchConsole ?? true, maxFps: 30 },
    );
    await instance.waitUntilExit();
  } finally {
    dispose();
  }
  const finalOutcome = outcome as Outcome | null;
  const merged = finalOutcome?.kind === 'merged' ? finalOutcome.result : handle.getSnapshot().merge;
  return {
    exitCode: dashboardExitCode(handle.getSnapshot(), merged),
    merged,
    terminalLost: terminalLost(),
  };
}
