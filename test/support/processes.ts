/**
 * The tests' view of the machine's processes, one table for every helper that asks what runs: read
 * from /proc where there is one (the kernel's own word, independent of the hydra code under test),
 * else from `ps` (macOS, the BSDs; `-E` appends each process's environment, as words after the
 * command, so there an argument of the form NAME=value counts as a variable too). Tests ask this
 * table, not /proc, so they say the same on a system without it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export interface TestProcess {
  pid: number;
  ppid: number;
  /** The state letter: Z is a zombie (dead, not yet reaped). */
  state: string;
  /** Its arguments (from ps: its command line split at spaces). */
  argv: string[];
  /** Its environment, `NAME=value` each; empty unless asked for (or unreadable). */
  environ: string[];
}

const hasProc = existsSync('/proc/self/stat');

const fromProc = (pid: number, environment: boolean): TestProcess | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    let environ: string[] = [];
    if (environment)
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').slice(0, -1);
      } catch {
        // Another user's process: no environment to read.
      }
    return { pid, ppid: Number(fields[1]), state: fields[0] ?? '', argv, environ };
  } catch {
    return null;
  }
};

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*=/;

const fromPs = (environment: boolean): TestProcess[] =>
  execFileSync(
    'ps',
    [
      '-axww',
      ...(environment ? [process.platform === 'darwin' ? '-E' : '-e'] : []),
      '-o',
      'pid=,ppid=,stat=,command=',
    ],
    { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 64 * 1024 * 1024 },
  )
    .split('\n')
    .flatMap((line) => {
      const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s(.*)$/.exec(line);
      if (match === null) return [];
      const words = (match[4] ?? '').trim().split(/\s+/);
      const environ = environment ? words.filter((word) => VARIABLE.test(word)) : [];
      return [
        {
          pid: Number(match[1]),
          ppid: Number(match[2]),
          state: (match[3] ?? '').slice(0, 1),
          argv: words,
          environ,
        },
      ];
    });

/** Every process this user may see, with their environments when `environment` (it costs a read each). */
export const processTable = (options: { environment?: boolean } = {}): TestProcess[] => {
  const environment = options.environment === true;
  if (!hasProc) return fromPs(environment);
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => fromProc(Number(name), environment) ?? []);
};

/** One process, or null when it is gone. */
export const processById = (pid: number): TestProcess | null =>
  hasProc ? fromProc(pid, false) : (fromPs(false).find((item) => item.pid === pid) ?? null);

/** Whether `pid` runs: it exists and is not a zombie. */
export const alive = (pid: number): boolean => {
  const found = processById(pid);
  return found !== null && found.state !== 'Z';
};

/** Live processes (zombies left out) whose command line, argv joined by NUL with a NUL at the end, passes `matches`. */
export const liveProcesses = (matches: (cmdline: string) => boolean): number[] =>
  processTable()
    .filter((item) => item.state !== 'Z' && item.argv.length > 0 && matches(`${item.argv.join('\0')}\0`))
    .map((item) => item.pid);

/** Processes whose environment passes `matches` (one `NAME=value` per entry). */
export const processesWithEnvironment = (matches: (environ: readonly string[]) => boolean): number[] =>
  processTable({ environment: true })
    .filter((item) => item.pid !== process.pid && matches(item.environ))
    .map((item) => item.pid);

/** Every process whose environment carries this run's marker (agents and anything they started). */
export const processesOfRun = (runId: string): number[] =>
  processesWithEnvironment((environ) => environ.includes(`HYDRA_RUN_ID=${runId}`));
