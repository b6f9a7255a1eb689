/**
 * The fake agent's output and input: writes that resolve once the kernel has the bytes, a clear
 * exit on bad use, and optional files.
 */
import { existsSync, readFileSync } from 'node:fs';

/** Ends the fake with a message on stderr and exit code 2 (a usage error, as a CLI's own). */
export const fail = (message: string): never => {
  process.stderr.write(`fake-agent: ${message}\n`);
  process.exit(2);
};

export const readIfExists = (file: string | null | undefined): string | null =>
  file !== null && file !== undefined && existsSync(file) ? readFileSync(file, 'utf8') : null;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once the text has been handed to the kernel (the write callback), not merely buffered:
 * `process.exit` right after a buffered write to a full pipe would drop the last lines.
 */
export const write = (text: string | Buffer): Promise<void> =>
  new Promise((resolve) => {
    process.stdout.write(text, () => resolve());
  });
