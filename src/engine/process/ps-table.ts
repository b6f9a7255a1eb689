/**
 * The process table where there is no /proc (macOS, the BSDs), read from `ps`: one `ps -axww -o
 * pid=,ppid=,pgid=,stat=,lstart=,command=` a question, with `-E` (macOS; `-e` on the BSDs) when
 * the question is a process's environment, which ps then prints after its arguments. The columns
 * are requested by name with empty headers, so BSD's and procps's outputs read the same: pid, ppid,
 * pgid, a state word (`Ss`, `R+`, `Z`), the start time as five words (`Sun Dec  6 18:19:07 2026`,
 * local time, whole seconds; LC_ALL=C so the names are English), then the command to the end of
 * the line. HYDRA_PORTABLE=1 forces this table (and the process-group containment) on Linux, so
 * the code paths of a Mac can be run here; the tests put a shim first on PATH that prints what
 * macOS's ps prints (test/support/bsd-ps/ps).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const PORTABLE_ENV = 'HYDRA_PORTABLE';

let procMounted: boolean | null = null;

/** Whether the process table is read from /proc: Linux with /proc, unless HYDRA_PORTABLE=1. */
export const procTable = (env: NodeJS.ProcessEnv = process.env): boolean => {
  if (env[PORTABLE_ENV] === '1') return false;
  procMounted ??= existsSync('/proc/self/stat');
  return procMounted;
};

/** The option that makes ps print each process's environment after its command. */
export const psEnvironmentFlag = (platform: NodeJS.Platform = process.platform): string =>
  platform === 'freebsd' || platform === 'openbsd' || platform === 'netbsd' ? '-e' : '-E';

export interface PsRow {
  pid: number;
  ppid: number;
  pgid: number;
  /** ps's state word: its first letter is the state (Z: a zombie, dead and not yet reaped). */
  state: string;
  /** When it started, epoch ms (whole seconds), or null when the column did not parse. */
  startedAt: number | null;
  /** The command and its arguments, then, when asked for, its environment, space-separated. */
  command: string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Dec 6 18:19:07 2026` (the weekday dropped) as local time, epoch ms; null when it is not that. */
const lstartMs = (month: string, day: string, time: string, year: string): number | null => {
  const index = MONTHS.indexOf(month);
  const clock = /^(\d{1,2}):(\d{2}):(\d{2})$/.exec(time);
  if (index < 0 || clock === null || !/^\d{1,2}$/.test(day) || !/^\d{4}$/.test(year)) return null;
  const [, hours, minutes, seconds] = clock.map(Number);
  return new Date(Number(year), index, Number(day), hours, minutes, seconds).getTime();
};

const ROW = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+\S+\s+(\S+)\s+(\d+)\s+(\S+)\s+(\d+)(?:\s(.*))?$/;

/** The rows of `ps -o pid=,ppid=,pgid=,stat=,lstart=,command=` output; lines that do not parse are left out. */
export const parsePsRows = (output: string): PsRow[] =>
  output.split('\n').flatMap((line) => {
    const match = ROW.exec(line);
    if (match === null) return [];
    const [, pid, ppid, pgid, state, month, day, time, year, command] = match;
    return [
      {
        pid: Number(pid),
        ppid: Number(ppid),
        pgid: Number(pgid),
        state: state ?? '',
        startedAt: lstartMs(month ?? '', day ?? '', time ?? '', year ?? ''),
        command: command ?? '',
      },
    ];
  });

const COLUMNS = 'pid=,ppid=,pgid=,stat=,lstart=,command=';

/** How long one `ps` may take. */
const PS_TIMEOUT_MS = 10_000;

/**
 * Every process ps shows (with its environment when `environment`), or only `pid`. Empty when ps
 * is missing or fails: the callers then find nothing, as with an unreadable /proc.
 */
export const psRows = (options: { environment?: boolean; pid?: number } = {}): PsRow[] => {
  const args = [
    ...(options.pid === undefined ? ['-axww'] : ['-ww', '-p', String(options.pid)]),
    ...(options.environment === true ? [psEnvironmentFlag()] : []),
    '-o',
    COLUMNS,
  ];
  const result = spawnSync('ps', args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, LC_ALL: 'C' },
    timeout: PS_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  return typeof result.stdout === 'string' ? parsePsRows(result.stdout) : [];
};

/** Whether a row's command line (with its environment) holds the word `NAME=value`. */
export const carries = (row: PsRow, variable: string): boolean =>
  ` ${row.command} `.includes(` ${variable} `);
