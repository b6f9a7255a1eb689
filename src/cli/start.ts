/**
 * What the `hydra` binary (main.ts) runs: parses the command, runs it, and exits with its code once
 * stdout and stderr have been flushed (so piped NDJSON is never cut short).
 */
import { TERMINAL_LOST } from './errors.js';
import { runCli } from './run.js';
import { trace } from '../trace.js';

trace('cli: entry modules loaded');

const code = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});

trace('cli: command done');
await Promise.all([flush(process.stdout), flush(process.stderr)]);
if (code === TERMINAL_LOST) {
  // The terminal is gone and the race was cleaned up: end as a hangup ends a program.
  process.removeAllListeners('SIGHUP');
  process.kill(process.pid, 'SIGHUP');
}
process.exit(code);

function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write('', () => resolve());
  });
}
