/**
 * The dashboard's entry point, called by `hydra race` on a terminal.
 *
 * Display options: `ascii` and `noColor` win when given; otherwise they come from the environment
 * (see theme.ts: NO_COLOR or TERM=dumb turn colours off; a locale without UTF-8, TERM=dumb or
 * HYDRA_ASCII=1 switch to ASCII borders and symbols).
 *
 * Ctrl-C (and SIGINT/SIGTERM while the dashboard runs) cancels the race cleanly: every agent is
 * stopped, the race is finished (worktrees cleaned unless kept), then the dashboard exits.
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
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Forwards termination signals to the app as a clean cancel, for as long as the dashboard runs. */
const signalControls = (): { controls: DashboardControls; dispose: () => void } => {
  const listeners = new Set<() => void>();
  const onSignal = (): void => {
    for (const listener of listeners) listener();
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return {
    controls: {
      onCancel(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    dispose: () => {
      for (const signal of SIGNALS) process.off(signal, onSignal);
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
  const { controls, dispose } = signalControls();
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
  return { exitCode: dashboardExitCode(handle.getSnapshot(), merged), merged };
}
