/**
 * PID 1 of an agent's PID namespace (see containment.ts): `node contain-init.js <status file> --
 * <file> <args...>`. Runs the agent as its child, in the same process group and with the same
 * stdio, so signals to the group reach the agent as they would without a namespace (a PID 1 would
 * drop the ones it has no handler for). When the agent ends, writes how it ended to the status file
 * (a namespace's init cannot die of a signal, so its own exit code could not say) and exits; the
 * kernel then kills whatever is left in the namespace.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { constants } from 'node:os';

export interface InitStatus {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the agent could not be started (ENOENT, EACCES...). */
  spawnError?: string;
}

const [statusFile, dashes, file, ...args] = process.argv.slice(2);

const record = (status: InitStatus): void => {
  try {
    if (statusFile !== undefined) writeFileSync(statusFile, JSON.stringify(status));
  } catch {
    // hydra then reports the init's own exit code.
  }
};

if (statusFile === undefined || dashes !== '--' || file === undefined) {
  process.stderr.write('usage: contain-init.js <status file> -- <file> [args...]\n');
  process.exit(2);
}

const child = spawn(file, args, { stdio: 'inherit' });
child.on('error', (error: NodeJS.ErrnoException) => {
  record({ exitCode: null, signal: null, spawnError: `spawn ${file} ${error.code ?? error.message}` });
  process.exit(127);
});
child.on('exit', (code, signal) => {
  record({ exitCode: code, signal });
  process.exit(code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0)));
});
