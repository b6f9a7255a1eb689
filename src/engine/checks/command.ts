/**
 * How a check's command line becomes a process: split on spaces into an argument array, no shell,
 * unless it uses something only a shell understands (quotes, pipes, redirections, `&&`, variables,
 * globs, `VAR=value` prefixes); then it runs as `sh -c '<command>'`, exactly as written.
 */

/** Characters that mean the command needs a shell. */
const SHELL_SYNTAX = /[|&;<>()$`\\"'*?[\]{}~#!\n]/;

/** A leading `NAME=value` word is an environment assignment only a shell understands. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export interface CheckCommand {
  file: string;
  args: string[];
  /** True when it runs through `sh -c`. */
  shell: boolean;
}

export const checkCommand = (run: string): CheckCommand => {
  const words = run
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  const [first, ...rest] = words;
  if (first === undefined || SHELL_SYNTAX.test(run) || ASSIGNMENT.test(first))
    return { file: 'sh', args: ['-c', run], shell: true };
  return { file: first, args: rest, shell: false };
};
