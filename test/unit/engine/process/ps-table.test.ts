/**
 * The process table read from `ps` (ps-table.ts), where there is no /proc: macOS's output and
 * procps's for the same columns, and the environment words `ps -E` appends.
 */
import { describe, expect, it } from 'vitest';
import {
  carries,
  parsePsRows,
  procTable,
  psEnvironmentFlag,
} from '../../../../src/engine/process/ps-table.js';

/** `ps -axww -E -o pid=,ppid=,pgid=,stat=,lstart=,command=` as macOS prints it. */
const MACOS = [
  '    1     0     1 Ss   Tue Nov 24 09:12:01 2026 /sbin/launchd',
  '  812     1   812 S    Sun Dec  6 18:19:07 2026 /usr/local/bin/node /usr/local/bin/hydra race fix it TERM_PROGRAM=Apple_Terminal SHELL=/bin/zsh',
  '  930   812   930 S+   Sun Dec  6 18:19:09 2026 claude -p --output-format stream-json fix it HYDRA_RUN_ID=20261206-181907-ab12 HYDRA_OWNER=claude PATH=/usr/bin:/bin',
  '  944   930   930 Z    Sun Dec  6 18:19:10 2026 <defunct>',
].join('\n');

/** The same columns from procps (Linux's ps): its state words and its spacing. */
const PROCPS = [
  '      1       0       1 Ss   Sun Dec  6 15:52:47 2026 /sbin/init',
  '  20776   20775   20776 Sl+  Mon Jan 11 07:03:59 2027 node dist/cli/main.js race x',
  '  20801   20776   20776 Z+   Mon Jan 11 07:04:00 2027 [sleep] <defunct>',
].join('\n');

describe('parsePsRows', () => {
  it("reads macOS's rows: pid, ppid, pgid, state, start (local time) and the command with its environment", () => {
    const rows = parsePsRows(MACOS);
    expect(rows.map((row) => [row.pid, row.ppid, row.pgid, row.state])).toEqual([
      [1, 0, 1, 'Ss'],
      [812, 1, 812, 'S'],
      [930, 812, 930, 'S+'],
      [944, 930, 930, 'Z'],
    ]);
    expect(rows[2]?.startedAt).toBe(new Date(2026, 11, 6, 18, 19, 9).getTime());
    expect(rows[2]?.command).toBe(
      'claude -p --output-format stream-json fix it HYDRA_RUN_ID=20261206-181907-ab12 HYDRA_OWNER=claude PATH=/usr/bin:/bin',
    );
  });

  it("reads procps's rows the same way", () => {
    const rows = parsePsRows(PROCPS);
    expect(rows.map((row) => [row.pid, row.pgid, row.state, row.command])).toEqual([
      [1, 1, 'Ss', '/sbin/init'],
      [20776, 20776, 'Sl+', 'node dist/cli/main.js race x'],
      [20801, 20776, 'Z+', '[sleep] <defunct>'],
    ]);
    expect(rows[1]?.startedAt).toBe(new Date(2027, 0, 11, 7, 3, 59).getTime());
  });

  it('leaves out a header, a blank line and a row whose start does not parse', () => {
    const output = `  PID  PPID  PGID STAT STARTED COMMAND\n\n  5 1 5 S Sun Foo  6 18:19:07 2026 x\n${MACOS}`;
    expect(parsePsRows(output).map((row) => row.pid)).toEqual([5, 1, 812, 930, 944]);
    expect(parsePsRows(output)[0]?.startedAt).toBeNull();
  });
});

describe('carries', () => {
  const [, hydra, agent] = parsePsRows(MACOS);

  it('finds a variable as a whole word of the environment', () => {
    expect(agent && carries(agent, 'HYDRA_RUN_ID=20261206-181907-ab12')).toBe(true);
    expect(agent && carries(agent, 'HYDRA_OWNER=claude')).toBe(true);
  });

  it('does not take a prefix of a longer value, or another process, for the marker', () => {
    expect(agent && carries(agent, 'HYDRA_RUN_ID=20261206-181907-ab1')).toBe(false);
    expect(agent && carries(agent, 'HYDRA_OWNER=claude-2')).toBe(false);
    expect(hydra && carries(hydra, 'HYDRA_RUN_ID=20261206-181907-ab12')).toBe(false);
  });
});

describe('the table in use', () => {
  it('is /proc on Linux, ps with HYDRA_PORTABLE=1', () => {
    expect(procTable({})).toBe(process.platform === 'linux');
    expect(procTable({ HYDRA_PORTABLE: '1' })).toBe(false);
  });

  it("asks macOS's ps for environments with -E, the BSDs' with -e", () => {
    expect(psEnvironmentFlag('darwin')).toBe('-E');
    expect(psEnvironmentFlag('linux')).toBe('-E');
    expect(psEnvironmentFlag('freebsd')).toBe('-e');
  });
});
