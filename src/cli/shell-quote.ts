/** Commands shown for copy-paste into a POSIX shell (never executed through one). */

/** Quotes one argument for display in a POSIX shell. */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export const shellJoin = (argv: readonly string[]): string => argv.map(shellQuote).join(' ');
