/**
 * A race's watchdog: a small detached process that outlives hydra if hydra is killed outright
 * (SIGKILL, OOM killer), and then stops every process of the race: SIGTERM, then SIGKILL after the
 * grace period. Signals and normal exits are handled inside hydra itself; this covers the case where
 * hydra gets no chance to run any code. It only touches processes that carry the race's
 * HYDRA_RUN_ID marker, and it ends with the race when hydra stops it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_ENV, processInfo, RUN_ID_ENV } from './process-table.js';

/**
 * HYDRA_WATCHDOG=0 turns it off, and the namespace init's own (containment.ts): tests of `hydra
 * clean`'s own recovery use that.
 */
const WATCHDOG_ENV = 'HYDRA_WATCHDOG';

export const watchdogWanted = (env: NodeJS.ProcessEnv = process.env): boolean => env[WATCHDOG_ENV] !== '0';

/**
 * The built entry script, dist/engine/process/watchdog-main.js below the package root (the folder
 * with package.json above this module, which is src/engine/process in tests and a chunk of the
 * bundle in dist/ otherwise).
 */
const entryScript = (): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'engine', 'process', 'watchdog-main.js');
};

/**
 * Starts the watchdog for a race run by this process. Returns a function that stops it (call it
 * when the race is over). Never throws: without a watchdog the race still runs, as before.
 */
export const startWatchdog = (
  runId: string,
  graceMs: number,
  env: NodeJS.ProcessEnv = process.env,
): (() => void) => {
  const self = processInfo(process.pid);
  const script = entryScript();
  if (!watchdogWanted(env) || self === null || !existsSync(script)) return () => undefined;
  const childEnv = { ...env };
  delete childEnv[RUN_ID_ENV];
  delete childEnv[AGENT_ENV];
  try {
    const child = spawn(
      process.execPath,
      [script, String(process.pid), self.startTime, runId, String(graceMs)],
      {
        detached: true,
        stdio: 'ignore',
        env: childEnv,
      },
    );
    child.on('error', () => undefined);
    child.unref();
    return () => {
      try {
        child.kill('SIGTERM');
      } catch {
        // Already gone.
      }
    };
  } catch {
    return () => undefined;
  }
};
