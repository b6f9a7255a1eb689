/**
 * A race's watchdog: a small detached process that outlives hydra if hydra is killed outright
 * (SIGKILL, OOM killer), and then stops every process of the race: SIGTERM, then SIGKILL after the
 * grace period. Signals and normal exits are handled inside hydra itself; this covers the case where
 * hydra gets no chance to run any code. It only touches processes that carry the race's
 * HYDRA_RUN_ID marker (agents and their namespaces' inits, checks, git and what git runs, the
 * dashboard's shell) and this hydra's sandbox helpers (the library's socat bridges, whose sockets it
 * removes: sandbox/helper-marker.ts), and it ends with the race when hydra stops it.
 *
 * It is a few lines of /bin/sh that cost nothing while they wait: hydra holds the other end of the
 * watchdog's stdin, writes `done` to it when the race is over, and the kernel closes it when hydra
 * dies, however it dies, so the watchdog reads end of file only then (no polling, and no pid that
 * could be reused). It finds the run's processes by their environment in /proc (`grep -z`), or,
 * where there is no /proc (macOS, the BSDs; HYDRA_PORTABLE=1), in what `ps -E` prints (ps-table.ts).
 * hydra also writes down the pipe each process group it starts and each it saw end (`group
 * <pgid>`, `ended <pgid>`, from the race's ProcessRegistry): the watchdog signals the groups still
 * recorded too, which reaches an agent's children whose environment ps cannot show.
 *
 * Agents in containers: the container runner announces each engine host it starts a container on
 * (`ProcessRegistry.watchContainerHost`), hydra passes it down the same pipe (`host <host>`), and
 * after stopping the processes the watchdog removes the run's containers, and its volumes not
 * labelled to be kept, on each of those hosts by label (`docker rm -f`, `docker volume rm`; 30 s
 * at most a call where `timeout` exists, so an engine that does not answer never keeps it alive).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { SHELL, shellScript } from './containment.js';
import { CONTAINER_LABELS, ENVIRONMENT_ENGINE, isEngineHost } from './container-labels.js';
import { HELPER_ENV, helperMarker } from '../sandbox/index.js';
import { OWNER_ENV, RUN_ID_ENV } from './process-table.js';
import { procTable, psEnvironmentFlag } from './ps-table.js';
import watchdogScript from './watchdog.sh';

/**
 * HYDRA_WATCHDOG=0 turns it off, and the namespace init's own (containment.ts): tests of `hydra
 * clean`'s own recovery use that.
 */
const WATCHDOG_ENV = 'HYDRA_WATCHDOG';

export const watchdogWanted = (env: NodeJS.ProcessEnv = process.env): boolean => env[WATCHDOG_ENV] !== '0';

/** Why a race here starts no watchdog; null when it starts one. */
export const watchdogProblem = (env: NodeJS.ProcessEnv = process.env): string | null => {
  if (!watchdogWanted(env)) return `${WATCHDOG_ENV}=0 is set`;
  if (process.platform === 'win32') return 'Windows has no POSIX shell';
  if (!existsSync(SHELL)) return `${SHELL} is missing`;
  return null;
};

/**
 * `sh -c WATCHDOG_SCRIPT hydra-watchdog <run id> <grace in tenths of a second> <marker variable>
 * <container run label> <helper marker variable> <this hydra's helper marker> <table>` (`proc`, or
 * ps's option for environments),
 * stdin from hydra. The script is watchdog.sh (checked by shellcheck in `npm run lint`), bundled
 * into dist/ as text, so starting a race reads no extra file; its comment lines are dropped.
 */
const WATCHDOG_SCRIPT = shellScript(watchdogScript);

/** A race's watchdog, as hydra holds it. */
export interface Watchdog {
  /** Should hydra die, the run's containers on this engine host are removed too (once a host). */
  watchContainerHost(host: string): void;
  /** Should hydra die, this process group is signalled too, unless forgotten first. */
  watchGroup(pgid: number): void;
  /** The group ended (hydra saw it go): the watchdog no longer signals it. */
  forgetGroup(pgid: number): void;
  /** The race is over: the watchdog ends and touches nothing. Idempotent. */
  stop(): void;
}

const NO_WATCHDOG: Watchdog = {
  watchContainerHost: () => undefined,
  watchGroup: () => undefined,
  forgetGroup: () => undefined,
  stop: () => undefined,
};

/**
 * Starts the watchdog for a race run by this process. Never throws: without a watchdog the race
 * still runs, as before. A host that is not an engine address (isEngineHost) is not passed on: the
 * runner could not have started a container there either.
 */
export const startWatchdog = (
  runId: string,
  graceMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Watchdog => {
  if (watchdogProblem(env) !== null) return NO_WATCHDOG;
  const childEnv = { ...env };
  delete childEnv[RUN_ID_ENV];
  delete childEnv[OWNER_ENV];
  delete childEnv[HELPER_ENV];
  try {
    const child = spawn(
      SHELL,
      [
        '-c',
        WATCHDOG_SCRIPT,
        'hydra-watchdog',
        runId,
        String(Math.max(0, Math.round(graceMs / 100))),
        RUN_ID_ENV,
        CONTAINER_LABELS.run,
        HELPER_ENV,
        helperMarker(),
        procTable(env) ? 'proc' : psEnvironmentFlag(),
      ],
      { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: childEnv },
    );
    child.on('error', () => undefined);
    const lifeline = child.stdin as (Writable & { unref?: () => void }) | null;
    lifeline?.on('error', () => undefined);
    // Neither the watchdog nor the pipe keeps hydra running.
    child.unref();
    lifeline?.unref?.();
    let stopped = false;
    const hosts = new Set<string>();
    return {
      watchContainerHost(host) {
        if (stopped || hosts.has(host) || !isEngineHost(host)) return;
        hosts.add(host);
        lifeline?.write(`host ${host === ENVIRONMENT_ENGINE ? '' : host}\n`);
      },
      watchGroup(pgid) {
        if (!stopped && Number.isInteger(pgid) && pgid > 1) lifeline?.write(`group ${pgid}\n`);
      },
      forgetGroup(pgid) {
        if (!stopped && Number.isInteger(pgid) && pgid > 1) lifeline?.write(`ended ${pgid}\n`);
      },
      stop() {
        if (stopped) return;
        stopped = true;
        lifeline?.end('done\n');
      },
    };
  } catch {
    return NO_WATCHDOG;
  }
};
