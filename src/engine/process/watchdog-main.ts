/**
 * The watchdog process (see watchdog.ts): `node watchdog-main.js <hydra pid> <its start time>
 * <run id> <grace ms>`. Polls hydra; once hydra is gone (or its pid belongs to another process),
 * stops every process of the run and exits.
 */
import { processesOfRun, processInfo } from './process-table.js';

const POLL_MS = 500;

const [pidText, startTime, runId, graceText] = process.argv.slice(2);
const hydraPid = Number(pidText);
const graceMs = Number(graceText ?? 5000);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const hydraAlive = (): boolean => {
  const info = processInfo(hydraPid);
  return info !== null && info.startTime === startTime && info.state !== 'Z';
};

const signalAll = (run: string, signal: NodeJS.Signals): number => {
  const pids = processesOfRun(run);
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone in the meantime.
    }
  }
  return pids.length;
};

const watch = async (run: string | undefined): Promise<void> => {
  if (!Number.isInteger(hydraPid) || startTime === undefined || run === undefined) return;
  while (hydraAlive()) await sleep(POLL_MS);
  if (signalAll(run, 'SIGTERM') === 0) return;
  for (let waited = 0; waited < graceMs; waited += 100) {
    await sleep(100);
    if (processesOfRun(run).length === 0) return;
  }
  signalAll(run, 'SIGKILL');
};

// hydra stops the watchdog with SIGTERM when the race is over.
process.on('SIGTERM', () => process.exit(0));
await watch(runId);
