import type { Style } from './style.js';
import { colorEnabled, createStyle } from './style.js';

/** Everything a command needs from the outside world, so commands never reach for globals. */
export interface CliContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** Styling for stderr messages. */
  err: Style;
  /** Styling for stdout human output (never used for JSON). */
  out: Style;
  /** Writes one line to stdout. */
  print(line?: string): void;
  /** Writes one line to stderr. */
  note(line?: string): void;
}

export function createContext(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}): CliContext {
  const { stdout, stderr, env } = options;
  // `hydra show <run> | head`: once the reader is gone, stop writing instead of crashing on EPIPE.
  let stdoutGone = false;
  let stderrGone = false;
  const note = (text: string): void => {
    if (!stderrGone) stderr.write(text);
  };
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (!stdoutGone && error.code !== 'EPIPE') note(`hydra: cannot write to stdout (${error.message})\n`);
    stdoutGone = true;
  });
  // stderr closed (`2>&-`) or its terminal gone (EIO): messages are lost, hydra goes on.
  stderr.on('error', () => {
    stderrGone = true;
  });
  return {
    ...options,
    err: createStyle(colorEnabled(stderr, env)),
    out: createStyle(colorEnabled(stdout, env)),
    print: (line = '') => {
      if (!stdoutGone) stdout.write(`${line}\n`);
    },
    note: (line = '') => note(`${line}\n`),
  };
}
