/**
 * The portable code paths, forced on Linux (HYDRA_PORTABLE=1, ps-table.ts): the process table
 * read from `ps` as macOS prints it (bsd-ps/ps, a shim first on PATH that appends each process's
 * environment, as macOS's `ps -E` does), and agents contained by process groups, the run marker,
 * the watchdog and the sweep, with no PID namespace. `HYDRA_PORTABLE=1 npx vitest run <files>`
 * runs any CLI suite that way (createSandbox passes it on); the fault suites run their essential
 * cases both ways (WAYS).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';

/** The directory of the ps shim. */
export const BSD_PS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bsd-ps');

/** `env` with the portable paths forced: HYDRA_PORTABLE=1 and the ps shim first on PATH. */
export const portableEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...env,
  HYDRA_PORTABLE: '1',
  PATH: `${BSD_PS_DIR}${path.delimiter}${env.PATH ?? ''}`,
});

/** Whether this test process was asked to run everything the portable way. */
export const portableRun = (): boolean => process.env.HYDRA_PORTABLE === '1';

/** The two ways a fault case runs: Linux's own (/proc, PID namespaces), then the portable one. */
export const WAYS = [
  { way: 'linux', env: (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => env },
  { way: 'portable', env: portableEnv },
] as const;

/**
 * For the tests of a describe block: this process's own process table is the way's (PATH and
 * HYDRA_PORTABLE set before each test, put back after), for suites that call hydra's code in-process.
 */
export const inProcessWay = (way: (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv): void => {
  const saved = { PATH: process.env.PATH, HYDRA_PORTABLE: process.env.HYDRA_PORTABLE };
  beforeEach(() => {
    const forced = way({ PATH: process.env.PATH });
    process.env.PATH = forced.PATH;
    if (forced.HYDRA_PORTABLE !== undefined) process.env.HYDRA_PORTABLE = forced.HYDRA_PORTABLE;
  });
  afterEach(() => {
    process.env.PATH = saved.PATH;
    if (saved.HYDRA_PORTABLE === undefined) delete process.env.HYDRA_PORTABLE;
    else process.env.HYDRA_PORTABLE = saved.HYDRA_PORTABLE;
  });
};

/** A start time (ProcessInfo.startTime) a minute before `startTime`, in the same spelling: a pid's earlier owner. */
export const earlierStart = (startTime: string): string =>
  startTime.startsWith('s') ? `s${Number(startTime.slice(1)) - 60}` : String(Number(startTime) - 6000);
