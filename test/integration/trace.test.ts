/** HYDRA_TRACE: the phase lines the bench reads (`1`), and with the process's CPU (`cpu`, issue 33). */
import { afterEach, describe, expect, it, vi } from 'vitest';

const linesWith = async (mode: string | undefined): Promise<string[]> => {
  vi.resetModules();
  vi.stubEnv('HYDRA_TRACE', mode);
  const written: string[] = [];
  const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  const { trace } = await import('../../src/trace.js');
  trace('race: agents probed');
  write.mockRestore();
  return written;
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('trace', () => {
  it('HYDRA_TRACE=1: the time since the process started, then the phase', async () => {
    expect(await linesWith('1')).toEqual([
      expect.stringMatching(/^hydra trace \d+\.\d race: agents probed\n$/),
    ]);
  });

  it('HYDRA_TRACE=cpu: the CPU the process has used as well', async () => {
    expect(await linesWith('cpu')).toEqual([
      expect.stringMatching(/^hydra trace \d+\.\d cpu=\d+ race: agents probed\n$/),
    ]);
  });

  it('prints nothing otherwise', async () => {
    expect(await linesWith(undefined)).toEqual([]);
    expect(await linesWith('0')).toEqual([]);
  });
});
