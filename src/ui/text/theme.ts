/**
 * How the dashboard draws: Unicode or ASCII symbols and borders, with or without colours.
 *
 * Detection rules (used by runDashboard when the caller does not decide, and by the CLI):
 * - colours are off when `NO_COLOR` is set to any non-empty value (https://no-color.org), or when
 *   `TERM=dumb`;
 * - ASCII is used when the first of `LC_ALL`, `LC_CTYPE`, `LANG` that is set does not mention
 *   UTF-8, or when none is set at all (a bare POSIX locale cannot be trusted with box characters),
 *   or when `TERM=dumb`. `HYDRA_ASCII=1` forces ASCII, `HYDRA_ASCII=0` forces Unicode.
 */

export type Tone = 'accent' | 'ok' | 'error' | 'warn' | 'muted' | 'info' | 'added' | 'removed' | 'hunk';

export interface Symbols {
  ok: string;
  fail: string;
  warn: string;
  focus: string;
  tool: string;
  message: string;
  thinking: string;
  progress: string;
  unknown: string;
  dot: string;
  ellipsis: string;
  pending: string;
  stopped: string;
  arrowLeftRight: string;
  arrowUpDown: string;
  enter: string;
  spinner: readonly string[];
}

export interface Theme {
  ascii: boolean;
  color: boolean;
  symbols: Symbols;
  /** Ink border style name. */
  border: 'round' | 'single' | 'classic';
  focusBorder: 'double' | 'bold' | 'classic';
  /** The colour for a tone, or undefined when colours are off. */
  tone(tone: Tone): string | undefined;
}

const UNICODE: Symbols = {
  ok: '✔',
  fail: '✘',
  warn: '⚠',
  focus: '▸',
  tool: '⚙',
  message: '›',
  thinking: '∴',
  progress: '·',
  unknown: '?',
  dot: '·',
  ellipsis: '…',
  pending: '○',
  stopped: '■',
  arrowLeftRight: '←/→',
  arrowUpDown: '↑/↓',
  enter: '⏎',
  spinner: ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'],
};

const ASCII: Symbols = {
  ok: '+',
  fail: 'x',
  warn: '!',
  focus: '>',
  tool: '$',
  message: '>',
  thinking: '~',
  progress: '.',
  unknown: '?',
  dot: '-',
  ellipsis: '...',
  pending: 'o',
  stopped: '#',
  arrowLeftRight: '<-/->',
  arrowUpDown: 'Up/Dn',
  enter: 'Enter',
  spinner: ['|', '/', '-', '\\'],
};

const COLORS: Record<Tone, string> = {
  accent: 'cyan',
  ok: 'green',
  error: 'red',
  warn: 'yellow',
  muted: 'gray',
  info: 'blue',
  added: 'green',
  removed: 'red',
  hunk: 'cyan',
};

export const createTheme = (options: { ascii: boolean; color: boolean }): Theme => ({
  ascii: options.ascii,
  color: options.color,
  symbols: options.ascii ? ASCII : UNICODE,
  border: options.ascii ? 'classic' : 'round',
  focusBorder: options.ascii ? 'classic' : 'bold',
  tone: (tone) => (options.color ? COLORS[tone] : undefined),
});

const isSet = (value: string | undefined): value is string => value !== undefined && value !== '';

/** Whether colours must be off, from the environment (NO_COLOR, TERM=dumb). */
export const detectNoColor = (env: NodeJS.ProcessEnv): boolean => isSet(env.NO_COLOR) || env.TERM === 'dumb';

/** Whether the terminal should get ASCII instead of Unicode symbols and box characters. */
export const detectAscii = (env: NodeJS.ProcessEnv): boolean => {
  if (env.HYDRA_ASCII === '1') return true;
  if (env.HYDRA_ASCII === '0') return false;
  if (env.TERM === 'dumb') return true;
  const locale = [env.LC_ALL, env.LC_CTYPE, env.LANG].find(isSet);
  if (locale === undefined) return true;
  return !/utf-?8/i.test(locale);
};

export interface DashboardDisplayOptions {
  ascii?: boolean;
  noColor?: boolean;
}

/** Fills in the display options the caller left open from the environment. */
export const resolveDisplayOptions = (
  options: DashboardDisplayOptions,
  env: NodeJS.ProcessEnv,
): { ascii: boolean; noColor: boolean } => ({
  ascii: options.ascii ?? detectAscii(env),
  noColor: options.noColor ?? detectNoColor(env),
});
