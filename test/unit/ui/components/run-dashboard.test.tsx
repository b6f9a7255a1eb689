import { describe, expect, it, vi } from 'vitest';

// Chalk decides on colour support when Ink is imported: force it, so NO_COLOR is what turns it off.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});
import { runDashboard } from '../../../../src/ui/components/dashboard.js';
import { agentSnapshot, completed, FakeHandle, raceSnapshot } from '../../../support/ui-fixtures.js';
import { FakeStdin, plain, renderApp, SizedStdout } from '../../../support/ui-harness.js';

const ESC = '\u001B';
const COLOUR = new RegExp(`${ESC}\\[3\\dm`);

const streams = () => {
  const stdout = new SizedStdout(100, 30);
  const stdin = new FakeStdin();
  return {
    stdout,
    stdin,
    options: {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      env: { LANG: 'C.UTF-8' },
      patchConsole: false,
    },
  };
};

const output = (stdout: SizedStdout): string => plain(stdout.frames.join(''));

describe('runDashboard', () => {
  it('cancels the race cleanly on SIGINT and exits 1 when nothing completed', async () => {
    const handle = new FakeHandle(raceSnapshot([agentSnapshot('claude'), agentSnapshot('codex')]));
    const { stdout, options } = streams();
    const listenersBefore = process.listenerCount('SIGINT');
    const running = runDashboard(handle, options);
    await vi.waitFor(() => expect(stdout.frames.join('')).toContain('Claude Code'));
    process.emit('SIGINT');
    const result = await running;
    expect(result).toEqual({ exitCode: 1, merged: null, terminalLost: false });
    expect(handle.calls.map((call) => call.kind)).toEqual(['cancel', 'finish']);
    expect(output(stdout)).toContain('Race cancelled; nothing was merged.');
    expect(stdout.frames.join('')).toMatch(COLOUR);
    expect(stdout.frames.join('')).toContain('╭');
    expect(process.listenerCount('SIGINT')).toBe(listenersBefore);
  });

  it('cancels the race cleanly when the terminal is lost (EIO on stdout), and says so', async () => {
    const handle = new FakeHandle(raceSnapshot([agentSnapshot('claude')]));
    const { stdout, options } = streams();
    const running = runDashboard(handle, options);
    await vi.waitFor(() => expect(stdout.frames.join('')).toContain('Claude Code'));
    stdout.emit('error', Object.assign(new Error('write EIO'), { code: 'EIO' }));
    const result = await running;
    expect(result.terminalLost).toBe(true);
    expect(handle.calls.map((call) => call.kind)).toEqual(['cancel', 'finish']);
  });

  it('returns the merge and exit code 0 after m and y', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude'), completed('codex')]));
    const { stdout, stdin, options } = streams();
    const running = runDashboard(handle, options);
    await vi.waitFor(() => expect(stdout.frames.join('')).toContain('Codex'));
    stdin.write('2');
    await new Promise((resolve) => setTimeout(resolve, 30));
    stdin.write('m');
    await vi.waitFor(() => expect(output(stdout)).toContain('y merge'));
    stdin.write('y');
    const result = await running;
    expect(result.exitCode).toBe(0);
    expect(result.merged).toMatchObject({ agent: 'codex', into: 'main', method: 'fast-forward' });
  });

  it('uses ASCII when the locale is not UTF-8 and no colours with NO_COLOR', async () => {
    const handle = new FakeHandle(raceSnapshot([agentSnapshot('claude')]));
    const { stdout, options } = streams();
    const running = runDashboard(handle, { ...options, env: { LANG: 'C', NO_COLOR: '1' } });
    await vi.waitFor(() => expect(stdout.frames.join('')).toContain('Claude Code'));
    process.emit('SIGINT');
    await running;
    expect(output(stdout)).toContain('> 1 Claude Code');
    expect(output(stdout)).not.toMatch(/[╭│━✔⠋]/);
    expect(stdout.frames.join('')).not.toMatch(COLOUR);
  });
});

describe('without a keyboard', () => {
  it('finishes the race once every agent settled', async () => {
    const handle = new FakeHandle(raceSnapshot([completed('claude')]));
    const rendered = renderApp(handle, { interactive: false });
    await vi.waitFor(() => expect(rendered.outcomes).toEqual([{ kind: 'quit', cancelled: false }]));
    expect(handle.calls.map((call) => call.kind)).toEqual(['finish']);
    rendered.unmount();
  });
});
