/**
 * An interactive program on the user's terminal (the dashboard's shell in a worktree): stdin,
 * stdout and stderr inherited, in hydra's process group so it can use the terminal, marked with the
 * run's id so the watchdog and `hydra clean` find it should hydra die. While it runs, Ctrl-C and
 * Ctrl-Z are its own: hydra neither cancels the race nor stops.
 */
import { spawn } from 'node:child_process';
import type { ProcessRegistry } from './process-registry.js';
import { RUN_ID_ENV } from './process-table.js';

export interface InteractiveSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  runId: string;
  processes: ProcessRegistry;
  /** Called once Ctrl-C is held, just before the program starts (to tell the user). */
  onStart?: () => void;
}

const ignore = (): void => undefined;

/** Runs the program until it exits; resolves with its exit code (null when a signal ended it). */
export function runInteractive(spec: InteractiveSpec): Promise<number | null> {
  const release = spec.processes.holdInterrupts();
  // Without a listener, SIGINT or SIGTSTP from the terminal would end or stop hydra itself.
  process.on('SIGINT', ignore);
  process.on('SIGTSTP', ignore);
  const done = (): void => {
    process.off('SIGINT', ignore);
    process.off('SIGTSTP', ignore);
    release();
  };
  try {
    spec.onStart?.();
  } catch (error) {
    done();
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(spec.file, [...spec.args], {
      cwd: spec.cwd,
      env: { ...spec.env, [RUN_ID_ENV]: spec.runId },
      stdio: 'inherit',
    });
    child.once('error', (error) => {
      done();
      reject(error);
    });
    child.once('exit', (code) => {
      done();
      resolve(code);
    });
  });
}
