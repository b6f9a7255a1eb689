/**
 * How a prompt reaches a CLI. Prompts are data: they go in an argument array after `--` (so a
 * leading "-" is never read as a flag), or, when too long for one argument or not representable
 * in one (NUL), through a file the engine writes and connects to the CLI's stdin.
 */
import { join } from 'node:path';
import type { FileToWrite } from './types.js';

/**
 * Prompts up to this many UTF-8 bytes go on the command line. Linux refuses single arguments of
 * 128 KiB or more (MAX_ARG_STRLEN) and Windows whole command lines over 32 767 characters; 32 KiB
 * stays clear of both, and longer prompts go through stdin, which has no limit.
 */
export const ARGV_PROMPT_LIMIT_BYTES = 32 * 1024;

const PROMPT_FILE_NAME = 'prompt.txt';

export type PromptDelivery =
  { via: 'argv'; args: string[] } | { via: 'stdin'; args: string[]; files: FileToWrite[]; stdinFile: string };

/** Whether a prompt can travel as one command-line argument. */
const fitsInArgv = (prompt: string): boolean =>
  !prompt.includes('\0') && Buffer.byteLength(prompt, 'utf8') <= ARGV_PROMPT_LIMIT_BYTES;

/**
 * Builds the tail of an argument list that carries the prompt.
 * `stdinArgs` are what the CLI needs to read the prompt from stdin (codex: ["-"], claude: []).
 * `argvFlag` sends an argument prompt as one `<flag>=<prompt>` (for yargs CLIs, which keep what
 * follows `--` from their prompt) instead of after `--`.
 */
export const deliverPrompt = (
  prompt: string,
  scratchDir: string,
  options: { stdinArgs: string[]; forceStdin?: boolean; argvFlag?: string },
): PromptDelivery => {
  if (options.forceStdin !== true && fitsInArgv(prompt))
    return {
      via: 'argv',
      args: options.argvFlag === undefined ? ['--', prompt] : [`${options.argvFlag}=${prompt}`],
    };
  const stdinFile = join(scratchDir, PROMPT_FILE_NAME);
  return { via: 'stdin', args: options.stdinArgs, files: [{ path: stdinFile, content: prompt }], stdinFile };
};
