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
import { appendFileSync } from 'node:fs';
import { render } from 'ink';
import { errorText } from '../../core/hydra-error.js';
import type { AdapterId } from '../../adapters/types.js';
import type { MergeResult, RaceHandle } from '../../engine/index.js';
import { App, type DashboardControls } from './app.js';
import { dashboardExitCode } from '../state/index.js';
import { createTheme, formatDiff, resolveDisplayOptions } from '../text/index.js';
import type { Outcome, ViewState } from '../state/index.js';

export interface DashboardOptions {
  ascii?: boolean;
  noColor?: boolean;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** Say in confirmations, and ask the merge, to keep worktrees and branches (race --keep-worktrees). */
  keepWorktrees?: boolean;
  /** Environment for display detection (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /** Said in the header on every screen (`simulated agents` for `hydra demo --here`). */
  marker?: string;
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

/**
 * `HYDRA_FRAME_STATS=<file>`: appends one line per frame Ink draws (`<epoch ms> <render ms>`), so
 * the bench can count frames and time the last one. Off (no callback at all) when unset.
 */
const frameStats = (file: string | undefined): { onRender?: (metrics: { renderTime: number }) => void } =>
  file === undefined || file === ''
    ? {}
    : {
        onRender: ({ renderTime }) => {
          try {
            appendFileSync(file, `${Date.now()} ${renderTime.toFixed(2)}\n`);
          } catch {
            // a statistic, never a reason to stop the dashboard
          }
        },
      };

export async function runDashboard(
  handle: RaceHandle,
  options: DashboardOptions = {},
): Promise<DashboardResult> {
  const display = resolveDisplayOptions(options, options.env ?? process.env);
  const theme = createTheme({ ascii: display.ascii, color: !display.noColor });
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  let outcome: Outcome | null = null;
  let lost = false;
  let resumeWith: ViewState | undefined;
  // Drawn again after each shell the user opens (`s`), from the view state it left.
  for (;;) {
    let shell: { agent: AdapterId; state: ViewState } | null = null;
    const { controls, terminalLost, dispose } = cancelSources(stdin, stdout);
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
          onShell={(agent, state) => {
            shell = { agent, state };
          }}
          {...(resumeWith === undefined ? {} : { initialState: resumeWith })}
          {...(options.marker === undefined ? {} : { marker: options.marker })}
        />,
        {
          stdin,
          stdout,
          exitOnCtrlC: false,
          patchConsole: options.patchConsole ?? true,
          maxFps: 30,
          ...frameStats((options.env ?? process.env).HYDRA_FRAME_STATS),
        },
      );
      await instance.waitUntilExit();
    } finally {
      lost = terminalLost();
      dispose();
    }
    const asked = shell as { agent: AdapterId; state: ViewState } | null;
    if (asked === null || lost || outcome !== null) break;
    resumeWith = await shellIn(handle, asked, stdin, stdout, options.env ?? process.env);
  }
  const finalOutcome = outcome as Outcome | null;
  const merged = finalOutcome?.kind === 'merged' ? finalOutcome.result : handle.getSnapshot().merge;
  return {
    exitCode: dashboardExitCode(handle.getSnapshot(), merged),
    merged,
    terminalLost: lost,
  };
}

/**
 * The terminal is the shell's until it exits (Ink has let go of it: raw mode off, input paused),
 * then the dashboard comes back, saying what the shell changed.
 */
async function shellIn(
  handle: RaceHandle,
  asked: { agent: AdapterId; state: ViewState },
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  env: NodeJS.ProcessEnv,
): Promise<ViewState> {
  if (stdin.isTTY === true) stdin.setRawMode(false);
  stdin.pause();
  const shell = env.SHELL !== undefined && env.SHELL !== '' ? env.SHELL : '/bin/sh';
  const name =
    handle.getSnapshot().agents.find((agent) => agent.agent === asked.agent)?.displayName ?? asked.agent;
  let notice: ViewState['notice'];
  try {
    const result = await handle.runShell({
      agent: asked.agent,
      shell,
      env,
      onStart: (worktree) =>
        stdout.write(
          `\nhydra: a shell in ${name}'s worktree (${worktree}); exit it to return to the dashboard.\n`,
        ),
    });
    stdout.write(`hydra: back from the shell in ${result.worktree}\n`);
    const diff =
      result.diff === null
        ? 'its work could not be committed'
        : `its result is now ${formatDiff(result.diff)}`;
    notice = { text: `Back from the shell: ${name}'s changes are on its branch; ${diff}.`, tone: 'info' };
  } catch (error) {
    notice = { text: `No shell: ${errorText(error)}`, tone: 'error' };
  }
  return { ...asked.state, notice };
}
